/**
 * Reasoning that streams before (or between) an answer's text, in sites that
 * mark each delta as reasoning or answer (Grok `isThinking`, HuggingChat
 * `reasoning` updates; WIRE-FORMATS-2.md §4.3, §4.6). Each run of reasoning is
 * its own guard channel, ended when the answer resumes: otherwise the answer's
 * frames would wait behind a reasoning tail that can no longer grow.
 */
export class ReasoningRuns {
  private run = 0;
  private open = false;

  constructor(private readonly name: string) {}

  /** The channel of the current run (opens one if none is open). */
  channel(): string {
    this.open = true;
    return this.run === 0 ? this.name : `${this.name}#${this.run}`;
  }

  /** The answer resumes: the open run's channel, to end before this frame. */
  close(): string[] {
    if (!this.open) return [];
    const ended = this.channel();
    this.open = false;
    this.run++;
    return [ended];
  }
}
