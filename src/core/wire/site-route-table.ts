/**
 * The site routes (site-routes.ts) as compiled regular expressions, by name: how the
 * recognisers read a route. Everywhere but the MAIN-world page this is the table
 * compiled from the data at hand; the page's build links src/page/page-site-routes.ts
 * in its place (vite.config.ts), which holds the routes the bridge sent.
 */
import { SITE_ROUTES, type SiteRouteName } from './site-routes.ts';

const compiled: Partial<Record<SiteRouteName, RegExp>> = {};

/** The compiled route `name` (compiled on first use). */
export function siteRoute(name: SiteRouteName): RegExp {
  return (compiled[name] ??= new RegExp(SITE_ROUTES[name]));
}

/** True when the route `name` matches `text` (a URL, or a body's head). */
export const onRoute = (name: SiteRouteName, text: string): boolean => siteRoute(name).test(text);
