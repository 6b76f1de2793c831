/** UTF-8 byte length of `text[from, to)` without allocating (a lone surrogate counts 3, as U+FFFD). */
export function utf8Length(text: string, from = 0, to = text.length): number {
  let bytes = 0;
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < to) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        bytes += 4;
        i++;
      } else bytes += 3;
    } else bytes += 3;
  }
  return bytes;
}

/** The smallest code-unit offset whose prefix holds at least `bytes` UTF-8 bytes. */
export function unitOffsetAtBytes(text: string, bytes: number): number {
  let total = 0;
  let i = 0;
  while (i < text.length && total < bytes) {
    const c = text.charCodeAt(i);
    const d = text.charCodeAt(i + 1);
    if (c >= 0xd800 && c <= 0xdbff && d >= 0xdc00 && d <= 0xdfff) {
      total += 4;
      i += 2;
    } else {
      total += c < 0x80 ? 1 : c < 0x800 ? 2 : 3;
      i++;
    }
  }
  return i;
}
