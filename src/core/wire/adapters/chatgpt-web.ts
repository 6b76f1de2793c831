/**
 * ChatGPT web (WIRE-FORMATS.md §1): the SSE answer of `POST /backend-api/f/conversation`
 * (also `/backend-api/conversation`, `/backend-anon/…`, `/backend-alt/…`, the
 * `/f/conversation/resume` continuation and the pulse `feed/…/conversation` variants).
 *
 * Two dialects share one stream reader:
 * - `delta_encoding` v1 (§1.4, incremental): `event: delta` frames carry `{p, o, v}`
 *   ops against the current message envelope `{message, conversation_id, error}`; an op
 *   without `p`/`o` continues the previous one (the sticky cursor, `patch-cursor.ts`);
 *   `{"o":"patch","v":[…]}` batches sub-ops with absolute paths; `{"v":{"message":…},"c":n}`
 *   opens the next message of the turn.
 * - the old cumulative format (§1.5): every frame is a whole envelope whose
 *   `message.content.parts[0]` holds the entire text so far (`snapshot` slots).
 *
 * Only the visible answer is guarded: `/message/content/parts/0` of a message with
 * `author.role` assistant, recipient `all` (or none), content type text, not
 * `metadata.is_visually_hidden_from_conversation`. Tool, system, user, hidden
 * scaffolding and tool-call messages (recipient `bio`, `web.run`, …) pass through
 * byte for byte, as do every typed event (§1.3) and every non-text field.
 * Each message is its own guard stream (`message:<id>`).
 *
 * Citation markers `\ue200…\ue201` (§1.4): the guard's replacements are atomic and
 * each frame carries exactly its share of the guarded text, so a marker the guard
 * does not touch reaches the page whole even when the server split it across
 * deltas. Offsets into the text (`content_references[].start_idx/end_idx`, legacy
 * `citations[].start_ix/end_ix`) are moved with a redaction or dropped
 * (`citation-offsets.ts`).
 *
 * A block ends the answer the way a finished one ends (§1.6), so the page neither
 * hangs nor resumes (§1.8: `Oe()` re-requests only after a network error or a
 * retryable HTTP status; a stream that reached `message_stream_complete` is done):
 * v1 gets a final patch (`status: finished_successfully`, `end_turn: true`,
 * `finish_details.type: "stop"`) unless the message already finished, then
 * `{"type":"message_stream_complete"}` (the bundle's own "done", and the only
 * terminator on the WebSocket path, §1.7) and `data: [DONE]`; the old format gets a
 * last whole envelope with the guarded text and a finished status, then `[DONE]`.
 *
 * Nearly every frame of an answer is `{"v":"…"}`, the next piece of the text while
 * the cursor continues an append at the text (§1.4). Those are read by their learned
 * shape (string-slot-template.ts) instead of `JSON.parse`, when the state the slow path
 * would consult says it would make the same one delta slot (`continuedText`; issue
 * 20's wire ≤ 2× target). test/unit/wire/chatgpt-web-fast-path.test.ts checks both
 * paths give the same for any events and split.
 */
import { recognisers } from '../wire-recognisers.ts';
import { type OffsetRef, findOffsetRefs, offsetEdits } from '../citation-offsets.ts';
import type { JsonPath } from '../json-string-span.ts';
import { type JsonEdit, editJson } from '../json-value-edit.ts';
import { PatchCursor, joinPath } from '../patch-cursor.ts';
import type { RawFrame } from '../raw-frame.ts';
import { memoryWriteFlag } from '../../outgoing/memory-write-flag.ts';
import { editSseJson } from '../sse-json-edit.ts';
import { isRecord, sseJson } from '../sse-json-render.ts';
import { StringSlotTemplate } from '../string-slot-template.ts';
import type { AdapterSession, TextSlot, WireAdapter, WireEvent } from '../wire-event.ts';
import { AppendedText } from './appended-text.ts';

/** Where the visible text of a message sits in the envelope (§1.4). */
const TEXT_PATH = '/message/content/parts/0';
const TEXT_SEGMENTS = ['message', 'content', 'parts', 0] as const;
/** Where a continuation frame `{"v":"…"}` carries its text. */
const V_PATH: JsonPath = ['v'];

/** Typed (unnamed) events the bundle's `An()` understands (§1.3): passed through silently. */
const KNOWN_TYPES = new Set([
  'title_generation',
  'moderation',
  'url_moderation',
  'num_variants_in_stream',
  'input_message',
  'add-item',
  'replace-item',
  'stream-item-start',
  'stream-item-patch',
  'stream-item-done',
  'delete-item',
  'display_crisis_helpline_message',
  'display_crisis_helpline_modal',
  'toast',
  'perf_stats',
  'conversation_detail_metadata',
  'beacon_ui_response',
  'resume_conversation_token',
  'conversation_async_status',
  'server_ste_metadata',
  'message_marker',
  'survey_campaign_effect',
  'ads',
  'single_advertiser_ad_unit',
  'url',
  'search_model_queries',
  'stop',
  'stream_handoff',
  'message_stream_complete',
  'instant_answer_debug',
  'gizmo_inline_review',
  'system_hint_suggestion',
]);

/** The visible-answer rule of §1.4, shared with the history adapter. */
export function isVisibleAssistantMessage(message: Record<string, unknown>): boolean {
  const author = isRecord(message.author) ? message.author : {};
  if (author.role !== 'assistant') return false;
  const recipient = message.recipient;
  if (recipient !== undefined && recipient !== null && recipient !== 'all') return false;
  const metadata = isRecord(message.metadata) ? message.metadata : {};
  if (metadata.is_visually_hidden_from_conversation === true) return false;
  const content = isRecord(message.content) ? message.content : undefined;
  if (content === undefined) return true;
  const type = content.content_type;
  return type === undefined || type === 'text' || type === 'multimodal_text';
}

function textOf(message: Record<string, unknown>): string | undefined {
  const content = isRecord(message.content) ? message.content : undefined;
  const parts = content !== undefined && Array.isArray(content.parts) ? content.parts : undefined;
  const first: unknown = parts?.[0];
  return typeof first === 'string' ? first : undefined;
}

function lineEndOf(raw: string): string {
  const m = /\r\n|\r|\n/.exec(raw);
  return m === null ? '\n' : m[0];
}

interface MessageState {
  key: string;
  visible: boolean;
  /** Bumped when text arrives for a message whose guard stream already ended. */
  segment: number;
  /** The guard stream's name for `segment`, built once per segment (`channelOf`). */
  channel?: { segment: number; name: string };
  ended: boolean;
  /** The text the page would hold if nothing were guarded (appended per delta, read rarely). */
  text: AppendedText;
  /** The current guard stream's input is `text` (false after a restart mid-text). */
  aligned: boolean;
  /** A memory write (issue 5 §4): its text is checked once, when it finishes. */
  memory?: { audited: boolean };
}

/** The memory tool (`bio`) receives what ChatGPT persists as a memory (WIRE-FORMATS.md §1.3). */
function isMemoryWrite(message: Record<string, unknown>): boolean {
  const author = isRecord(message.author) ? message.author : {};
  return author.role === 'assistant' && message.recipient === 'bio';
}

/** What a frame does to the page, applied when the page actually receives it. */
interface Effects {
  v1?: boolean;
  legacy?: boolean;
  /** The page's current message becomes this one. */
  message?: string;
  /** The current message reached a final status. */
  finished?: boolean;
  complete?: boolean;
  done?: boolean;
  conversationId?: string;
  /** Old format: the envelope of a visible message, as sent to the page. */
  legacyVisible?: boolean;
  /** The data as rendered (set when the frame's text changed). */
  renderedData?: string;
}

interface TextEdit {
  slot: number;
  /** Path of the string in the frame's data JSON. */
  path: JsonPath;
  /** For a `truncate` op rewritten to `replace`: the path of the op object. */
  truncateOp?: JsonPath;
}

/** Slots, edits and ends collected while decoding one frame. */
class FrameBuild {
  readonly slots: TextSlot[] = [];
  readonly edits: TextEdit[] = [];
  readonly anchors: { slot: number; refs: OffsetRef[] }[] = [];
  /** Messages whose guard stream ends with this frame. */
  readonly ending = new Set<MessageState>();
  readonly effects: Effects = {};
  readonly flags: NonNullable<WireEvent['flags']> = [];
  unrecognised: string | undefined;

  /** `carried`: channels that ended with the previous frame. */
  constructor(readonly carried: string[]) {}

  report(detail: string): void {
    this.unrecognised ??= `chatgpt-web: ${detail}`;
  }

  hasChannel(channel: string): boolean {
    return this.slots.some((s) => s.channel === channel);
  }
}

/**
 * A continuation frame `{"v":"…"}` read by its learned shape: the event the slow
 * path makes of it (one delta slot at `v`, no ends, no effect but v1), as a class
 * so the common frame allocates only itself, its slot and the slot array.
 */
class ContinuedText implements WireEvent {
  readonly slots: TextSlot[];

  constructor(
    readonly frame: RawFrame,
    slot: TextSlot | undefined,
  ) {
    this.slots = slot === undefined ? [] : [slot];
  }

  /** The slow path's render of the same frame: its one edit, at `v`. */
  render(texts: readonly string[]): string {
    const text = texts[0] as string;
    if (text === this.slots[0]?.text) return this.frame.raw;
    return editSseJson(this.frame, [{ path: V_PATH, json: JSON.stringify(text) }]);
  }
}

/**
 * One answer. `fastPath` (default on) reads continuation frames by their learned
 * shape instead of parsing them; off only in the test that proves both give the same.
 */
export function chatgptSession(fastPath = true): AdapterSession {
  const cursor = new PatchCursor({
    opForPathOnly: () => 'append',
    // A bare `{"o":"patch",…}` or `{"o":"add",…}` works on the envelope root (§1.4).
    pathForOpOnly: (op) => (op === 'patch' || op === 'add' ? '' : undefined),
  });
  const messages = new Map<string, MessageState>();
  let current: MessageState | undefined;
  let anonymous = 0;
  let pendingEnds: string[] = [];
  let lineEnd: string | undefined;
  const effectsOf = new WeakMap<WireEvent, Effects>();
  // The shape of a continuation frame `{"v":"…"}` (its only key), and whether the
  // cursor now continues an append at the text: then such a frame is a text delta of
  // the current message, whatever its string (`continuedText`). The cursor moves only
  // where an op frame is decoded the slow way, which sets `textCursor` again.
  const continuations = fastPath ? new StringSlotTemplate<null>() : null;
  let textCursor = false;

  // What the page has received (for the block ending).
  const page = {
    v1: false,
    legacy: false,
    current: undefined as string | undefined,
    currentFinished: false,
    complete: false,
    done: false,
    conversationId: undefined as string | undefined,
    /** Old format: data of the last visible envelope sent, and whether it was final. */
    lastLegacy: undefined as { data: string; finished: boolean } | undefined,
  };

  function channelOf(m: MessageState): string {
    const cached = m.channel;
    if (cached !== undefined && cached.segment === m.segment) return cached.name;
    const name = m.segment === 0 ? `message:${m.key}` : `message:${m.key}~${m.segment}`;
    m.channel = { segment: m.segment, name };
    return name;
  }

  /**
   * The event of a continuation frame whose data matched the learned shape, or
   * undefined where the slow path would do more than append it to the current
   * message's text: no message yet (reported), a message whose guard stream
   * ended (a new segment, reported), channels carried from the last frame
   * (today only a frame that also ended the current message carries any: kept
   * in case that changes), an event name other than `delta` (reported).
   * Otherwise the slow path resolves the frame to an append at TEXT_PATH (no
   * `p`, `o`, `type`, `conversation_id` or `c` in it, `v` a string) and
   * `textOp` appends it: a delta slot of the message's channel when it is
   * visible, nothing when it is not.
   */
  function continuedText(frame: RawFrame, data: string, event: string | undefined) {
    const m = current;
    if (m === undefined || m.ended || pendingEnds.length > 0) return undefined;
    if (event !== 'delta' && event !== undefined) return undefined;
    const hit = continuations?.match(data);
    if (hit === undefined) return undefined;
    const text = hit.text;
    m.text.append(text);
    if (!m.visible) return new ContinuedText(frame, undefined);
    return new ContinuedText(frame, { channel: channelOf(m), mode: 'delta', text });
  }

  /** Learns the shape of a continuation frame decoded the slow way: `v` is its only key. */
  function learnContinuation(data: string, json: Record<string, unknown>): void {
    if (continuations === null || typeof json.v !== 'string') return;
    for (const key in json) if (key !== 'v') return;
    continuations.learn(data, V_PATH, null);
  }

  function endMessage(m: MessageState | undefined, b: FrameBuild): void {
    if (m !== undefined && m.visible && !m.ended) b.ending.add(m);
  }

  function endAll(b: FrameBuild): void {
    for (const m of messages.values()) {
      endMessage(m, b);
      auditMemory(b, m);
    }
  }

  /** Flags an instruction-shaped memory write once it is complete (seed 004 §6). */
  function auditMemory(b: FrameBuild, m: MessageState): void {
    if (m.memory === undefined || m.memory.audited) return;
    m.memory.audited = true;
    const event = memoryWriteFlag(m.text.value);
    if (event !== null) b.flags.push({ channel: `memory:${m.key}`, event });
  }

  /** The message text ops apply to; a resumed stream may start without one (guarded). */
  function target(b: FrameBuild): MessageState {
    if (current !== undefined) return current;
    b.report('text before any message object (resumed stream?)');
    current = {
      key: `unknown-${anonymous++}`,
      visible: true,
      segment: 0,
      ended: false,
      text: new AppendedText(),
      aligned: true,
    };
    messages.set(current.key, current);
    return current;
  }

  function feed(
    b: FrameBuild,
    m: MessageState,
    mode: TextSlot['mode'],
    text: string,
    path: JsonPath,
    truncateOp?: JsonPath,
  ): void {
    if (m.ended) {
      // A whole copy of a finished message re-guards it from scratch; an append is an anomaly.
      if (mode !== 'snapshot') b.report('text after its message ended');
      m.segment++;
      m.ended = false;
      m.aligned = mode === 'snapshot';
    }
    const slot = b.slots.push({ channel: channelOf(m), mode, text }) - 1;
    const edit: TextEdit = { slot, path };
    if (truncateOp !== undefined) edit.truncateOp = truncateOp;
    b.edits.push(edit);
  }

  /** References into the message text (citations): re-pointed when the text changed. */
  function anchor(b: FrameBuild, m: MessageState, value: unknown, path: JsonPath): void {
    // After a guard stream restarted mid-text (an anomaly) the offsets cannot be mapped.
    if (!m.visible || !m.aligned) return;
    const refs = findOffsetRefs(value, path);
    if (refs.length === 0) return;
    // A snapshot slot of the text so far: no new text, but it gives render() the
    // guarded text the offsets must now point into (and waits until it is decided).
    const slot = b.slots.push({ channel: channelOf(m), mode: 'snapshot', text: m.text.value }) - 1;
    b.anchors.push({ slot, refs });
  }

  /** A whole message object: a new message of the turn, or a full copy of the current one. */
  function openMessage(
    b: FrameBuild,
    message: Record<string, unknown>,
    path: JsonPath,
    counter: unknown,
  ): void {
    const key =
      typeof message.id === 'string'
        ? message.id
        : typeof counter === 'number'
          ? `c${counter}`
          : `anonymous-${anonymous++}`;
    let m = messages.get(key);
    if (m === undefined) {
      const visible = isVisibleAssistantMessage(message);
      m = { key, visible, segment: 0, ended: false, text: new AppendedText(), aligned: true };
      if (isMemoryWrite(message)) m.memory = { audited: false };
      messages.set(key, m);
    }
    if (current !== m) {
      endMessage(current, b);
      current = m;
      b.effects.message = key;
    }
    const text = textOf(message);
    if (m.memory !== undefined && text !== undefined) m.text.set(text);
    if (m.visible && text !== undefined) {
      m.text.set(text);
      feed(b, m, 'snapshot', text, [...path, 'content', 'parts', 0]);
    }
    if (m.visible && isRecord(message.metadata)) {
      anchor(b, m, message.metadata, [...path, 'metadata']);
    }
    status(b, m, message.status);
  }

  function status(b: FrameBuild, m: MessageState, value: unknown): void {
    if (typeof value !== 'string' || value === 'in_progress') return;
    if (m === current) b.effects.finished = true;
    // The message is complete: its guard stream ends with this frame.
    endMessage(m, b);
    auditMemory(b, m);
  }

  /** Applies one op (top-level or inside a patch) at `dataPath` of the frame's JSON. */
  function apply(
    b: FrameBuild,
    path: string | undefined,
    op: string | undefined,
    value: unknown,
    dataPath: JsonPath,
    counter: unknown,
  ): void {
    // A whole message: `{"p":"","o":"add","v":{"message":…}}` or its continuation `{"v":{…},"c":n}`.
    if ((path === '' || path === undefined) && isRecord(value) && isRecord(value.message)) {
      if (op === 'add' || op === 'replace' || op === undefined) {
        if (typeof value.conversation_id === 'string') {
          b.effects.conversationId = value.conversation_id;
        }
        openMessage(b, value.message, [...dataPath, 'message'], counter);
        return;
      }
    }
    if (op === 'patch' && Array.isArray(value)) {
      value.forEach((sub: unknown, i) => {
        if (!isRecord(sub)) return;
        const subPath = typeof sub.p === 'string' ? joinPath(path ?? '', sub.p) : undefined;
        if (subPath === undefined) b.report('patch sub-op without a path');
        const subOp = typeof sub.o === 'string' ? sub.o : 'append';
        apply(b, subPath, subOp, sub.v, [...dataPath, i, 'v'], undefined);
      });
      return;
    }
    if (path === undefined) {
      if (typeof value === 'string') {
        b.report('continuation without a cursor');
        textOp(b, target(b), 'append', value, dataPath);
      }
      return;
    }
    if (path === TEXT_PATH) {
      textOp(b, target(b), op ?? 'append', value, dataPath);
      return;
    }
    // An op on the envelope root or an ancestor of the text that is not a whole message
    // (e.g. a continuation string after `add`/`patch`): ambiguous, guarded as text.
    if ((path === '' || path === '/message') && typeof value === 'string') {
      b.report(`string op "${op ?? ''}" at "${path}"`);
      textOp(b, target(b), 'append', value, dataPath);
      return;
    }
    const m = current;
    if (m === undefined) return;
    // Ancestors of the text replaced as a whole: `/message/content`, `/message/content/parts`.
    const ancestor = ['/message', '/message/content', '/message/content/parts'].indexOf(path);
    if (ancestor >= 0 && (op === 'replace' || op === 'add')) {
      const rest = TEXT_SEGMENTS.slice(ancestor + 1);
      const inner = valueAt(value, rest);
      if (m.visible && typeof inner === 'string') {
        m.text.set(inner);
        feed(b, m, 'snapshot', inner, [...dataPath, ...rest]);
      }
      if (ancestor === 0 && isRecord(value)) {
        if (m.visible && isRecord(value.metadata))
          anchor(b, m, value.metadata, [...dataPath, 'metadata']);
        status(b, m, value.status);
      }
      return;
    }
    if (path === '/message/status' && (op === 'replace' || op === 'add')) {
      status(b, m, value);
      return;
    }
    if (path === '/message/recipient' && (op === 'replace' || op === 'add')) {
      if (!m.visible && (value === 'all' || value === null)) {
        // Hidden until now: guard from here on (earlier text was never shown as an answer).
        b.report('a hidden message became visible');
        m.visible = true;
        m.segment++;
        m.aligned = m.text.isEmpty;
      }
      return;
    }
    if (path.startsWith('/message/metadata')) {
      if (typeof value === 'object' && value !== null) anchor(b, m, value, dataPath);
      else if (/\/(?:start|end)_i(?:dx|x)$/.test(path)) b.report(`offset op at "${path}"`);
      return;
    }
    if (path.startsWith('/message/content/parts/0/') || path.startsWith(`${TEXT_PATH}/`)) {
      b.report(`op below the text at "${path}"`);
    }
  }

  function textOp(
    b: FrameBuild,
    m: MessageState,
    op: string,
    value: unknown,
    dataPath: JsonPath,
  ): void {
    if (!m.visible) {
      if (op === 'append' && typeof value === 'string') m.text.append(value);
      else if ((op === 'replace' || op === 'add') && typeof value === 'string') m.text.set(value);
      return;
    }
    if (op === 'append' && typeof value === 'string') {
      m.text.append(value);
      feed(b, m, 'delta', value, dataPath);
      return;
    }
    if ((op === 'replace' || op === 'add') && typeof value === 'string') {
      m.text.set(value);
      feed(b, m, 'snapshot', value, dataPath);
      return;
    }
    if (op === 'truncate' && typeof value === 'number') {
      // Unconfirmed op (§1.4, §9): the page cuts its (guarded) text; re-guard the cut original.
      b.report('truncate of the answer text');
      const cut = m.text.value.slice(0, value);
      m.text.set(cut);
      feed(b, m, 'snapshot', cut, dataPath, dataPath.slice(0, -1));
      return;
    }
    if (op === 'remove') {
      b.report('remove of the answer text');
      m.text.set('');
      feed(b, m, 'snapshot', '', dataPath);
      return;
    }
    b.report(`op "${op}" on the answer text`);
  }

  function build(frame: RawFrame, b: FrameBuild): WireEvent {
    // `ends` take effect before a frame's slots: a stream this frame feeds ends with the next one.
    const ends = [...b.carried];
    for (const m of b.ending) {
      if (m.ended) continue;
      m.ended = true;
      const channel = channelOf(m);
      if (b.hasChannel(channel)) pendingEnds.push(channel);
      else ends.push(channel);
    }
    const event: WireEvent = {
      frame,
      slots: b.slots,
      render: (texts) => render(frame, b, texts),
    };
    if (ends.length > 0) event.ends = ends;
    if (b.unrecognised !== undefined) event.unrecognised = b.unrecognised;
    if (b.flags.length > 0) event.flags = b.flags;
    effectsOf.set(event, b.effects);
    return event;
  }

  function render(frame: RawFrame, b: FrameBuild, texts: readonly string[]): string {
    const edits: JsonEdit[] = [];
    for (const e of b.edits) {
      const text = texts[e.slot] as string;
      if (text === b.slots[e.slot]?.text) continue;
      if (e.truncateOp !== undefined)
        edits.push({ path: [...e.truncateOp, 'o'], json: '"replace"' });
      edits.push({ path: e.path, json: JSON.stringify(text) });
    }
    const filters: JsonEdit[] = [];
    for (const a of b.anchors) {
      const original = b.slots[a.slot]?.text ?? '';
      for (const edit of offsetEdits(a.refs, original, texts[a.slot] as string)) {
        ('keep' in edit ? filters : edits).push(edit);
      }
    }
    edits.push(...filters);
    const data = frame.sse?.data ?? '';
    b.effects.renderedData = editJson(data, edits);
    return editSseJson(frame, edits);
  }

  return {
    decode(frame: RawFrame): WireEvent {
      lineEnd ??= frame.raw.length > 0 ? lineEndOf(frame.raw) : undefined;
      if (textCursor && frame.sse !== undefined) {
        const fast = continuedText(frame, frame.sse.data, frame.sse.event);
        if (fast !== undefined) return fast;
      }
      const b = new FrameBuild(pendingEnds);
      pendingEnds = [];
      const sse = frame.sse;
      if (sse === undefined) return build(frame, b);
      if (sse.data.trim() === '[DONE]') {
        endAll(b);
        b.effects.done = true;
        return build(frame, b);
      }
      if (sse.event === 'delta_encoding') {
        b.effects.v1 = true;
        return build(frame, b);
      }
      const json = sseJson(frame);
      if (typeof json === 'string') {
        // `data: "v1"` without its event name (one capture, §1.3).
        if (json === 'v1') b.effects.v1 = true;
        else b.report('bare string event');
        return build(frame, b);
      }
      if (!isRecord(json)) {
        b.report('data is not a JSON object');
        return build(frame, b);
      }
      if (typeof json.conversation_id === 'string') b.effects.conversationId = json.conversation_id;
      if (typeof json.type === 'string' && sse.event !== 'delta') {
        if (json.type === 'message_stream_complete') {
          endAll(b);
          b.effects.complete = true;
        } else if (!KNOWN_TYPES.has(json.type)) {
          b.report(`event type ${json.type}`);
        }
        return build(frame, b);
      }
      const isOp = 'v' in json || 'p' in json || 'o' in json;
      if (!isOp && isRecord(json.message)) {
        // The old cumulative format (§1.5), also understood inside a v1 stream (§1.3).
        b.effects.legacy = true;
        openMessage(b, json.message, ['message'], undefined);
        b.effects.legacyVisible = current?.visible === true;
        return build(frame, b);
      }
      if (!isOp) {
        if (typeof json.error !== 'string' && json.error !== null) b.report('frame without ops');
        return build(frame, b);
      }
      if (sse.event !== undefined && sse.event !== 'delta') b.report(`event ${sse.event}`);
      b.effects.v1 = true;
      let resolved = cursor.resolve(json, json.v);
      if (resolved.continued && isRecord(json.v) && isRecord(json.v.message)) {
        // `{"v":{"message":…},"c":n}` opens the next message whatever the cursor says (§1.4).
        cursor.moveTo('', 'add');
        resolved = { path: '', op: 'add', continued: true };
      }
      apply(b, resolved.path, resolved.op, json.v, ['v'], json.c);
      textCursor = resolved.path === TEXT_PATH && resolved.op === 'append';
      if (textCursor && resolved.continued) learnContinuation(sse.data, json);
      return build(frame, b);
    },

    emitted(event) {
      if (event instanceof ContinuedText) {
        page.v1 = true;
        return;
      }
      const effects = effectsOf.get(event);
      if (effects === undefined) return;
      if (effects.v1) page.v1 = true;
      if (effects.legacy) page.legacy = true;
      if (effects.conversationId !== undefined) page.conversationId = effects.conversationId;
      if (effects.message !== undefined) {
        page.current = effects.message;
        page.currentFinished = false;
      }
      if (effects.finished) page.currentFinished = true;
      if (effects.complete) page.complete = true;
      if (effects.done) page.done = true;
      if (effects.legacyVisible) {
        page.lastLegacy = {
          data: effects.renderedData ?? event.frame.sse?.data ?? '',
          finished: effects.finished === true,
        };
      }
    },

    blockEnding() {
      if (page.done) return '';
      const nl = lineEnd ?? '\n';
      const sse = (data: unknown, name?: string) =>
        `${name === undefined ? '' : `event: ${name}${nl}`}data: ${JSON.stringify(data)}${nl}${nl}`;
      let out = '';
      if (!page.complete) {
        if (page.legacy && !page.v1) {
          const last = page.lastLegacy;
          if (last !== undefined && !last.finished) out += sse(finalEnvelope(last.data));
        } else {
          if (page.current !== undefined && !page.currentFinished) {
            out += sse(
              {
                p: '',
                o: 'patch',
                v: [
                  { p: '/message/status', o: 'replace', v: 'finished_successfully' },
                  { p: '/message/end_turn', o: 'replace', v: true },
                  {
                    p: '/message/metadata',
                    o: 'append',
                    v: { is_complete: true, finish_details: { type: 'stop', stop_tokens: [] } },
                  },
                ],
              },
              'delta',
            );
          }
          const complete: Record<string, unknown> = { type: 'message_stream_complete' };
          if (page.conversationId !== undefined) complete.conversation_id = page.conversationId;
          out += sse(complete);
        }
      }
      return `${out}data: [DONE]${nl}${nl}`;
    },
  };
}

function valueAt(value: unknown, keys: readonly (string | number)[]): unknown {
  let inner = value;
  for (const key of keys) {
    if (Array.isArray(inner) && typeof key === 'number') inner = inner[key] as unknown;
    else if (isRecord(inner) && typeof key === 'string') inner = inner[key];
    else return undefined;
  }
  return inner;
}

/** Old format: the last visible envelope the page got, marked finished (§1.5, §1.6). */
function finalEnvelope(data: string): unknown {
  let envelope: unknown;
  try {
    envelope = JSON.parse(data);
  } catch {
    return { message: null, error: null };
  }
  if (!isRecord(envelope) || !isRecord(envelope.message)) return envelope;
  const message = envelope.message;
  message.status = 'finished_successfully';
  message.end_turn = true;
  const metadata = isRecord(message.metadata) ? message.metadata : {};
  metadata.finish_details = { type: 'stop', stop_tokens: [] };
  message.metadata = metadata;
  return envelope;
}

export const chatgptWeb: WireAdapter = {
  ...recognisers.chatgptWeb,
  open: () => chatgptSession(),
};
