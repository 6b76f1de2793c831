/**
 * The MAIN world's table of site routes (core/wire/site-routes.ts): linked in place of
 * core/wire/site-route-table.ts when the page script is built (vite.config.ts), so the
 * page's code carries no per-site URL. The routes arrive as data from the ISOLATED bridge
 * over the private channel, as its first message (`site-routes`), and are compiled here
 * with the RegExp captured at document_start.
 *
 * Until they arrive, `siteRoute` throws: a hook deciding then fails closed (its decision
 * threw), never passes a response raw. The fetch hook, the send hook and the chat-request
 * verdict wait for `siteRoutesReady()` first (main-world.ts), so in practice only a
 * synchronous decision in the page's first moments (a synchronous XMLHttpRequest) can
 * meet the table empty. If the channel never opens (no bridge), the table is settled as
 * empty routes that match nothing: nothing could be guarded anyway, and the page's other
 * traffic is not held forever.
 *
 * No extension APIs here.
 */
import { create, NativePromise, NativeTypeError } from './intrinsics.ts';

const NativeRegExp = RegExp;

/** Compiled routes by name, on a prototype-less table; `null` once settled without a bridge. */
let table: Record<string, RegExp> | null | undefined;
let settle!: () => void;
const ready = new NativePromise<void>((resolve) => {
  settle = resolve;
});

/** Matches nothing. */
const NEVER = /(?!)/;

/** The compiled route `name`; throws while the routes have not arrived (fail closed). */
export function siteRoute(name: string): RegExp {
  if (table === null) return NEVER;
  const route = table?.[name];
  if (route === undefined) throw new NativeTypeError('site route');
  return route;
}

/** True when the route `name` matches `text`; throws while the routes have not arrived. */
export const onRoute = (name: string, text: string): boolean => siteRoute(name).test(text);

/**
 * Installs the routes the bridge sent (once). A source that does not compile leaves the
 * table empty, so every decision that reads a route fails closed, and throws.
 */
export function installSiteRoutes(routes: Record<string, string>): void {
  if (table !== undefined) return;
  const compiled = create(null) as Record<string, RegExp>;
  table = create(null) as Record<string, RegExp>;
  settle();
  for (const name in routes) compiled[name] = new NativeRegExp(routes[name]!);
  table = compiled;
}

/** No bridge: every route matches nothing (see the file comment). */
export function settleWithoutRoutes(): void {
  if (table !== undefined) return;
  table = null;
  settle();
}

/** A promise to wait on while the routes have not arrived; undefined once they have. */
export function siteRoutesReady(): Promise<void> | undefined {
  return table === undefined ? ready : undefined;
}
