/**
 * The hand-over between the two ISOLATED-world scripts (engine-dock.ts): the
 * bridge offers its dock on the isolated world's global object, and the guard
 * engine, which runs later in the same world, takes it.
 *
 * Content scripts of one extension share one isolated world per frame (Chromium)
 * or one sandbox per frame (Firefox), so a property of `globalThis` set by one is
 * seen by the other; page scripts and other extensions never see it. The property
 * is read-only and non-configurable, so a second offer cannot replace the first,
 * and the dock itself accepts only one engine.
 */
import type { DockedEngine, ToPage } from './engine-dock.ts';

/** Docks an engine; undefined when the dock refuses it (see EngineDock.dock). */
export type DockEngine = (engine: DockedEngine) => ToPage | undefined;

const SLOT = 'csgGuardEngineDock';

export function offerEngineSlot(global: object, dock: DockEngine): boolean {
  if (Object.prototype.hasOwnProperty.call(global, SLOT)) return false;
  Object.defineProperty(global, SLOT, {
    value: dock,
    writable: false,
    enumerable: false,
    configurable: false,
  });
  return true;
}

/** The bridge's dock, if the bridge ran in this frame. */
export function takeEngineSlot(global: object): DockEngine | undefined {
  const value: unknown = (global as Record<string, unknown>)[SLOT];
  return typeof value === 'function' ? (value as DockEngine) : undefined;
}
