/**
 * The `email` validator: an address that names a person, not a documentation
 * placeholder or a role mailbox.
 *
 * Rejected: the reserved example and test domains (RFC 2606, RFC 6761:
 * `example.com|net|org`, `*.example`, `*.test`, `*.invalid`, `*.localhost`,
 * `*.local`), GitHub's no-reply commit addresses, and role mailboxes
 * (`security@`, `support@`, `noreply@`, … — RFC 2142 names and their common
 * kin), which a project publishes on purpose and which identify nobody, and
 * image names such as `icon@2x.png`.
 */
const RESERVED_DOMAIN =
  /(?:^|\.)(?:example\.(?:com|net|org)|example|test|invalid|localhost|local)$/;
const NO_REPLY_DOMAIN = /(?:^|\.)users\.noreply\.github\.com$/;
/**
 * File extensions that are no top-level domain: `icon@2x.png`, `logo@3x.webp`
 * are retina image names. (Extensions that are also ccTLDs, `.md`, `.sh`, stay.)
 * Also the suffixes that mark a file or a setting as switched off or kept
 * aside (`…@vendor.com.disabled`, an add-on id in a preference name;
 * `.bak`, `.orig`): none is a delegated TLD.
 */
const FILE_EXTENSION_TLD =
  /\.(?:png|jpe?g|gif|svg|webp|avif|ico|bmp|tiff?|js|mjs|cjs|jsx|tsx?|css|scss|less|json|txt|html?|xml|ya?ml|toml|lock|log|map|wasm|disabled|enabled|bak|orig|old|tmp)$/;

// RFC 2142 mailbox names plus the role addresses projects commonly publish.
// prettier-ignore
const ROLE_LOCAL_PARTS: ReadonlySet<string> = new Set([
  'abuse', 'admin', 'administrator', 'billing', 'careers', 'contact', 'dev', 'devnull',
  'feedback', 'ftp', 'git', 'hello', 'help', 'hostmaster', 'info', 'jobs', 'legal',
  'mail', 'mailer-daemon', 'marketing', 'news', 'newsletter', 'no-reply', 'noc',
  'noreply', 'office', 'postmaster', 'press', 'privacy', 'root', 'sales', 'security',
  'service', 'support', 'team', 'usenet', 'uucp', 'webmaster', 'www',
]);

/** Local parts that stand for "somebody" in examples and URL userinfo (`user:password@host`). */
const PLACEHOLDER_LOCAL_PART =
  /^(?:user(?:name)?|pass(?:word|wd)?|pwd|secret|x{2,}|your[._-]?[a-z_]*|test(?:user)?|foo|bar|baz|name|someone|somebody|me|abc)$/i;

export function emailIsPersonal(text: string): boolean {
  const at = text.lastIndexOf('@');
  if (at <= 0) return false;
  const local = text.slice(0, at).toLowerCase();
  const domain = text.slice(at + 1).toLowerCase();
  if (RESERVED_DOMAIN.test(domain) || NO_REPLY_DOMAIN.test(domain)) return false;
  if (FILE_EXTENSION_TLD.test(domain)) return false;
  // `security+reports@` and `support.team@` are still role mailboxes.
  const base = local.split(/[+.]/)[0] ?? local;
  if (PLACEHOLDER_LOCAL_PART.test(local)) return false;
  return !ROLE_LOCAL_PARTS.has(local) && !ROLE_LOCAL_PARTS.has(base);
}
