/** The light roff strip benign_wild reads man pages through (scripts/eval/roff-text.ts). */
import { describe, expect, it } from 'vitest';
import { cutComment, expandEscapes, stripRoff } from '../../../scripts/eval/roff-text.ts';

describe('expandEscapes', () => {
  it('drops font, size, string and register escapes', () => {
    expect(expandEscapes('\\fBbold\\fR and \\f[I]italic\\f[] \\f(CWcode\\fP')).toBe(
      'bold and italic code',
    );
    expect(expandEscapes('\\s-1SMALL\\s0 \\s+2big\\s[0] \\*(lqq\\*(rq \\*[ver] \\n(.g')).toBe(
      'SMALL big q  ',
    );
  });

  it('prints special characters and escaped punctuation', () => {
    expect(expandEscapes('a\\-b \\(em c \\[aq]d\\[aq] \\e \\\\ x\\ y \\(co')).toBe(
      "a-b \u2014 c 'd' \\ \\ x y \u00a9",
    );
    expect(expandEscapes('\\[u00E9]t\\[u00E9]')).toBe('\u00e9t\u00e9');
    expect(expandEscapes('\\(zz')).toBe('');
  });

  it('drops zero-width escapes and motions with quoted arguments', () => {
    expect(expandEscapes("a\\&b\\c \\h'0.5i'c\\w'abc'd \\%word \\|e")).toBe('ab cd word e');
  });

  it('ends the line at a comment', () => {
    expect(expandEscapes('text \\" a comment')).toBe('text ');
  });
});

describe('stripRoff', () => {
  it('keeps the arguments of macros, drops comments and non-printing requests', () => {
    const page = [
      '.\\" Copyright line in a comment',
      '.TH LS 1 "2024" "GNU" "User Commands"',
      '.SH NAME',
      'ls \\- list directory contents',
      '.de XX',
      '.nr a 1',
      '.SH "SEE ALSO"',
      '.BR dir (1),',
      '.B \\-\\-all \\" inline comment',
      '.PP',
      "'br",
    ].join('\n');
    expect(stripRoff(page)).toBe(
      [
        'LS 1 2024 GNU User Commands',
        'NAME',
        'ls - list directory contents',
        'SEE ALSO',
        'dir(1),',
        '--all',
        '',
      ].join('\n'),
    );
  });

  it('keeps doubled quotes inside a quoted argument and leaves plain text alone', () => {
    expect(stripRoff('.I "say ""hi"""\nplain text, key=value')).toBe(
      'say "hi"\nplain text, key=value',
    );
  });
});

describe('cutComment', () => {
  it('cuts at an unescaped comment only', () => {
    expect(cutComment('a \\" b')).toBe('a ');
    expect(cutComment('a \\\\" b')).toBe('a \\\\" b');
    expect(cutComment('a \\# b')).toBe('a ');
  });
});
