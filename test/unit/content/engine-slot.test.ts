/**
 * The slot through which the guard engine finds the bridge's dock
 * (src/content/engine-slot.ts): offered once, never replaced.
 */
import { describe, expect, it } from 'vitest';
import {
  type DockEngine,
  offerEngineSlot,
  takeEngineSlot,
} from '../../../src/content/engine-slot.ts';

const dockA: DockEngine = () => undefined;
const dockB: DockEngine = () => () => undefined;

/** The slot's own property on `global` (the one property the offer adds). */
function slotDescriptor(global: object): PropertyDescriptor {
  const names = Object.getOwnPropertyNames(global);
  expect(names).toHaveLength(1);
  return Object.getOwnPropertyDescriptor(global, names[0]!)!;
}

describe('engine slot', () => {
  it('hands the engine the dock the bridge offered', () => {
    const global = {};
    expect(offerEngineSlot(global, dockA)).toBe(true);
    expect(takeEngineSlot(global)).toBe(dockA);
  });

  it('refuses a second offer and keeps the first', () => {
    const global = {};
    offerEngineSlot(global, dockA);
    expect(offerEngineSlot(global, dockB)).toBe(false);
    expect(takeEngineSlot(global)).toBe(dockA);
  });

  it('finds nothing where no bridge offered a dock', () => {
    expect(takeEngineSlot({})).toBeUndefined();
    expect(takeEngineSlot(Object.create(null) as object)).toBeUndefined();
  });

  it('is hidden, read-only and cannot be redefined or deleted', () => {
    const global: Record<string, unknown> = {};
    offerEngineSlot(global, dockA);
    const descriptor = slotDescriptor(global);
    expect(descriptor).toMatchObject({
      value: dockA,
      writable: false,
      enumerable: false,
      configurable: false,
    });
    expect(Object.keys(global)).toEqual([]);

    const name = Object.getOwnPropertyNames(global)[0]!;
    // Test files are ES modules, so strict mode: writing a read-only property throws.
    expect(() => {
      global[name] = dockB;
    }).toThrow(TypeError);
    expect(() => delete global[name]).toThrow(TypeError);
    expect(() => Object.defineProperty(global, name, { value: dockB })).toThrow(TypeError);
    expect(takeEngineSlot(global)).toBe(dockA);
  });

  it('ignores a slot that does not hold a function', () => {
    const global = {};
    offerEngineSlot(global, dockA);
    const name = Object.getOwnPropertyNames(global)[0]!;
    const other = { [name]: 'not a dock' };
    expect(takeEngineSlot(other)).toBeUndefined();
  });
});
