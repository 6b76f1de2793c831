/**
 * The page's pack from the built tables the background sent (issue 19 §4,
 * docs/page-setup.md): decoded from base64, used only when the decoded bytes
 * have the digest the background computed for them (delivery intact), laid out
 * as decodeBuiltTables checks, then loaded with the tables' alphabet and caches
 * (built-tables.ts `loadBuiltTables`). Each rule's serialised data is decoded
 * and checked when the rule first runs, not here.
 *
 * What the digest guards: that the bytes are the ones the background built, not
 * that the background built them right (it is trusted to, as for the pack it
 * compiles). Anything that does not check throws BuiltTablesError, and the
 * page's setup is refused (page-guard-config.ts): it fails closed as a pack that
 * does not load.
 *
 * No extension APIs here.
 */
import { dataDigest } from '../core/rules/data-digest.ts';
import {
  BuiltTablesError,
  decodeBuiltTables,
  loadBuiltTablesSteps,
} from '../core/rules/built-tables.ts';
import { runToEnd } from '../core/guard/run-to-end.ts';
import type { Alphabet } from '../core/regex/alphabet.ts';
import type { CompileOptions, CompiledPack, CompiledRule } from '../core/rules/compiled-pack.ts';
import { base64ToBytes } from '../protocol/base64.ts';
import { hexOfDigest } from '../core/rules/sha256.ts';

/**
 * The tables' text (JSON header, rules' data) is ASCII: the browser's native decoder
 * reads its 175 KB head in well under a millisecond, where built-tables.ts's portable
 * `String.fromCharCode` loop took about 10 ms cold (Node, this machine).
 */
let decoder: TextDecoder | undefined;
const asciiText = (ascii: Uint8Array): string => (decoder ??= new TextDecoder()).decode(ascii);

/** What dataDigest returns: 32 bits as eight lower-case hex digits. */
const DIGEST = /^[0-9a-f]{8}$/;
/** What sha256.ts and WebCrypto's SHA-256 give: 64 lower-case hex digits. */
const SHA256 = /^[0-9a-f]{64}$/;

/** The fields of `built` (PageBuiltTables), their types checked; throws BuiltTablesError. */
function builtFields(built: unknown): { bytes: Uint8Array; digest?: string; sha256?: string } {
  if (typeof built !== 'object' || built === null) {
    throw new BuiltTablesError('built tables are not an object');
  }
  const { tables, digest, sha256 } = built as Record<string, unknown>;
  const fnv = typeof digest === 'string' && DIGEST.test(digest) ? digest : undefined;
  const sha = typeof sha256 === 'string' && SHA256.test(sha256) ? sha256 : undefined;
  if (typeof tables !== 'string' || (fnv === undefined && sha === undefined)) {
    throw new BuiltTablesError('built tables lack their bytes or digest');
  }
  let bytes: Uint8Array;
  try {
    bytes = base64ToBytes(tables);
  } catch {
    throw new BuiltTablesError('built tables are not base64');
  }
  return {
    bytes,
    ...(fnv === undefined ? {} : { digest: fnv }),
    ...(sha === undefined ? {} : { sha256: sha }),
  };
}

const NOT_AS_BUILT = 'built tables are not as the background built them';

/** The bytes of `built` (PageBuiltTables), their FNV-1a digest checked; throws BuiltTablesError. */
export function deliveredBuiltBytes(built: unknown): Uint8Array {
  return fnvChecked(builtFields(built));
}

function fnvChecked({ bytes, digest }: { bytes: Uint8Array; digest?: string }): Uint8Array {
  if (digest === undefined || dataDigest(bytes) !== digest)
    throw new BuiltTablesError(NOT_AS_BUILT);
  return bytes;
}

/** WebCrypto's digest, as the page's isolated world has it (none in an insecure context). */
export type Sha256Digest = (bytes: Uint8Array) => Promise<ArrayBuffer>;

/** The isolated world's own WebCrypto (page scripts cannot replace it), when this context has it. */
export function webCryptoSha256(): Sha256Digest | null {
  const subtle = globalThis.crypto?.subtle;
  if (subtle === undefined) return null;
  // The bytes are base64ToBytes's own buffer, never a SharedArrayBuffer.
  return (bytes) => subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>);
}

/**
 * `deliveredBuiltBytes` by the faster digest where it can be (issue 19 §4): when the
 * background sent the file's SHA-256 and this context has WebCrypto, the page compares
 * that (native: a median 2.4 ms of the main thread for the 1 MB file in Chromium, where
 * the cold FNV-1a loop took 5.0 ms), and the FNV-1a digest is not computed. Otherwise
 * (an insecure context has no WebCrypto), the FNV-1a check as before. Rejects with
 * BuiltTablesError as it throws.
 */
export async function deliveredBuiltBytesAsync(
  built: unknown,
  sha256: Sha256Digest | null = webCryptoSha256(),
): Promise<Uint8Array> {
  const fields = builtFields(built);
  if (fields.sha256 === undefined || sha256 === null) return fnvChecked(fields);
  let digest: string;
  try {
    digest = hexOfDigest(await sha256(fields.bytes));
  } catch {
    throw new BuiltTablesError('built tables could not be digested');
  }
  if (digest !== fields.sha256) throw new BuiltTablesError(NOT_AS_BUILT);
  return fields.bytes;
}

/**
 * The pack `built` holds, compiled with `options` (the page's allowedImageHosts, as
 * the background compiled it). Throws BuiltTablesError when anything does not check.
 */
export function loadDeliveredBuiltTables(built: unknown, options: CompileOptions): CompiledPack {
  return runToEnd(loadDeliveredBuiltTablesSteps(built, options));
}

/**
 * `loadDeliveredBuiltTables` in steps for the page's pacer (issue 19 §4): the bytes
 * and their digest, the layout, then the pack's load and each table's seeding
 * (built-tables.ts `loadBuiltTablesSteps`). As one step it was a guard long task
 * (36-69 ms in traced page loads, docs/page-setup.md "The guard long task").
 */
export function* loadDeliveredBuiltTablesSteps(
  built: unknown,
  options: CompileOptions,
): Generator<void, CompiledPack, void> {
  const bytes = deliveredBuiltBytes(built);
  yield;
  return yield* loadCheckedBuiltTablesSteps(bytes, options);
}

/**
 * The same from bytes whose digest was compared already (`deliveredBuiltBytesAsync`):
 * the layout, then the pack's load and each table's seeding.
 */
export function* loadCheckedBuiltTablesSteps(
  bytes: Uint8Array,
  options: CompileOptions,
): Generator<void, CompiledPack, void> {
  try {
    const tables = decodeBuiltTables(bytes, {
      digest: dataDigest,
      text: asciiText,
      // The caller (`deliveredBuiltBytes`, or `deliveredBuiltBytesAsync` by SHA-256) compared
      // a digest of every byte, the rules' data included.
      wholeFileChecked: true,
    });
    yield;
    return yield* loadBuiltTablesSteps(tables, options);
  } catch (error) {
    // A layout the decoder did not foresee (a header field of the wrong type) is refused too.
    if (error instanceof BuiltTablesError) throw error;
    throw new BuiltTablesError(error instanceof Error ? error.message : String(error));
  }
}

/**
 * Whether text of ASCII units alone can start `rule` (its start classes, or for a rule
 * whose starts wait, its trigger classes: start-deferral.ts). Unknown: true.
 */
export function startsOnAscii(rule: CompiledRule, alphabet: Alphabet): boolean {
  const starts = rule.deferral?.trigger ?? rule.startClasses;
  if (starts === null) return true;
  for (let unit = 0; unit < 0x80; unit++) {
    if (starts[alphabet.classOf[unit] as number] !== 0) return true;
  }
  return false;
}

/**
 * Decodes the data of each always-on rule that ASCII text can start
 * (load-compiled-pack.ts `ruleAutomaton`), one rule per step, for a caller that
 * paces them after setup (page-guard-config.ts): a loaded pack decoded these at
 * load, and left lazy they were decoded inside the first answer's first chunks
 * (the first token came later, issue 19 §4). A rule that only invisible or other
 * non-ASCII units start (tag characters, zero-width and bidi controls, variation
 * selectors: 4,929 of the built-in always-on rules' 13,409 states) is decoded by
 * the first stream that holds such a unit, as a keyword rule is by the first that
 * holds its keyword: most pages never see one. A rule that fails its check here is
 * left for the stream that first runs it, which then fails closed
 * (CompiledPackError, a guard failure).
 */
export function* decodeAlwaysOnSteps(pack: CompiledPack): Generator<void, void, void> {
  for (const rule of pack.rules) {
    if (rule.keyword || !startsOnAscii(rule, pack.alphabet)) continue;
    try {
      void rule.nfa;
    } catch {
      // Refused again, and failed closed, when a stream first runs the rule.
    }
    yield;
  }
}
