/**
 * The page's site-route table (src/page/page-site-routes.ts): the chat sites' routes
 * arrive as data from the bridge; until then a decision that reads one fails closed,
 * and the bridge's own table (core/wire/site-routes.ts) is what the page compiles.
 */
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { SITE_ROUTES } from '../../../src/core/wire/site-routes.ts';
import { siteRoute as coreRoute } from '../../../src/core/wire/site-route-table.ts';
import { parseBridgeMessage } from '../../../src/page/parse-bridge-message.ts';

type Table = typeof import('../../../src/page/page-site-routes.ts');
let table: Table;

beforeEach(async () => {
  vi.resetModules();
  table = await import('../../../src/page/page-site-routes.ts');
});

describe('page site routes', () => {
  it('throws while the routes have not arrived, and says what to wait for', () => {
    expect(() => table.onRoute('perplexity', 'https://example.test/x')).toThrow(TypeError);
    expect(table.siteRoutesReady()).toBeInstanceOf(Promise);
  });

  it('reads each route as the engine does once the bridge sent them', async () => {
    const waiting = table.siteRoutesReady();
    table.installSiteRoutes(SITE_ROUTES);
    await expect(waiting).resolves.toBeUndefined();
    expect(table.siteRoutesReady()).toBeUndefined();
    for (const name of Object.keys(SITE_ROUTES) as (keyof typeof SITE_ROUTES)[]) {
      expect(table.siteRoute(name).source).toBe(coreRoute(name).source);
    }
  });

  it('fails closed on a route the bridge did not send, or one that does not compile', () => {
    expect(() => table.installSiteRoutes({ zai: '(' })).toThrow(SyntaxError);
    expect(table.siteRoutesReady()).toBeUndefined();
    expect(() => table.onRoute('zai', 'https://chat.z.ai/api/v2/chat/completions')).toThrow();
    expect(() => table.onRoute('chatglm', '/chatglm/backend-api/assistant/stream')).toThrow();
  });

  it('keeps the first table the bridge sent', () => {
    table.installSiteRoutes({ zai: 'a' });
    table.installSiteRoutes({ zai: 'b' });
    expect(table.onRoute('zai', 'a')).toBe(true);
    expect(table.onRoute('zai', 'b')).toBe(false);
  });

  it('decides now without the routes only inside `decideNow` (a synchronous XHR)', () => {
    const url = '/rest/sse/perplexity_ask';
    expect(table.decideNow(() => table.onRoute('perplexity', url))).toBe(false);
    expect(() => table.onRoute('perplexity', url)).toThrow(TypeError);
    table.installSiteRoutes(SITE_ROUTES);
    expect(table.decideNow(() => table.onRoute('perplexity', url))).toBe(true);
  });

  it('without a bridge, matches nothing and holds nothing back', () => {
    table.settleWithoutRoutes();
    expect(table.siteRoutesReady()).toBeUndefined();
    expect(table.onRoute('perplexity', '/rest/sse/perplexity_ask')).toBe(false);
  });
});

describe('the site-routes message', () => {
  it('is taken as a table of strings', () => {
    expect(parseBridgeMessage({ v: 1, type: 'site-routes', routes: SITE_ROUTES })).toEqual({
      v: 1,
      type: 'site-routes',
      routes: SITE_ROUTES,
    });
  });

  it.each([
    { routes: undefined },
    { routes: ['a'] },
    { routes: { zai: 1 } },
    { routes: { zai: 'a', chatglm: null } },
  ])('is dropped when its routes are not strings by name: $routes', ({ routes }) => {
    expect(parseBridgeMessage({ v: 1, type: 'site-routes', routes })).toBeUndefined();
  });
});
