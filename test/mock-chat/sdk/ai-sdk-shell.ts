/**
 * The shared shell of the pages built on the AI SDK's own clients (issue 20 §4):
 * each turn's answer is rendered as Markdown into the DOM while it streams, as
 * chat apps built on `useChat` do (react-markdown and the like), so an image in
 * the answer is really fetched unless the guard neutralised it.
 *
 * A page exposes `window.askAiSdk(prompt)`: it sends the prompt with its SDK
 * client and resolves with what the page shows at the end and every error the
 * client reported (its `onError`, or a rejected call).
 */
import { marked } from 'marked';

export interface AiSdkTurn {
  text: string;
  html: string;
  /** `src` of every image in the answer. */
  images: string[];
  /** What the SDK client reported as errors, as strings. */
  errors: string[];
}

/**
 * One SDK client's turn: sends `prompt`, calls `show` with the answer's Markdown
 * so far each time it grows, and `fail` for each error the client reports.
 */
export type AiSdkAsk = (
  prompt: string,
  show: (markdown: string) => void,
  fail: (error: unknown) => void,
) => Promise<void>;

/** The text parts of a UI message (SDK 5+), joined as `useChat` pages show them. */
export function textOf(message: { parts: readonly { type: string }[] } | undefined): string {
  return (message?.parts ?? [])
    .map((part) => (part.type === 'text' ? ((part as { text?: string }).text ?? '') : ''))
    .join('');
}

/**
 * A `ChatState` for the SDK's `AbstractChat`, as the framework bindings write
 * theirs (@ai-sdk/react's `ReactChatState`): plain arrays replaced on every
 * change, `snapshot` a structured clone; `onChange` renders.
 */
export function observedChatState<M>(onChange: (messages: readonly M[]) => void) {
  const state = {
    status: 'ready' as 'submitted' | 'streaming' | 'ready' | 'error',
    error: undefined as Error | undefined,
    messages: [] as M[],
    pushMessage(message: M) {
      state.messages = [...state.messages, message];
      onChange(state.messages);
    },
    popMessage() {
      state.messages = state.messages.slice(0, -1);
      onChange(state.messages);
    },
    replaceMessage(index: number, message: M) {
      state.messages = state.messages.map((m, i) => (i === index ? message : m));
      onChange(state.messages);
    },
    snapshot: <T>(thing: T): T => structuredClone(thing),
  };
  return state;
}

export function mountAiSdkPage(name: string, ask: AiSdkAsk): void {
  const transcript = document.getElementById('transcript')!;
  const askAiSdk = async (prompt: string): Promise<AiSdkTurn> => {
    const answer = document.createElement('div');
    answer.className = 'msg';
    answer.dataset.role = 'assistant';
    transcript.append(answer);
    const errors: string[] = [];
    const show = (markdown: string) => {
      answer.innerHTML = marked.parse(markdown, { async: false });
    };
    try {
      await ask(prompt, show, (error) => errors.push(String(error)));
    } catch (error) {
      errors.push(String(error));
    }
    return {
      text: answer.textContent ?? '',
      html: answer.innerHTML,
      images: [...answer.querySelectorAll('img')].map((img) => img.getAttribute('src') ?? ''),
      errors,
    };
  };
  (window as unknown as { askAiSdk: typeof askAiSdk }).askAiSdk = askAiSdk;
  document.documentElement.dataset.sdk = name;
}
