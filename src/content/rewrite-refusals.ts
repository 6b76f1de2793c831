/**
 * Issue 20 §1, in the ISOLATED world: a site that refuses a request the guard
 * rewrote is detected, reported and asked about from then on.
 *
 * - The request host sent a body other than the page's (redaction, paste
 *   envelope, history projection): `sent` notes the request's channel id.
 * - The MAIN world reports the HTTP status of each guarded send's answer
 *   (`request-answered`: id and status, never content). A refusal status
 *   (core/outgoing/rewrite-refusal.ts) for an id noted here, once, gives an audit
 *   record (rule `send-rewrite-refused`, error), an in-page notice, and this
 *   site remembered (rewrite-refusal-memory.ts): its sends are then asked about
 *   (send as typed, edit, cancel) like Z.ai's, never rewritten.
 *
 * Never trusting the page: a status for an id this bridge did not rewrite is
 * ignored, so an un-rewritten request that fails teaches nothing. A forged
 * status for a rewritten one can only switch the site to asking, where nothing
 * the guard would change leaves without the person's choice (a block still
 * blocks; outgoing-request-guard.ts `askBound`).
 *
 * No DOM, no extension APIs (injected).
 */
import {
  REWRITE_REFUSED_RULE,
  type RewriteRefused,
  type RewriteWatch,
  createRewriteWatch,
} from '../core/outgoing/rewrite-refusal.ts';
import type { RewriteRefusalRecord } from '../protocol/rewrite-refusals.ts';
import type { ContentToBackground } from '../protocol/runtime-messages.ts';
import type { Translate } from '../ui/i18n.ts';
import type { NoticeTone } from './page-notices.ts';

/** The in-page notice's message key (_locales/*\/messages.json). */
export const REWRITE_REFUSED_NOTICE = 'notice_rewrite_refused';

export interface RewriteRefusalDeps {
  report(message: ContentToBackground): void;
  notice(key: string, text: string, tone: NoticeTone): void;
  translate: Translate;
  remember(record: RewriteRefusalRecord): Promise<void>;
  newId(): string;
  now(): number;
}

export interface RewriteRefusals {
  /** The request `requestId` left in format `format`, with `body` instead of the page's `pageBody`. */
  sent(requestId: string, format: string, pageBody: string, body: string): void;
  /** The MAIN world's `request-answered`; the refusal it was, if it was one. */
  answered(requestId: string, status: number): RewriteRefused | undefined;
}

export function createRewriteRefusals(
  deps: RewriteRefusalDeps,
  watch: RewriteWatch = createRewriteWatch(),
): RewriteRefusals {
  const refused = (found: RewriteRefused) => {
    const streamId = deps.newId();
    const stream = {
      streamId,
      direction: 'out',
      format: found.format,
      conversationId: '',
      turnId: '',
    } as const;
    deps.report({
      to: 'background',
      type: 'guard-events',
      stream,
      events: [
        {
          type: 'error',
          rule: REWRITE_REFUSED_RULE,
          message: `the site refused the protected request (HTTP ${found.status})`,
          at: 0,
          pack: 'outgoing',
        },
      ],
    });
    // Nothing was stopped by the guard: the site answered, so the stream itself completed.
    deps.report({ to: 'background', type: 'stream-end', streamId, outcome: 'complete' });
    deps.notice(`${streamId}:rewrite-refused`, deps.translate(REWRITE_REFUSED_NOTICE), 'warning');
    void deps.remember({ format: found.format, status: found.status, at: deps.now() }).catch(() => {
      // Storage failed: this refusal is still in the audit log and the notice; the next
      // rewritten send will be refused again and tried again here.
    });
  };
  return {
    sent(requestId, format, pageBody, body) {
      if (body !== pageBody) watch.rewritten(requestId, format);
    },
    answered(requestId, status) {
      const found = watch.answered(requestId, status);
      if (found !== undefined) refused(found);
      return found;
    },
  };
}
