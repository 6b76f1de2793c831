/**
 * The MAIN world's table of site routes (core/wire/site-routes.ts): linked in place of
 * core/wire/site-route-table.ts when the page script is built (vite.config.ts), so the
 * page's code carries no per-site URL. The routes arrive as data from the ISOLATED bridge
 * over the private channel, as its first message (`site-routes`), and are compiled here
 * with the RegExp captured at document_start.
 *
 * Until they arrive, `siteRoute` throws: a hook deciding then fails closed (its decision
 * threw), never passes a response raw. The fetch hook, the send hooks and the chat-request
 * verdict wait for `siteRoutesReady()` first (main-world.ts); a synchronous XMLHttpRequest
 * cannot wait and is decided without the routes (`decideNow`). If the channel never opens (no bridge), the table is settled as
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

/** True while `decideNow` runs a decision without the routes. */
let withoutRoutes = false;

/** The compiled route `name`; throws while the routes have not arrived (fail closed). */
export function siteRoute(name: string): RegExp {
  if (table === null || (table === undefined && withoutRoutes)) return NEVER;
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

/**
 * Runs a decision that cannot wait (a synchronous XMLHttpRequest: the page reads its
 * answer as `send()` returns) with what is at hand: while the routes have not arrived,
 * no route matches, and the recognisers that read a body's shape still decide. Failing
 * it closed instead would refuse every synchronous request a page script makes before
 * the bridge's first message is delivered (an inline script in the head does).
 */
export function decideNow<T>(decide: () => T): T {
  withoutRoutes = true;
  try {
    return decide();
  } finally {
    withoutRoutes = false;
  }
}

/** A promise to wait on while the routes have not arrived; undefined once they have. */
export function siteRoutesReady(): Promise<void> | undefined {
  return table === undefined ? ready : undefined;
}
