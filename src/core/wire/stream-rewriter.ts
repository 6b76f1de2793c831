/**
 * Rewrites one response body of a known wire format: frames in, the SAME
 * frames out, in the same order, with only their text changed (DESIGN.md §3.6).
 *
 * A frame waits until the guard has decided all of its text, and every frame
 * behind it waits too (order is kept). A frame whose guarded text equals its
 * own is re-emitted byte for byte, so when nothing matches the page receives
 * exactly the bytes the server sent. On a block, the frames decided so far go
 * out, then the provider's own way of ending a refused answer, then nothing.
 */
import type { GuardEvent } from '../guard/guard-event.ts';
import type { GuardOptions } from '../guard/stream-guard.ts';
import type { CompiledPack } from '../rules/compile-pack.ts';
import { ChannelLedger } from './channel-ledger.ts';
import { ConnectFramer } from './framing/connect-framer.ts';
import { NdjsonFramer } from './framing/ndjson-framer.ts';
import { SseFramer } from './framing/sse-framer.ts';
import { WholeBodyFramer } from './framing/whole-body-framer.ts';
import type { Framer, RawFrame } from './raw-frame.ts';
import {
  type AdapterSession,
  type Framing,
  type TextSlot,
  type WireAdapter,
  type WireEvent,
  type WireFormat,
  UNDECODABLE_RULE,
} from './wire-event.ts';

/** Something about the wire the person (or a developer) should know; never contains text. */
export interface WireIssue {
  kind:
    | 'unrecognised-frame'
    | 'snapshot-rewound'
    | 'channel-reopened'
    | 'echo-mismatch'
    | 'render-failed'
    | 'undecodable';
  detail: string;
}

export interface RewriterOptions {
  guard?: GuardOptions;
  onGuardEvents?: (channel: string, events: GuardEvent[]) => void;
  onIssue?: (issue: WireIssue) => void;
  /** Framers for framings this module does not know (e.g. Gemini's length-prefixed frames). */
  framer?: () => Framer;
  /**
   * Called when frames start or stop waiting for the guard's decision
   * (edge-triggered, after a push or the end). For a "holding" indicator only:
   * time never releases a waiting frame (DESIGN.md §3.4).
   */
  onHoldChange?: (holding: boolean) => void;
  /**
   * The body turned out to be in this format (the generic adapter found a known
   * shape in it): reports from now on name it instead of the adapter's own.
   */
  onFormat?: (format: WireFormat) => void;
}

interface SlotSpan {
  ledger: ChannelLedger;
  from: number;
  to: number;
  /** snapshot / echo slots show the channel's whole guarded text up to `to`. */
  cumulative: boolean;
}

/**
 * A frame waiting for the guard, with the spans of its slots in order. Most
 * frames carry one slot or none, so the first span is the Pending itself
 * (`ledger` null when there is none) and only further ones get objects: one
 * allocation per event, not three (issue 20's wire target, the rewriter's own
 * cost per event on top of the guard's).
 */
class Pending implements SlotSpan {
  ledger: ChannelLedger = null as unknown as ChannelLedger;
  from = 0;
  to = 0;
  cumulative = false;
  /** Spans of the slots after the first, or null. */
  rest: SlotSpan[] | null = null;
  /** The push whose framer source holds this frame at `start` (`StreamRewriter.push`), or 0. */
  push = 0;
  start = 0;

  constructor(readonly event: WireEvent) {}

  get hasSlots(): boolean {
    return (this.ledger as ChannelLedger | null) !== null;
  }

  /** The span of slot `i` (< the event's slot count). */
  span(i: number): SlotSpan {
    return i === 0 ? this : ((this.rest as SlotSpan[])[i - 1] as SlotSpan);
  }

  /** Whether the guard has decided all of the frame's text. */
  settled(): boolean {
    if (!this.hasSlots) return true;
    if (!this.ledger.settled(this.to)) return false;
    if (this.rest !== null) for (const s of this.rest) if (!s.ledger.settled(s.to)) return false;
    return true;
  }

  /** Whether a span's ledger is blocked with text released inside the span (the cut frame). */
  holdsBlockPoint(): boolean {
    if (!this.hasSlots) return false;
    const count = 1 + (this.rest?.length ?? 0);
    for (let i = 0; i < count; i++) {
      const s = this.span(i);
      if (s.ledger.isBlocked && s.ledger.releasedTo > s.from) return true;
    }
    return false;
  }
}

/** Sent frames kept at the queue's front before they are dropped while others still wait. */
const COMPACT_AFTER = 256;

/** Guarded text of a span: its own input span's, or everything up to its end (cumulative). */
function spanText(s: SlotSpan): string {
  return s.cumulative ? s.ledger.textUpTo(s.to) : s.ledger.textOf(s.from, s.to);
}

export function framerFor(framing: Framing): Framer {
  switch (framing) {
    case 'sse':
      return new SseFramer();
    case 'ndjson':
      return new NdjsonFramer();
    case 'whole-body':
      return new WholeBodyFramer();
    case 'connect':
      return new ConnectFramer();
    case 'length-prefixed':
    case 'sniffed':
      throw new Error(`${framing} framing needs the adapter to supply its framer`);
  }
}

export class StreamRewriter {
  private readonly framer: Framer;
  private readonly session: AdapterSession;
  private readonly channels = new Map<string, ChannelLedger>();
  /** Generation per channel name, bumped when a snapshot rewinds. */
  private readonly generations = new Map<string, number>();
  /** Frames waiting, in order, from `head` on (an index, not `shift`: no move per frame). */
  private readonly queue: Pending[] = [];
  private head = 0;
  /** Output pieces of one `drain`, concatenated once (reused, emptied after each). */
  private readonly out: string[] = [];
  /** The SSE framer, whose frames are consecutive slices of its `source` (null for others). */
  private readonly sourced: SseFramer | null;
  /** Pushes so far, numbering the framer sources; each push's source is kept with its number. */
  private pushes = 0;
  private readonly sources = new Map<number, string>();
  /** A run of unchanged frames, consecutive in one push's source, not yet added to `out`. */
  private runPush = 0;
  private runStart = 0;
  private runEnd = 0;
  /** Whether the last `render` gave the frame's own bytes. */
  private unchanged = false;
  private readonly reported = new Set<string>();
  private blocked = false;
  private ended = false;
  private holding = false;
  private format: WireFormat;

  constructor(
    readonly adapter: WireAdapter,
    private readonly pack: CompiledPack,
    private readonly options: RewriterOptions = {},
  ) {
    this.framer = options.framer?.() ?? adapter.createFramer?.() ?? framerFor(adapter.framing);
    this.sourced = this.framer instanceof SseFramer ? this.framer : null;
    this.session = adapter.open();
    this.format = adapter.format;
  }

  get isBlocked(): boolean {
    return this.blocked;
  }

  /** True while frames wait for the guard to decide their text. */
  get isHolding(): boolean {
    return this.holding;
  }

  /** Feeds decoded body text; returns the text the page may receive now. */
  push(text: string): string {
    if (this.blocked || this.ended) return '';
    const frames = this.framer.push(text);
    // Frames of an SSE body are consecutive slices of the framer's source: noted with
    // their offsets, a run of them going out unchanged is one slice, not a copy.
    const push = this.sourced !== null && frames.length > 0 ? ++this.pushes : 0;
    if (push !== 0) this.sources.set(push, (this.sourced as SseFramer).source);
    const from = this.sourced?.sourceFrom ?? 0;
    let start = this.sourced?.sourceOffset ?? 0;
    for (let i = 0; i < frames.length; i++) {
      const frame = frames[i] as RawFrame;
      const pending = this.accept(this.session.decode(frame));
      // Only the framer's own frame sits at `start` (an adapter could hand back another);
      // those before `from` are not slices of the source.
      if (i >= from) {
        if (pending !== null && pending.event.frame === frame) {
          pending.push = push;
          pending.start = start;
        }
        start += frame.raw.length;
      }
      if (this.blocked) break;
    }
    return this.drain();
  }

  /** The body ended: every channel is decided and everything left goes out. */
  end(): string {
    if (this.ended) return '';
    this.ended = true;
    if (this.blocked) return '';
    for (const frame of this.framer.end()) {
      this.accept(this.session.decode(frame));
      if (this.blocked) return this.drain();
    }
    for (const ledger of this.channels.values()) ledger.finish();
    this.checkBlocked();
    return this.drain();
  }

  /** Queues the event's frame (returned) after feeding its text; null when it cannot be read. */
  private accept(event: WireEvent): Pending | null {
    if (event.undecodable !== undefined) {
      this.undecodable(event.undecodable);
      return null;
    }
    if (event.format !== undefined && event.format !== this.format) {
      this.format = event.format;
      this.options.onFormat?.(event.format);
    }
    if (event.unrecognised !== undefined) this.report('unrecognised-frame', event.unrecognised);
    // Plain loops, no `?? []` or map callbacks: this runs once per event (issue 19 §3, the
    // bench's `wire` figure is the rewriter's own cost per event on top of the guard's).
    if (event.flags !== undefined) {
      for (const flag of event.flags) this.options.onGuardEvents?.(flag.channel, [flag.event]);
    }
    if (event.ends !== undefined) {
      for (const name of event.ends) {
        const ledger = this.channels.get(name);
        if (ledger === undefined) continue;
        ledger.finish();
        if (ledger.isBlocked) this.blocked = true;
      }
    }
    const pending = new Pending(event);
    const slots = event.slots;
    for (let i = 0; i < slots.length; i++) {
      const span =
        i === 0 ? pending : { ledger: pending.ledger, from: 0, to: 0, cumulative: false };
      this.slotSpan(slots[i] as TextSlot, span);
      // Only a ledger fed or finished here can have become blocked now (`checkBlocked`).
      if (span.ledger.isBlocked) this.blocked = true;
      if (i > 0) (pending.rest ??= []).push(span);
    }
    this.queue.push(pending);
    return pending;
  }

  /** Feeds a slot's text to its channel and writes where it went into `span`. */
  private slotSpan(slot: TextSlot, span: SlotSpan): void {
    switch (slot.mode) {
      case 'delta': {
        let ledger = this.ledger(slot.channel);
        if (ledger.isFinished && slot.text.length > 0) {
          // Text after the channel ended (a server quirk): guard it as a new generation.
          this.report('channel-reopened', slot.channel);
          ledger = this.ledger(slot.channel, true);
        }
        span.from = ledger.feed(slot.text);
        span.ledger = ledger;
        span.to = ledger.fed;
        span.cumulative = false;
        return;
      }
      case 'snapshot':
        this.snapshot(slot.channel, slot.text, span);
        return;
      case 'echo':
        this.echo(slot.channel, slot.text, span);
        return;
    }
  }

  /**
   * The body cannot be read as text: fail closed. A typed error event (so the
   * audit log and the page notice say "could not be decoded", DESIGN.md §3.5)
   * and a block: the frames decided before go out, this one and the rest never.
   */
  private undecodable(detail: string): void {
    this.report('undecodable', detail);
    const failure: GuardEvent = {
      type: 'error',
      rule: UNDECODABLE_RULE,
      message: `undecodable: ${detail}`.slice(0, 200),
      at: 0,
      pack: `${this.pack.name}@${this.pack.version}`,
    };
    this.options.onGuardEvents?.('', [failure]);
    this.blocked = true;
  }

  private snapshot(channel: string, text: string, span: SlotSpan): void {
    let ledger = this.ledger(channel);
    const seen = ledger.inputText;
    span.cumulative = true;
    if (!text.startsWith(seen)) {
      // The server rewrote earlier text: guard the new version from scratch.
      this.report('snapshot-rewound', channel);
      ledger.abandon();
      ledger = this.ledger(channel, true);
      span.from = ledger.feed(text);
    } else {
      ledger.feed(text.slice(seen.length));
      span.from = 0;
    }
    span.ledger = ledger;
    span.to = ledger.fed;
  }

  private echo(channel: string, text: string, span: SlotSpan): void {
    const ledger = this.ledger(channel);
    const seen = ledger.inputText;
    if (text.startsWith(seen)) ledger.finish(text.slice(seen.length));
    else {
      this.report('echo-mismatch', channel);
      ledger.finish();
    }
    span.ledger = ledger;
    span.from = 0;
    span.to = ledger.fed;
    span.cumulative = true;
  }

  private ledger(channel: string, fresh = false): ChannelLedger {
    const known = this.channels.get(channel);
    if (known !== undefined && !fresh) return known;
    const generation = (this.generations.get(channel) ?? 0) + (fresh ? 1 : 0);
    this.generations.set(channel, generation);
    const ledger = new ChannelLedger(
      generation === 0 ? channel : `${channel}#${generation}`,
      this.pack,
      this.options.guard ?? {},
      (name, events) => this.options.onGuardEvents?.(name, events),
    );
    this.channels.set(channel, ledger);
    return ledger;
  }

  private checkBlocked(): void {
    for (const ledger of this.channels.values()) if (ledger.isBlocked) this.blocked = true;
  }

  /**
   * Emits ready frames in order. On a block: the frames decided before the
   * block point, the frame holding it (with its text cut there), then the
   * provider's ending, and nothing more.
   */
  private drain(): string {
    const out = this.out;
    const queue = this.queue;
    while (this.head < queue.length) {
      const head = queue[this.head] as Pending;
      const ready = head.settled();
      // The frame holding the block point goes out with its text cut there; a frame
      // whose text would be empty is left to the adapter's block ending.
      const cut = !ready && this.blocked && head.holdsBlockPoint();
      if (!ready && !cut) break;
      this.head++;
      const text = this.render(head);
      if (text === null) break;
      this.send(head, text);
      this.session.emitted?.(head.event);
      if (cut) break;
    }
    this.endRun();
    if (this.blocked) this.head = queue.length;
    if (this.head === queue.length) {
      queue.length = 0;
      this.head = 0;
    } else if (this.head >= COMPACT_AFTER) {
      // Frames held for long (a guard waiting on a possible match): drop the sent ones.
      queue.splice(0, this.head);
      this.head = 0;
    }
    if (this.blocked) out.push(this.session.blockEnding());
    this.noteHolding(queue.length > 0);
    // The sources of frames still waiting are kept; the older ones are not needed.
    const oldest = this.head < queue.length ? (queue[this.head] as Pending).push : this.pushes;
    for (const push of this.sources.keys()) if (push < oldest) this.sources.delete(push);
    // A few pieces per push (a frame begun in the last push, a run sliced from this one's
    // text, redacted frames): concatenated, not joined, so the run is not copied.
    let joined = '';
    for (const piece of out) joined += piece;
    out.length = 0;
    return joined;
  }

  /**
   * Adds a frame's text to the output: an unchanged frame right after the run's
   * last one in the same source extends the run, anything else ends it.
   */
  private send(pending: Pending, text: string): void {
    if (this.unchanged && pending.push !== 0) {
      if (pending.push === this.runPush && pending.start === this.runEnd) {
        this.runEnd += text.length;
        return;
      }
      this.endRun();
      this.runPush = pending.push;
      this.runStart = pending.start;
      this.runEnd = pending.start + text.length;
      return;
    }
    this.endRun();
    this.out.push(text);
  }

  /** The run of unchanged frames goes to the output as one slice of its source. */
  private endRun(): void {
    if (this.runPush === 0) return;
    const source = this.sources.get(this.runPush) as string;
    this.out.push(source.slice(this.runStart, this.runEnd));
    this.runPush = 0;
  }

  private noteHolding(holding: boolean): void {
    if (holding === this.holding) return;
    this.holding = holding;
    this.options.onHoldChange?.(holding);
  }

  /** The frame with its guarded text, or null when it cannot be re-serialised (then blocked). */
  private render(pending: Pending): string | null {
    const event = pending.event;
    this.unchanged = true;
    if (!pending.hasSlots) return event.frame.raw;
    const slots = event.slots;
    // The common frame, one slot whose text the guard kept: its own bytes, no array.
    const first = spanText(pending);
    if (pending.rest === null && first === slots[0]?.text) return event.frame.raw;
    const texts: string[] = [first];
    let same = first === slots[0]?.text;
    for (let i = 1; i < slots.length; i++) {
      const text = spanText(pending.span(i));
      if (text !== slots[i]?.text) same = false;
      texts.push(text);
    }
    if (same) return event.frame.raw;
    this.unchanged = false;
    try {
      return event.render(texts);
    } catch (error) {
      // Fail closed: a frame we cannot re-serialise is never passed through with its old text.
      const detail = error instanceof Error ? error.message : String(error);
      this.report('render-failed', detail);
      // Also a typed error event (DESIGN.md §3.5: a failure records one), so the audit
      // log and the popup show the stream was stopped, not merely redacted.
      const at = pending.from;
      const failure: GuardEvent = {
        type: 'error',
        message: `render-failed: ${detail}`.slice(0, 200),
        at,
        pack: `${this.pack.name}@${this.pack.version}`,
      };
      this.options.onGuardEvents?.(pending.ledger.name, [failure]);
      this.blocked = true;
      return null;
    }
  }

  private report(kind: WireIssue['kind'], detail: string): void {
    const key = `${kind}:${detail}`;
    if (this.reported.has(key)) return;
    this.reported.add(key);
    this.options.onIssue?.({ kind, detail });
  }
}
