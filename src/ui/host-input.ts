/**
 * What a person types as a site or an image host ("Example.com",
 * "https://chat.example.com/c/123", "localhost:3000") turned into the host key
 * settings use: the lower-case host name, no scheme, path or port. Anything
 * that is not a plausible host name is refused (null), never guessed.
 */

const HOST_LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

export function normaliseHost(input: string): string | null {
  const trimmed = input.trim();
  if (trimmed === '' || /\s/.test(trimmed)) return null;
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(trimmed) ? trimmed : `http://${trimmed}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  if (url.username !== '' || url.password !== '') return null;
  const host = url.hostname.toLowerCase().replace(/\.$/, '');
  if (host.startsWith('[')) return host; // an IPv6 literal, already validated by URL
  const labels = host.split('.');
  return labels.every((label) => HOST_LABEL.test(label)) ? host : null;
}
