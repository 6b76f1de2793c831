/**
 * Issue 21 §1: the organisation's policy as the popup and options page see it.
 * Extension pages may read `storage.managed` themselves (pages never can), so
 * the UI parses it with the background's own parser instead of a new message
 * type; `storage.onChanged` for the managed area re-reads it live (Chrome
 * reloads policy while running; Firefox reads policies.json at start-up).
 */
import { useEffect, useState } from 'preact/hooks';
import browser from 'webextension-polyfill';
import { applyManagedPolicy } from '../background/apply-managed-policy.ts';
import {
  emptyManagedPolicy,
  parseManagedPolicy,
  type ParsedManagedPolicy,
} from '../background/managed-policy.ts';
import type { Settings } from '../protocol/settings-schema.ts';
import { locksOf, NO_LOCKS, type ManagedLocks } from './managed-locks.ts';

async function readManagedPolicy(): Promise<ParsedManagedPolicy> {
  try {
    return parseManagedPolicy(await browser.storage.managed.get(null));
  } catch {
    // Firefox rejects when no policy names the extension: no policy.
    return { policy: emptyManagedPolicy(), issues: [] };
  }
}

export interface ManagedView {
  locks: ManagedLocks;
  /**
   * The settings in force as the policy now stands. The background applies the
   * policy too; applying it again changes nothing, and covers the moment after a
   * policy change before the background has re-read it.
   */
  enforce(settings: Settings): Settings;
}

const NO_POLICY: ManagedView = { locks: NO_LOCKS, enforce: (settings) => settings };

/** The current policy's locks; `onChange` runs after a live policy change was read. */
export function useManagedPolicy(onChange?: () => void): ManagedView {
  const [view, setView] = useState<ManagedView>(NO_POLICY);
  useEffect(() => {
    let active = true;
    const load = (changed: boolean) => {
      void readManagedPolicy().then(({ policy, issues }) => {
        if (!active) return;
        setView({
          locks: locksOf(policy, issues),
          enforce: (settings) => applyManagedPolicy(settings, policy),
        });
        if (changed) onChange?.();
      });
    };
    const listener = (_changes: unknown, area: string) => {
      if (area === 'managed') load(true);
    };
    load(false);
    browser.storage.onChanged.addListener(listener);
    return () => {
      active = false;
      browser.storage.onChanged.removeListener(listener);
    };
    // Read once per page; later changes arrive through the listener.
  }, []);
  return view;
}
