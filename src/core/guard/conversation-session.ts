/**
 * Conversation-level state (seed 002 §9): a flag raised in one turn makes
 * later turns of the same conversation stricter, and expires after a number of
 * turns. Expiry counts turns, never time, so a verdict stays a function of the
 * text and the pack (DESIGN.md §3.4).
 */
export class ConversationSession {
  private turn = 0;
  /** flag → last turn (inclusive) in which it is active. */
  private readonly flags = new Map<string, number>();

  /** Turns completed so far. */
  get completedTurns(): number {
    return this.turn;
  }

  /** Flags active for the turn that starts now. */
  activeFlags(): ReadonlySet<string> {
    const active = new Set<string>();
    for (const [flag, last] of this.flags) if (last >= this.turn) active.add(flag);
    return active;
  }

  /**
   * Ends the current turn. `raised` maps each flag raised during it to the
   * number of following turns it stays active.
   */
  completeTurn(raised: ReadonlyMap<string, number>): void {
    for (const [flag, turns] of raised) {
      const last = this.turn + turns;
      this.flags.set(flag, Math.max(this.flags.get(flag) ?? -1, last));
    }
    this.turn++;
    for (const [flag, last] of this.flags) if (last < this.turn) this.flags.delete(flag);
  }
}
