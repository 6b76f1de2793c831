/**
 * The known chat sites whose sends are integrity-bound (WIRE-FORMATS-2.md
 * §0.2: Z.ai's `x-signature` is an HMAC over the person's text, §3.5), by
 * host, with the request format that is. The popup tells the person there
 * that DLP on send asks instead of redacting (ui/popup/signed-sends-note.tsx);
 * the request recognisers carry the flag itself (`integrityBound`).
 */
export const INTEGRITY_BOUND_SITES: Readonly<Record<string, string>> = Object.freeze({
  'chat.z.ai': 'zai',
});

/** The integrity-bound request format of a site's host, if it is one. */
export function integrityBoundFormatOf(host: string | undefined): string | undefined {
  if (host === undefined) return undefined;
  return Object.hasOwn(INTEGRITY_BOUND_SITES, host) ? INTEGRITY_BOUND_SITES[host] : undefined;
}
