/**
 * When to show the "holding…" indicator: once some stream of this page has been
 * holding text for `delayMs` (~500 ms, issue 4), until no stream holds any more.
 * This is a display timer only. It never releases text: held text is released
 * by the guard when the text decides it, never by time (DESIGN.md §3.4).
 */

export interface DisplayTimers {
  set(callback: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

export const HOLDING_DISPLAY_DELAY_MS = 500;

/** More holding streams than this are not tracked (a page cannot grow the set unboundedly). */
const MAX_TRACKED = 256;

export class HoldingDisplay {
  private readonly holding = new Set<string>();
  private timer: unknown;
  private timerSet = false;
  private visible = false;

  constructor(
    private readonly timers: DisplayTimers,
    private readonly show: (visible: boolean) => void,
    private readonly delayMs: number = HOLDING_DISPLAY_DELAY_MS,
  ) {}

  get isVisible(): boolean {
    return this.visible;
  }

  /** A stream started or stopped holding. */
  update(streamId: string, holding: boolean): void {
    if (holding) {
      if (this.holding.size >= MAX_TRACKED && !this.holding.has(streamId)) return;
      this.holding.add(streamId);
    } else {
      this.holding.delete(streamId);
    }
    this.settle();
  }

  /** A stream ended: it holds nothing any more. */
  ended(streamId: string): void {
    this.update(streamId, false);
  }

  private settle(): void {
    if (this.holding.size === 0) {
      this.cancelTimer();
      this.setVisible(false);
      return;
    }
    if (this.visible || this.timerSet) return;
    this.timerSet = true;
    this.timer = this.timers.set(() => {
      this.timerSet = false;
      if (this.holding.size > 0) this.setVisible(true);
    }, this.delayMs);
  }

  private cancelTimer(): void {
    if (!this.timerSet) return;
    this.timers.clear(this.timer);
    this.timerSet = false;
  }

  private setVisible(visible: boolean): void {
    if (visible === this.visible) return;
    this.visible = visible;
    this.show(visible);
  }
}
