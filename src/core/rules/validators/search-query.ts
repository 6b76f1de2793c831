/**
 * Is a (decoded) query value a search in qualifier syntax? Code hosts, mail
 * clients and web search engines take queries such as
 * `is:pr is:merged label:"needs review" -label:wontfix in:title drop feature`
 * (GitHub's and GitLab's search syntax, Gmail's `from:`/`label:` operators,
 * web search's `site:`), and READMEs link to such searches ("all merged pull
 * requests with this label"). A person composes them for a search page; they
 * are not data an injected instruction appends to a URL (issue 6, exfil).
 *
 * The shape is narrow on purpose, so that what it lets through can hardly
 * carry a secret or personal data:
 * - at least one `name:value` qualifier (`is:pr`, `-label:meta`,
 *   `label:"help wanted"`, `repo:owner/name`), the marker of a search;
 * - every other term a plain word of letters (up to 20) or a quoted phrase of
 *   plain words (a colon allowed: `label:"pkg: generator"`);
 * - no digit anywhere (numbers are the usual data: codes, keys, phone
 *   numbers, amounts), except a number of one or two digits standing alone
 *   between separators in a qualifier value (`branch:core-8-6-branch`,
 *   `sort:reactions-+1-desc`), or at the end of a user name in a qualifier
 *   that names a person (`reviewed-by:marcosvega91`); at most 16 terms, no
 *   other punctuation.
 * Prose with an encoded space and no qualifier (`q=previous+message`), a
 * number, a key or serialised data stay data (`url-carries-data.ts`). The
 * limit is stated, not hidden: a qualifier followed by plain words without
 * digits passes, as any search link does.
 */
const QUALIFIER_NAME = String.raw`-?[a-z][a-z_-]{0,23}`;
const PHRASE = String.raw`"[A-Za-z][A-Za-z ._:-]{0,38}"`;
const QUALIFIER_VALUE = String.raw`(?:${PHRASE}|[A-Za-z][A-Za-z0-9._/+-]{0,39})`;
const QUALIFIER = new RegExp(String.raw`^${QUALIFIER_NAME}:${QUALIFIER_VALUE}$`);
const FREE_TERM = new RegExp(String.raw`^(?:-?[A-Za-z]{1,20}|${PHRASE})$`);
/**
 * A term: a qualifier with a quoted value, a quoted phrase, or a run of
 * non-space (an unclosed quote lands there and fails both term shapes).
 */
const TERM = /-?[a-z][a-z_-]*:"[^"]*"|"[^"]*"|\S+/g;
const MAX_TERMS = 16;

/**
 * Digits in a qualifier value only as small numbers of their own between
 * separators (`branch:core-8-6-branch`, `sort:reactions-+1-desc`), never inside
 * a word (`author:hunter2`) or as a long number.
 */
function digitsAreSmallParts(term: string): boolean {
  return term.split(/[-._/+:"]+/).every((part) => !/[0-9]/.test(part) || /^[0-9]{1,2}$/.test(part));
}

/**
 * Qualifiers that name a person (`author:`, `reviewed-by:`, `assignee:`,
 * `involves:`, `user:`, `org:`), whose value is a user name as people pick
 * them: letters with one number of up to four digits at the start or the end
 * (`reviewed-by:marcosvega91`, `author:0xflotus`), not scattered digits.
 */
const USER_QUALIFIER =
  /^-?(?:author|commenter|reviewed-by|review-requested|assignee|involves|mentions|user|org|owner|from|to):[0-9]{0,4}[A-Za-z][A-Za-z-]*[0-9]{0,4}$/;

export function isSearchQuery(decoded: string): boolean {
  const terms = decoded.match(TERM) ?? [];
  if (terms.length === 0 || terms.length > MAX_TERMS) return false;
  let qualifiers = 0;
  for (const term of terms) {
    if (QUALIFIER.test(term) && (digitsAreSmallParts(term) || USER_QUALIFIER.test(term)))
      qualifiers++;
    else if (/[0-9]/.test(term) || !FREE_TERM.test(term)) return false;
  }
  return qualifiers > 0;
}
