/**
 * The `tag-smuggling` validator for runs of Unicode tag characters
 * (U+E0000–U+E007F, invisible; used to smuggle instructions and data).
 *
 * One legitimate use exists: the RGI subdivision flags (England, Scotland,
 * Wales) are U+1F3F4 WAVING BLACK FLAG, a tag spelling of the subdivision and
 * U+E007F CANCEL TAG (UTS #51 §2.8). The streaming matcher has no look-behind
 * and tries every start of a run, so the exception is made on the candidate:
 * a run that is a suffix of one of those three tag spellings is kept (it can
 * only spell that flag), anything longer or different is smuggling.
 */
const TAG_BASE = 0xe0000;

/** The tag spellings of the RGI subdivision flags, ending in CANCEL TAG. */
const RGI_SUBDIVISION_TAILS: readonly string[] = ['gbeng', 'gbsct', 'gbwls'].map(
  (code) =>
    [...code].map((c) => String.fromCodePoint(TAG_BASE + c.charCodeAt(0))).join('') +
    String.fromCodePoint(0xe007f),
);

/** True (strip it) unless the run is part of an RGI subdivision flag's tag spelling. */
export function tagRunIsSmuggling(text: string): boolean {
  if (text.length === 0) return false;
  return !RGI_SUBDIVISION_TAILS.some((tail) => tail.endsWith(text));
}
