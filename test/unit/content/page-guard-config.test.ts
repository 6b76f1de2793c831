/**
 * Config for new streams: none until the bridge's config arrives (streams wait
 * on `ready()`), then the background-compiled pack and the config's per-kind
 * policy; never unguarded: an unusable first config or no channel rejects.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { compiledRulesFor } from '../../../src/background/page-config.ts';
import { KeywordAutomaton } from '../../../src/core/guard/keyword-automaton.ts';
import { StreamGuard } from '../../../src/core/guard/stream-guard.ts';
import { outgoingScanOptions } from '../../../src/core/outgoing/outgoing-dlp.ts';
import { BUILTIN_PACK_NAMES } from '../../../src/core/rules/builtin-packs.ts';
import { createPageGuardConfig } from '../../../src/content/page-guard-config.ts';
import { dataDigest } from '../../../src/core/rules/data-digest.ts';
import type { PageBuiltTables, PageConfig } from '../../../src/protocol/settings-schema.ts';
import { githubPat } from '../cli/synthetic-secrets.ts';
import { sampleConfig } from '../page-channel/sample-page-config.ts';

type Setup = NonNullable<ReturnType<ReturnType<typeof createPageGuardConfig>['current']>>;

function guardText(setup: Setup, text: string) {
  const guard = new StreamGuard(setup.pack, setup.guard);
  const a = guard.push(text);
  const b = guard.end();
  return {
    out: a.emit + b.emit,
    blocked: b.blocked || a.blocked,
    events: [...a.events, ...b.events],
  };
}

/** A config as the background sends it: with the pack compiled there, its tables built. */
function withCompiled(config: PageConfig): PageConfig {
  return { ...config, compiled: compiledRulesFor(config) };
}

/**
 * The same as the background sends it when it could not build the tables: the
 * pack's JSON (what it answers without policies), and the page builds them itself.
 */
function withoutWarm(config: PageConfig): PageConfig {
  const compiled = compiledRulesFor({ ...config, incoming: undefined, outgoing: undefined });
  return { ...config, compiled };
}

/** `built` with the byte at `at` of its file changed, its digest kept. */
function flip(built: PageBuiltTables, at: number): PageBuiltTables {
  const bytes = new Uint8Array(Buffer.from(built.tables, 'base64'));
  bytes[at] = (bytes[at] as number) ^ 0x01;
  return { ...built, tables: Buffer.from(bytes).toString('base64') };
}

describe('createPageGuardConfig', () => {
  const answer = `token ${githubPat()} here`;

  it('has no setup before a config, and ready() waits for one', async () => {
    const config = createPageGuardConfig();
    expect(config.configured).toBe(false);
    expect(config.current()).toBeUndefined();
    let settled = false;
    const ready = config.ready().then((setup) => {
      settled = true;
      return setup;
    });
    await Promise.resolve();
    expect(settled).toBe(false);
    config.apply(withCompiled({ ...sampleConfig, packs: ['secrets'], disabledRules: [] }));
    const setup = await ready;
    expect(config.configured).toBe(true);
    expect(setup).toBe(config.current());
    expect(setup.pack.options.allowedImageHosts).toEqual(sampleConfig.allowedImageHosts);
    expect(setup.labels.rules.rules.length).toBeGreaterThan(0);
  });

  it('loads the label rules when first read; rules that do not load fail that read only', async () => {
    const good = withCompiled(sampleConfig);
    const compiled = good.compiled!;
    const config = createPageGuardConfig();
    config.apply({
      ...good,
      compiled: { ...compiled, labels: { ...compiled.labels, rules: {} as never } },
    });
    const setup = await config.ready();
    // Answers are guarded as ever; a send that projects history reads the rules and fails closed.
    const guarded = guardText(setup, answer);
    expect(guarded.events.map((e) => e.rule)).toContain('github-pat');
    expect(guarded.out).not.toContain(answer.split(' ')[1]);
    expect(() => setup.labels.rules).toThrow();
    expect(() => setup.labels.rules).toThrow();
    expect(setup.labels.name).toBe(compiled.labels.name);
  });

  it('applies the compiled pack and per-kind incoming policy to streams started afterwards', () => {
    const config = createPageGuardConfig();
    config.apply(
      withCompiled({ ...sampleConfig, incoming: { ...sampleConfig.incoming, secret: 'redact' } }),
    );
    const before = config.current() as Setup;
    const redacted = guardText(before, answer);
    expect(redacted.out).not.toContain(githubPat());
    expect(redacted.events[0]).toMatchObject({
      type: 'match',
      kind: 'secret',
      matched: githubPat(),
    });
    config.apply(withCompiled({ ...sampleConfig, packs: ['secrets'], disabledRules: [] }));
    const after = config.current() as Setup;
    expect(after.guard.policy?.secret).toBe('block');
    const blocked = guardText(after, answer);
    expect(blocked.blocked).toBe(true);
    expect(blocked.out).toBe('token ');
    // A stream that started before keeps what it started with.
    expect(guardText(before, answer).blocked).toBe(false);
  });

  it('a custom pack that cannot compile still gets the built-in packs (background fallback)', () => {
    const config = createPageGuardConfig();
    config.apply(withCompiled({ ...sampleConfig, customPacks: [{ name: 'broken' }] }));
    const setup = config.current() as Setup;
    expect(guardText(setup, answer).out).not.toContain(githubPat());
  });

  it('fails closed when the first config has no usable compiled pack', async () => {
    const missing = createPageGuardConfig();
    missing.apply(sampleConfig);
    await expect(missing.ready()).rejects.toThrow(/compiled pack/);
    const corrupt = createPageGuardConfig();
    const good = withoutWarm(sampleConfig);
    corrupt.apply({
      ...good,
      compiled: { ...good.compiled!, pack: { ...good.compiled!.pack, rules: [{}] } },
    } as PageConfig);
    await expect(corrupt.ready()).rejects.toThrow();
    expect(corrupt.current()).toBeUndefined();
    // Neither the pack's JSON nor built tables.
    const empty = createPageGuardConfig();
    const { built: _built, ...labelsOnly } = withCompiled(sampleConfig).compiled!;
    empty.apply({ ...sampleConfig, compiled: labelsOnly });
    await expect(empty.ready()).rejects.toThrow();
  });

  it('keeps the setup in effect when a later config is unusable', () => {
    const config = createPageGuardConfig();
    config.apply(withCompiled(sampleConfig));
    const first = config.current();
    config.apply(sampleConfig);
    expect(config.current()).toBe(first);
  });

  it('fails closed when the channel never opens', async () => {
    const config = createPageGuardConfig();
    config.fail('no bridge');
    await expect(config.ready()).rejects.toThrow(/no bridge/);
  });
});

describe('applyInSteps', () => {
  it('loads the same setup as apply, pausing between steps; streams wait for it', async () => {
    const stepped = createPageGuardConfig();
    let pauses = 0;
    const ready = stepped.ready();
    const applying = stepped.applyInSteps(withCompiled(sampleConfig), () => {
      pauses++;
      return Promise.resolve();
    });
    expect(stepped.current()).toBeUndefined();
    await applying;
    const setup = await ready;
    expect(pauses).toBeGreaterThan(1);
    const direct = createPageGuardConfig();
    direct.apply(withCompiled(sampleConfig));
    expect(setup.pack.rules.map((r) => r.spec.id)).toEqual(
      direct.current()?.pack.rules.map((r) => r.spec.id),
    );
    expect(setup.guard).toEqual(direct.current()?.guard);
  });

  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('warms the pack for answers and for sends: neither first guard builds an automaton', async () => {
    const stepped = createPageGuardConfig();
    // Every built-in pack: sampleConfig's outgoing policy then splits the rules into
    // other changing and flagging sets than its incoming policy does.
    const config = withoutWarm({ ...sampleConfig, packs: [...BUILTIN_PACK_NAMES] });
    await stepped.applyInSteps(config, () => undefined);
    const setup = stepped.current();
    if (setup === undefined) throw new Error('no setup');
    const builds = vi.spyOn(KeywordAutomaton, 'steps');
    new StreamGuard(setup.pack, setup.guard).push('');
    new StreamGuard(setup.pack, outgoingScanOptions(config.outgoing)).push('');
    expect(builds).not.toHaveBeenCalled();
    // The spy does see the build of a pack nobody warmed (loaded by `apply`).
    const cold = createPageGuardConfig();
    cold.apply(config);
    const coldSetup = cold.current();
    if (coldSetup === undefined) throw new Error('no setup');
    new StreamGuard(coldSetup.pack, coldSetup.guard).push('');
    expect(builds).toHaveBeenCalled();
  });

  it('with built tables from the background, builds no automaton and is ready for all at once', async () => {
    const stepped = createPageGuardConfig();
    const config = withCompiled({ ...sampleConfig, packs: [...BUILTIN_PACK_NAMES] });
    expect(config.compiled?.built).toBeDefined();
    expect(config.compiled?.pack).toBeUndefined();
    const builds = vi.spyOn(KeywordAutomaton, 'steps');
    let pauses = 0;
    await stepped.applyInSteps(config, () => {
      pauses++;
      return undefined;
    });
    const setup = stepped.current();
    if (setup === undefined) throw new Error('no setup');
    expect(stepped.currentForRequests()).toBe(setup);
    expect(stepped.loadedForRequests()).toBe(setup);
    new StreamGuard(setup.pack, setup.guard).push('');
    new StreamGuard(setup.pack, outgoingScanOptions(config.outgoing)).push('');
    expect(builds).not.toHaveBeenCalled();
    expect(pauses).toBeGreaterThan(1);
    const secret = githubPat();
    const guarded = guardText(setup, `token ${secret} here`);
    expect(guarded.out).not.toContain(secret.slice(4));
    expect(guarded.events.some((e) => 'rule' in e && e.rule === 'github-pat')).toBe(true);
  });

  /** `good` with its built tables replaced by `spoil`'s. */
  function withBuilt(good: PageConfig, built: unknown): PageConfig {
    return { ...good, compiled: { ...good.compiled!, built } } as unknown as PageConfig;
  }

  /** The base64 of `bytes` (as page-config.ts sends them). */
  const base64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');
  const bytesOf = (built: PageBuiltTables) => new Uint8Array(Buffer.from(built.tables, 'base64'));

  it.each([
    // One changed byte anywhere: the head, a table, the rules' data at the end.
    ['a byte of the head changed', (b: PageBuiltTables) => flip(b, 20)],
    ['a byte of a table changed', (b: PageBuiltTables) => flip(b, bytesOf(b).length >> 1)],
    ['the last byte changed', (b: PageBuiltTables) => flip(b, bytesOf(b).length - 1)],
    ['truncated', (b: PageBuiltTables) => ({ ...b, tables: base64(bytesOf(b).subarray(0, 999)) })],
    ['not base64', (b: PageBuiltTables) => ({ ...b, tables: `${b.tables}%` })],
    ['without a digest', (b: PageBuiltTables) => ({ tables: b.tables })],
    ['a string', (b: PageBuiltTables) => b.tables],
  ])('fails closed on built tables with %s, for answers and requests', async (_n, spoil) => {
    const good = withCompiled(sampleConfig);
    const bad = withBuilt(good, spoil(good.compiled!.built!));
    const stepped = createPageGuardConfig();
    await stepped.applyInSteps(bad, () => undefined);
    await expect(stepped.ready()).rejects.toThrow(/built tables/);
    await expect(stepped.readyForRequests()).rejects.toThrow(/built tables/);
    await expect(stepped.readyLoadedForRequests()).rejects.toThrow(/built tables/);
    expect(stepped.current()).toBeUndefined();
    const direct = createPageGuardConfig();
    direct.apply(bad);
    await expect(direct.ready()).rejects.toThrow(/built tables/);
  });

  it('fails closed on a changed byte whose digest was sent along: the layout is checked', async () => {
    const good = withCompiled(sampleConfig);
    const bytes = bytesOf(good.compiled!.built!);
    bytes[0] = 0x58; // the magic's first letter
    const bad = withBuilt(good, { tables: base64(bytes), digest: dataDigest(bytes) });
    const direct = createPageGuardConfig();
    direct.apply(bad);
    await expect(direct.ready()).rejects.toThrow(/not built tables/);
  });

  it('has a setup for requests once loaded, then for answers, then warm for requests', async () => {
    const stepped = createPageGuardConfig();
    const order: string[] = [];
    void stepped.readyLoadedForRequests().then((loaded) => {
      order.push('loaded');
      // Loaded, not warm yet: only a request without keywords may use it; streams wait.
      expect(stepped.currentForRequests()).toBeUndefined();
      expect(stepped.current()).toBeUndefined();
      expect(stepped.loadedForRequests()).toBe(loaded);
    });
    void stepped.ready().then(() => {
      order.push('answers');
      expect(stepped.currentForRequests()).toBeUndefined();
    });
    void stepped.readyForRequests().then(() => order.push('requests'));
    await stepped.applyInSteps(withoutWarm(sampleConfig), () => Promise.resolve());
    await Promise.resolve();
    expect(order).toEqual(['loaded', 'answers', 'requests']);
    expect(stepped.currentForRequests()).toBe(stepped.current());
    expect(stepped.loadedForRequests()).toBe(stepped.current());
  });

  it('has the loaded setup at once when the config is applied in one go', async () => {
    const direct = createPageGuardConfig();
    direct.apply(withCompiled(sampleConfig));
    expect(await direct.readyLoadedForRequests()).toBe(direct.current());
    expect(direct.loadedForRequests()).toBe(direct.current());
  });

  it('fails requests closed too when no config can come', async () => {
    const config = createPageGuardConfig();
    config.fail('no channel');
    await expect(config.readyForRequests()).rejects.toThrow(/no channel/);
    await expect(config.readyLoadedForRequests()).rejects.toThrow(/no channel/);
    await expect(config.ready()).rejects.toThrow(/no channel/);
    expect(config.currentForRequests()).toBeUndefined();
    expect(config.loadedForRequests()).toBeUndefined();
  });

  it('fails closed on an unusable pack, as apply does', async () => {
    const stepped = createPageGuardConfig();
    const ready = stepped.ready();
    await stepped.applyInSteps({ ...withCompiled(sampleConfig), compiled: undefined }, () =>
      Promise.resolve(),
    );
    await expect(ready).rejects.toThrow(/compiled pack/);
    await expect(stepped.readyForRequests()).rejects.toThrow(/compiled pack/);
    await expect(stepped.readyLoadedForRequests()).rejects.toThrow(/compiled pack/);
  });
});
