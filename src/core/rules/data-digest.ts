/**
 * A 32-bit FNV-1a digest of a data file's bytes, taken a little-endian word at
 * a time, with the length mixed in last (issue 19 §2). scripts/build-cli.js
 * records it for each data file it writes beside the `csg` bundle, and
 * builtin-pack.ts compares it on every run: a file edited or corrupted since
 * the build no longer matches and is checked in full.
 *
 * Why not SHA-256: importing node:crypto alone cost 3–12 ms of a ~200 ms start
 * here, more than this whole digest. The digest guards against accidents, not
 * against someone who means harm: whoever can rewrite the data beside the
 * bundle can rewrite the bundle's code as well. Each step is a bijection of the
 * running value for a given word and of the word for a given value, so a file
 * that differs from the built one in a single word (or only in length) never
 * matches; any other change matches by chance once in 2^32.
 */

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

export function dataDigest(bytes: Uint8Array): string {
  // A Uint32Array view needs 4-byte alignment; a pooled Buffer may lack it.
  const aligned = bytes.byteOffset % 4 === 0 ? bytes : bytes.slice();
  const wordCount = aligned.length >>> 2;
  const words = new Uint32Array(aligned.buffer, aligned.byteOffset, wordCount);
  let hash = FNV_OFFSET;
  for (let i = 0; i < wordCount; i++) hash = Math.imul(hash ^ (words[i] as number), FNV_PRIME);
  for (let i = wordCount * 4; i < aligned.length; i++) {
    hash = Math.imul(hash ^ (aligned[i] as number), FNV_PRIME);
  }
  hash = Math.imul(hash ^ aligned.length, FNV_PRIME);
  return (hash >>> 0).toString(16).padStart(8, '0');
}
