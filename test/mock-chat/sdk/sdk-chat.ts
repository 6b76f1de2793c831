/**
 * The shared shell of the SDK pages: a transcript, a form, and one answer
 * element per turn whose text grows with each delta the SDK hands over.
 * `data-done` says how the turn ended (`true` or `error`), for tests.
 */
export type Ask = (prompt: string, onText: (delta: string) => void) => Promise<void>;

export function mountSdkChat(name: string, ask: Ask): void {
  const transcript = document.getElementById('transcript')!;
  const form = document.getElementById('composer') as HTMLFormElement;
  const input = document.getElementById('prompt') as HTMLInputElement;
  document.documentElement.dataset.sdk = name;

  const add = (role: string, text: string): HTMLElement => {
    const div = document.createElement('div');
    div.className = 'msg';
    div.dataset.role = role;
    div.textContent = text;
    transcript.append(div);
    return div;
  };

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const prompt = input.value.trim();
    if (!prompt) return;
    input.value = '';
    add('user', prompt);
    const answer = add('assistant', '');
    answer.dataset.done = 'false';
    ask(prompt, (delta) => {
      answer.textContent += delta;
    }).then(
      () => {
        answer.dataset.done = 'true';
      },
      (error: unknown) => {
        answer.dataset.done = 'error';
        answer.dataset.error = String(error);
      },
    );
  });
}
