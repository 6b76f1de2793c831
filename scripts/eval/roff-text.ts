/**
 * Man pages as a person reads them, roughly (benign_wild, issue 17 §4): a light
 * roff strip, not a formatter. Comments go; a request or macro line keeps its
 * arguments (quotes removed; the alternating-font macros `.BR`, `.IR`, … join
 * them as man does); font, size, string, register and motion escapes go;
 * special characters (`\(em`, `\[aq]`, `\-`, `\e`, …) become the character
 * they print. Anything else after a backslash is kept as the character itself.
 */

const SPECIAL: Readonly<Record<string, string>> = {
  em: '\u2014',
  en: '\u2013',
  hy: '-',
  mi: '-',
  aq: "'",
  dq: '"',
  lq: '\u201c',
  rq: '\u201d',
  oq: '\u2018',
  cq: '\u2019',
  bu: '\u2022',
  co: '\u00a9',
  rg: '\u00ae',
  tm: '\u2122',
  ti: '~',
  ha: '^',
  ga: '`',
  aa: '\u00b4',
  pl: '+',
  fm: "'",
  sl: '/',
  rs: '\\',
  lB: '[',
  rB: ']',
  lC: '{',
  rC: '}',
  la: '\u27e8',
  ra: '\u27e9',
  or: '|',
  ba: '|',
  at: '@',
  sh: '#',
  Do: '$',
  ct: '\u00a2',
  de: '\u00b0',
  mu: '\u00d7',
  di: '\u00f7',
  '>=': '\u2265',
  '<=': '\u2264',
  '->': '\u2192',
  '<-': '\u2190',
};

/** Escapes that print nothing (zero-width breaks, spacing hints, the no-op `\&`). */
const SILENT = new Set(['&', 'c', ')', '/', ',', '%', ':', '|', '^', 'd', 'u', 'p', 'r', 't']);

/** Escapes that take a quoted argument and print nothing readable (motion, width, overstrike). */
const QUOTED_ARGUMENT = new Set([
  'h',
  'v',
  'w',
  'o',
  'X',
  'Z',
  'l',
  'L',
  'D',
  'b',
  'x',
  'R',
  'H',
  'S',
  'A',
  'B',
  'C',
  'N',
]);

/**
 * Requests that define, test or set things rather than print: their line is dropped
 * (a light pass does not evaluate conditions or expand macro definitions).
 */
const NON_PRINTING = new Set([
  'de',
  'de1',
  'am',
  'am1',
  'ds',
  'ds1',
  'as',
  'nr',
  'rr',
  'rm',
  'rn',
  'als',
  'if',
  'ie',
  'el',
  'while',
  'break',
  'continue',
  'return',
  'so',
  'mso',
  'ig',
  'tr',
  'ft',
  'fam',
  'fp',
  'ps',
  'vs',
  'ne',
  'in',
  'ti',
  'll',
  'lt',
  'na',
  'ad',
  'hy',
  'nh',
  'hw',
  'hc',
  'ta',
  'tc',
  'lc',
  'cc',
  'c2',
  'ec',
  'eo',
  'ev',
  'ss',
  'cs',
  'bd',
  'char',
  'fchar',
  'lf',
  'pso',
  'do',
  'cu',
  'ul',
  'uf',
  'pl',
  'po',
  'sp',
  'br',
  'bp',
  'fi',
  'nf',
  'ce',
  'rj',
  'wh',
  'ch',
  'it',
  'itc',
  'em',
  'nx',
  'rd',
  'ab',
  'tm',
  'tm1',
  'tmc',
  'pm',
  'pc',
  'mk',
  'rt',
  'ls',
  'cf',
  'trf',
  'sy',
  'pi',
  'open',
  'opena',
  'write',
  'close',
  'shift',
  'chop',
  'substring',
  'length',
  'index',
  'asciify',
  'unformat',
  'hla',
  'hlm',
  'hym',
  'hys',
  'kern',
  'lg',
  'linetabs',
  'mc',
  'nm',
  'nn',
  'os',
  'sv',
  'fl',
  'fc',
  'fspecial',
  'fschar',
  'fzoom',
  'ftr',
  'schar',
  'special',
  'sizes',
  'tkf',
  'vpt',
  'warn',
  'warnscale',
  'cp',
  'blm',
  'lsm',
  'device',
  'devicem',
  'nop',
  'TS',
  'TE',
  'T&',
  'EQ',
  'EN',
  'UC',
  'PD',
  'IX',
  'Dd',
  'Os',
]);

/** Alternating-font macros: their arguments are printed without spaces between them. */
const ALTERNATING = new Set(['BR', 'RB', 'BI', 'IB', 'IR', 'RI', 'SM', 'SB']);

/** The name of an escape's argument at `i`: `(xy`, `[name]` or one character. Returns [name, next index]. */
function escapeName(line: string, i: number): [string, number] {
  const c = line.charAt(i);
  if (c === '(') return [line.slice(i + 1, i + 3), i + 3];
  if (c === '[') {
    const close = line.indexOf(']', i + 1);
    return close < 0 ? [line.slice(i + 1), line.length] : [line.slice(i + 1, close), close + 1];
  }
  return [c, i + 1];
}

/** Expands the escapes of one line of text (no request handling). */
export function expandEscapes(line: string): string {
  let out = '';
  let i = 0;
  while (i < line.length) {
    const back = line.indexOf('\\', i);
    if (back < 0) {
      out += line.slice(i);
      break;
    }
    out += line.slice(i, back);
    const c = line.charAt(back + 1);
    i = back + 2;
    if (c === '') break;
    if (c === '"') break; // comment to the end of the line
    if (c === '#') break; // groff comment that also eats the newline
    if (c === '-' || c === '=') out += '-';
    else if (c === 'e' || c === '\\') out += '\\';
    else if (c === ' ' || c === '~' || c === '0') out += ' ';
    else if (c === "'") out += '\u00b4';
    else if (c === '`') out += '`';
    else if (c === '.') out += '.';
    else if (SILENT.has(c)) continue;
    else if (c === '(' || c === '[') {
      const [name, next] = escapeName(line, back + 1);
      out +=
        SPECIAL[name] ??
        (name.startsWith('u') && /^u[0-9A-F]{4,6}$/.test(name)
          ? String.fromCodePoint(Number.parseInt(name.slice(1), 16))
          : '');
      i = next;
    } else if (
      c === 'f' ||
      c === '*' ||
      c === 'n' ||
      c === 'F' ||
      c === 'm' ||
      c === 'M' ||
      c === 'g' ||
      c === 'Y' ||
      c === 'V'
    ) {
      let j = back + 2;
      if (c === 'n' && (line.charAt(j) === '+' || line.charAt(j) === '-')) j++;
      i = escapeName(line, j)[1];
    } else if (c === 's') {
      let j = back + 2;
      if (line.charAt(j) === '+' || line.charAt(j) === '-') j++;
      const d = line.charAt(j);
      if (d === '(') i = j + 3;
      else if (d === '[' || d === "'") {
        const close = line.indexOf(d === '[' ? ']' : "'", j + 1);
        i = close < 0 ? line.length : close + 1;
      } else i = /[0-9]/.test(d) ? j + 1 : j;
    } else if (c === 'k' || c === 'z') i = back + 3;
    else if (QUOTED_ARGUMENT.has(c)) {
      const delim = line.charAt(back + 2);
      const close = delim === '' ? -1 : line.indexOf(delim, back + 3);
      i = close < 0 ? line.length : close + 1;
    } else out += c;
  }
  return out;
}

/** The line up to an inline comment (`\\"` or `\\#` that is not itself escaped). */
export function cutComment(line: string): string {
  for (let i = line.indexOf('\\'); i >= 0 && i < line.length; i = line.indexOf('\\', i + 2)) {
    const next = line.charAt(i + 1);
    if (next === '"' || next === '#') return line.slice(0, i);
  }
  return line;
}

/** Splits a request's arguments like roff: spaces separate, double quotes group. */
function requestArguments(rest: string): string[] {
  const args: string[] = [];
  let i = 0;
  while (i < rest.length) {
    while (rest.charAt(i) === ' ' || rest.charAt(i) === '\t') i++;
    if (i >= rest.length) break;
    if (rest.charAt(i) === '"') {
      let arg = '';
      i++;
      while (i < rest.length) {
        if (rest.charAt(i) === '"') {
          if (rest.charAt(i + 1) === '"') {
            arg += '"';
            i += 2;
            continue;
          }
          i++;
          break;
        }
        arg += rest.charAt(i++);
      }
      args.push(arg);
    } else {
      let end = i;
      while (end < rest.length && rest.charAt(end) !== ' ' && rest.charAt(end) !== '\t') end++;
      args.push(rest.slice(i, end));
      i = end;
    }
  }
  return args;
}

/** A light roff-to-text pass over a whole man page (see the file comment). */
export function stripRoff(source: string): string {
  const out: string[] = [];
  for (const raw of source.split('\n')) {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    const request = /^[.'][ \t]*([^ \t]*)[ \t]*(.*)$/.exec(line);
    if (request === null) {
      out.push(expandEscapes(line));
      continue;
    }
    const name = request[1] ?? '';
    if (name.startsWith('\\"') || name.startsWith('\\#') || name === '') {
      if (name === '') out.push('');
      continue; // a comment line, or a lone dot
    }
    if (NON_PRINTING.has(name)) continue;
    // Cut an inline comment before splitting, so its words never become arguments.
    const args = requestArguments(cutComment(request[2] ?? '')).map(expandEscapes);
    out.push(ALTERNATING.has(name) ? args.join('') : args.join(' '));
  }
  return out.join('\n');
}
