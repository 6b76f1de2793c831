/**
 * Scripted answers for the in-page notices of issue 4 ("a guard error fails closed with a
 * notice", the "holding" indicator), each as the exact frames a server writes, with the
 * pauses between them:
 *
 * - `unrewritable-secret`: LobeChat's SSE protocol (WIRE-FORMATS.md §6.3) from a server
 *   that ends every `text` event with an extra empty `data:` line. Any SSE client
 *   accepts that (data lines join with "\n", and `JSON.parse` ignores the trailing
 *   newline), but the LobeChat adapter cannot re-serialise such an event with new text
 *   (it rewrites exactly one `data: "<json string>"` line). Harmless text passes byte for
 *   byte; the event that must carry a redaction cannot be written, so the guard fails
 *   closed there (stream-rewriter.ts `render-failed`, DESIGN.md §3.5). Should the
 *   adapter learn to rewrite several data lines, this scenario needs another frame it
 *   cannot write (the e2e test then fails on a complete answer, not silently).
 * - `unrewritable-harmless`: the same quirk without a secret: nothing to rewrite, the
 *   page gets the whole answer (the control case).
 * - `stalled-secret`: OpenAI Chat Completions SSE that stops for `STALL_MS` right after
 *   the first characters of a GitHub token, then completes it: the guard holds the
 *   possible secret, the page shows "holding", and the token is redacted at the end.
 * - `stalled-harmless`: stops on the same kind of prefix, then turns out to be prose
 *   about the prefix: the held text is released unchanged.
 *
 * Tokens are assembled at run time (scripted-answers.ts `fakeGithubToken`), so no
 * secret-shaped literal sits in the repository.
 */
import { fakeGithubToken } from './scripted-answers.ts';

export type ScenarioName =
  'unrewritable-secret' | 'unrewritable-harmless' | 'stalled-secret' | 'stalled-harmless';

export type ScenarioFormat = 'lobechat' | 'openai';

/** How long a stalled answer stops on its possible-secret prefix (issue 4: ~1.5 s). */
export const STALL_MS = 1_500;

export interface ScenarioFrame {
  /** The text this event carries. */
  text: string;
  /** Extra wait after writing this frame (on top of the route's chunk delay). */
  pauseAfterMs?: number;
}

export interface Scenario {
  name: ScenarioName;
  format: ScenarioFormat;
  /** LobeChat only: every text event carries a second, empty `data:` line (the quirk). */
  extraDataLine: boolean;
  frames: ScenarioFrame[];
  /** The text a page renders when the guard changes nothing (all frames joined). */
  text: string;
  /** The dangerous part, '' when there is none. */
  secret: string;
  /** The answer's text before the secret (or before the stall): safe to show. */
  before: string;
  /** The answer's text after the secret (or after the stall). */
  after: string;
}

function scenario(
  name: ScenarioName,
  format: ScenarioFormat,
  frames: ScenarioFrame[],
  secret: string,
  before: string,
  after: string,
): Scenario {
  return {
    name,
    format,
    extraDataLine: name.startsWith('unrewritable-'),
    frames,
    text: frames.map((f) => f.text).join(''),
    secret,
    before,
    after,
  };
}

export function guardNoticeScenario(name: ScenarioName): Scenario {
  switch (name) {
    case 'unrewritable-secret': {
      const token = fakeGithubToken(4242);
      const before = 'I checked the deployment notes. The token there is ';
      const after = '. After rotating it, redeploy the service.';
      return scenario(
        name,
        'lobechat',
        [
          { text: 'I checked the deployment notes. ' },
          { text: 'The token there is ' },
          { text: token.slice(0, 10) },
          { text: token.slice(10) },
          { text: '. After rotating it, ' },
          { text: 'redeploy the service.' },
        ],
        token,
        before,
        after,
      );
    }
    case 'unrewritable-harmless': {
      const text = 'The deployment notes list three services. All of them are healthy.';
      return scenario(
        name,
        'lobechat',
        [
          { text: 'The deployment notes ' },
          { text: 'list three services. ' },
          { text: 'All of them are healthy.' },
        ],
        '',
        text,
        '',
      );
    }
    case 'stalled-secret': {
      const token = fakeGithubToken(77);
      const before = 'Here is the token from your notes: ';
      const after = '. Rotate it soon.';
      return scenario(
        name,
        'openai',
        [
          { text: 'Here is the token ' },
          { text: 'from your notes: ' },
          { text: token.slice(0, 16), pauseAfterMs: STALL_MS },
          { text: token.slice(16) },
          { text: after },
        ],
        token,
        before,
        after,
      );
    }
    case 'stalled-harmless': {
      // "ghp_" and a few letters could still become a token until the space arrives.
      const before = 'Classic GitHub tokens start with ';
      const held = ['gh', 'p', '_Abc'].join('');
      const after = ' and more letters; never paste one here.';
      return scenario(
        name,
        'openai',
        [
          { text: 'Classic GitHub tokens ' },
          { text: 'start with ' },
          { text: held, pauseAfterMs: STALL_MS },
          { text: after },
        ],
        '',
        before,
        after,
      );
    }
  }
}

export const SCENARIO_NAMES: readonly ScenarioName[] = [
  'unrewritable-secret',
  'unrewritable-harmless',
  'stalled-secret',
  'stalled-harmless',
];

export function isScenarioName(value: string): value is ScenarioName {
  return (SCENARIO_NAMES as readonly string[]).includes(value);
}

/** One SSE event as written to the network, and the pause after it. */
export interface TimedEvent {
  bytes: string;
  pauseAfterMs: number;
}

/**
 * LobeChat events (`id`, `event`, `data`): a `text` event per frame, then `stop`. With
 * `extraDataLine`, every text event carries a second, empty `data:` line.
 */
function lobeChatEvents(frames: readonly ScenarioFrame[], extraDataLine: boolean): TimedEvent[] {
  const events = frames.map((frame, i) => ({
    bytes:
      `id: chat-${i}\nevent: text\ndata: ${JSON.stringify(frame.text)}\n` +
      (extraDataLine ? 'data:\n' : '') +
      '\n',
    pauseAfterMs: frame.pauseAfterMs ?? 0,
  }));
  events.push({
    bytes: `id: chat-${frames.length}\nevent: stop\ndata: "stop"\n\n`,
    pauseAfterMs: 0,
  });
  return events;
}

/** OpenAI Chat Completions SSE: role chunk, one content delta per frame, finish chunk, `[DONE]`. */
function openAiChatEvents(frames: readonly ScenarioFrame[]): TimedEvent[] {
  const head = {
    id: 'chatcmpl-mockguardnotices',
    object: 'chat.completion.chunk',
    created: 1764400000,
    model: 'mock-gpt',
  };
  const chunk = (delta: object, finish: string | null) =>
    `data: ${JSON.stringify({ ...head, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] })}\n\n`;
  return [
    { bytes: chunk({ role: 'assistant', content: '' }, null), pauseAfterMs: 0 },
    ...frames.map((frame) => ({
      bytes: chunk({ content: frame.text }, null),
      pauseAfterMs: frame.pauseAfterMs ?? 0,
    })),
    { bytes: chunk({}, 'stop'), pauseAfterMs: 0 },
    { bytes: 'data: [DONE]\n\n', pauseAfterMs: 0 },
  ];
}

/** The events a server writes for `scenario`, in its wire format. */
export function scenarioEvents(scenario: Scenario): TimedEvent[] {
  if (scenario.format === 'openai') return openAiChatEvents(scenario.frames);
  return lobeChatEvents(scenario.frames, scenario.extraDataLine);
}
