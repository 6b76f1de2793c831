/**
 * Ids for streams and requests on the page channel: 128 random bits as hex,
 * unique in the page, meaningless outside it. `getRandomValues` is passed in so
 * the MAIN world can use the one it captured before any page script ran.
 */
export function randomId(getRandomValues: (bytes: Uint8Array) => Uint8Array): string {
  const bytes = getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}
