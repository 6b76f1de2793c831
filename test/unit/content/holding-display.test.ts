/**
 * The holding indicator's display timer: shown after ~500 ms of holding, hidden
 * as soon as nothing holds. It only shows or hides; it releases nothing.
 */
import { describe, expect, it } from 'vitest';
import { HOLDING_DISPLAY_DELAY_MS, HoldingDisplay } from '../../../src/content/holding-display.ts';

/** A manual clock: `advance` runs the timers that come due. */
function manualTimers() {
  let now = 0;
  let nextId = 0;
  const due = new Map<number, { at: number; run: () => void }>();
  return {
    timers: {
      set: (run: () => void, ms: number) => {
        due.set(++nextId, { at: now + ms, run });
        return nextId;
      },
      clear: (handle: unknown) => {
        due.delete(handle as number);
      },
    },
    advance(ms: number) {
      now += ms;
      for (const [id, timer] of [...due]) {
        if (timer.at <= now) {
          due.delete(id);
          timer.run();
        }
      }
    },
    get pending() {
      return due.size;
    },
  };
}

function setup() {
  const clock = manualTimers();
  const shown: boolean[] = [];
  const display = new HoldingDisplay(clock.timers, (v) => shown.push(v));
  return { clock, shown, display };
}

describe('HoldingDisplay', () => {
  it('waits ~500 ms before showing, then hides when the hold ends', () => {
    expect(HOLDING_DISPLAY_DELAY_MS).toBe(500);
    const { clock, shown, display } = setup();
    display.update('a', true);
    clock.advance(499);
    expect(shown).toEqual([]);
    clock.advance(1);
    expect(shown).toEqual([true]);
    expect(display.isVisible).toBe(true);
    display.update('a', false);
    expect(shown).toEqual([true, false]);
  });

  it('never shows for a hold shorter than the delay', () => {
    const { clock, shown, display } = setup();
    display.update('a', true);
    clock.advance(300);
    display.update('a', false);
    clock.advance(1_000);
    expect(shown).toEqual([]);
    expect(clock.pending).toBe(0);
  });

  it('stays while any stream holds; a stream end counts as not holding', () => {
    const { clock, shown, display } = setup();
    display.update('a', true);
    display.update('b', true);
    clock.advance(500);
    display.update('a', false);
    expect(display.isVisible).toBe(true);
    display.ended('b');
    expect(shown).toEqual([true, false]);
  });

  it('ignores repeated updates and unknown streams', () => {
    const { clock, shown, display } = setup();
    display.update('x', false);
    display.ended('y');
    display.update('a', true);
    display.update('a', true);
    expect(clock.pending).toBe(1);
    clock.advance(500);
    expect(shown).toEqual([true]);
  });
});
