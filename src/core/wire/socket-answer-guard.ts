/**
 * Guards one WebSocket whose messages carry chat answers (Open WebUI's
 * Socket.IO events, WIRE-FORMATS.md §6.1; Microsoft Copilot's JSON frames,
 * WIRE-FORMATS-2.md §4.2), message by message, with guard state kept across
 * messages: `push(message)` returns the messages the page may receive now, in
 * order (possibly none while a text's end is undecided, possibly several).
 *
 * A socket is not one answer: it carries many, each under its own message id.
 * A block ends that answer with the format's own ending (`endingFor`), sent as
 * a message of its own; later messages of the same answer are dropped; the
 * socket's other answers go on being guarded by a fresh rewriter.
 *
 * A format brings its session (an adapter session that also knows its last
 * answer and how to end one), which answer a message or a guard channel is
 * about, and its recogniser. One socket message is one frame (the framing is
 * the socket's own).
 */
import type { GuardEvent } from '../guard/guard-event.ts';
import type { CompiledPack } from '../rules/compile-pack.ts';
import type { Framer, RawFrame } from './raw-frame.ts';
import { type RewriterOptions, StreamRewriter } from './stream-rewriter.ts';
import type { AdapterSession, WireAdapter, WireEvent } from './wire-event.ts';

/** An adapter session over socket messages that can end any one answer on its own. */
export interface AnswerSocketSession extends AdapterSession {
  /** The id of the last answer whose message carried text (the one a block hits). */
  readonly lastTextMessage: string | undefined;
  /** The message that ends answer `id` with the text the page already shows ('' if ended). */
  endingFor(id: string): string;
}

export interface SocketFormat {
  /** The format's recogniser and adapter (its `open` is not used: `session` is). */
  adapter: WireAdapter;
  session(): AnswerSocketSession;
  /** The answer a socket message is about, if any. */
  answerOf(message: string): string | undefined;
  /** The answer a guard channel belongs to, if any. */
  answerOfChannel(channel: string): string | undefined;
}

/** Each push is exactly one socket message. */
class MessageFramer implements Framer {
  push(text: string): RawFrame[] {
    return [{ raw: text, payload: text }];
  }

  end(): RawFrame[] {
    return [];
  }
}

export class SocketAnswerGuard {
  private readonly outbox: string[] = [];
  private readonly blocked = new Set<string>();
  private rewriter: StreamRewriter;
  /** Answers whose channels reported a block or an error in the current rewriter. */
  private hit = new Set<string>();

  constructor(
    private readonly format: SocketFormat,
    private readonly pack: CompiledPack,
    private readonly options: RewriterOptions = {},
  ) {
    this.rewriter = this.start();
  }

  push(message: string): string[] {
    const id = this.format.answerOf(message);
    if (id !== undefined && this.blocked.has(id)) return [];
    this.rewriter.push(message);
    if (this.rewriter.isBlocked) this.restart();
    return this.outbox.splice(0);
  }

  /** The socket closed: everything held is decided and delivered. */
  end(): string[] {
    this.rewriter.end();
    if (this.rewriter.isBlocked) this.restart();
    return this.outbox.splice(0);
  }

  private restart(): void {
    for (const id of this.hit) this.blocked.add(id);
    this.hit = new Set();
    this.rewriter = this.start();
  }

  private start(): StreamRewriter {
    const outbox = this.outbox;
    const format = this.format;
    const adapter: WireAdapter = {
      ...format.adapter,
      open: (): AdapterSession => {
        const session = format.session();
        const rendered = new WeakMap<WireEvent, string>();
        return {
          decode: (frame) => {
            const event = session.decode(frame);
            const render = event.render;
            event.render = (texts) => {
              const out = render(texts);
              rendered.set(event, out);
              return out;
            };
            return event;
          },
          emitted: (event) => {
            session.emitted?.(event);
            outbox.push(rendered.get(event) ?? event.frame.raw);
          },
          // The ending goes out as its own message; the rewriter's text stream gets nothing.
          blockEnding: () => {
            const ids = this.hit.size > 0 ? [...this.hit] : [session.lastTextMessage];
            for (const id of ids) {
              if (id === undefined) continue;
              this.hit.add(id);
              const ending = session.endingFor(id);
              if (ending !== '') outbox.push(ending);
            }
            return '';
          },
        };
      },
    };
    return new StreamRewriter(adapter, this.pack, {
      ...this.options,
      framer: () => new MessageFramer(),
      onGuardEvents: (channel: string, events: GuardEvent[]) => {
        this.options.onGuardEvents?.(channel, events);
        const stops = events.some(
          (e) => e.type === 'error' || (e.type === 'match' && e.action === 'block'),
        );
        const id = format.answerOfChannel(channel);
        if (stops && id !== undefined) this.hit.add(id);
      },
    });
  }
}
