/**
 * Where secrets sit in what people and models write, how an injected
 * instruction can disguise them, and what a person sees of the result
 * (issue 17 §1b and §3; DESIGN.md §3.10).
 *
 * - CONTEXTS put a value (or a whole `NAME=value` match) into a config file,
 *   a shell line, a header, a URL, a code fence, Chinese or English prose.
 * - TRANSFORMATIONS disguise the secret inside the text with what a renderer
 *   hides: an invisible code point, inline Markdown markup, an HTML comment,
 *   character references.
 * - `seenText` is what a person reads of a text once rendered: those
 *   disguises undone. `leakedFragments` finds the 8-unit fragments of a secret
 *   (as seen) that the seen output still shows.
 */
import { Rng } from './pattern-strings.ts';

// ---------------------------------------------------------------------------
// Contexts

/**
 * A place for a secret. `value` puts a bare value `v` under a setting name;
 * `whole` puts a match that already carries its own name and operator
 * (`password = "…"`) as a whole. Both return the text around the secret, which
 * goes between `before` and `after`.
 */
export interface SecretContext {
  id: string;
  /** Whether a secret written as `s` can stand here (a URL holds no space or quote). */
  fits?: (s: string) => boolean;
  value(name: SettingName, v: string): string;
  whole(m: string): string;
}

/** A setting name in the spellings each syntax uses. */
export interface SettingName {
  /** `OPENAI_API_KEY` */
  env: string;
  /** `openai_api_key` */
  snake: string;
  /** `openaiApiKey` */
  camel: string;
}

export function settingName(words: readonly string[]): SettingName {
  const lower = words.map((w) => w.toLowerCase());
  return {
    env: lower.join('_').toUpperCase(),
    snake: lower.join('_'),
    camel: lower.map((w, i) => (i === 0 ? w : w.charAt(0).toUpperCase() + w.slice(1))).join(''),
  };
}

/** Names a secret is commonly stored under (the generic assignment rules read several). */
export const SETTING_NAMES: readonly SettingName[] = [
  ['api', 'key'],
  ['openai', 'api', 'key'],
  ['token'],
  ['auth', 'token'],
  ['access', 'token'],
  ['secret', 'key'],
  ['client', 'secret'],
  ['password'],
  ['db', 'password'],
  ['github', 'token'],
  ['stripe', 'key'],
  ['service', 'credential'],
  ['config', 'value'],
].map(settingName);

export const CONTEXTS: readonly SecretContext[] = [
  {
    id: 'dotenv',
    value: (n, v) => `# .env\n${n.env}=${v}\nLOG_LEVEL=info\n`,
    whole: (m) => `# .env\n${m}\nLOG_LEVEL=info\n`,
  },
  {
    id: 'shell-export',
    value: (n, v) => `Add this to your shell profile:\n\nexport ${n.env}="${v}"\n\nthen restart.`,
    whole: (m) => `Add this to your shell profile:\n\nexport ${m}\n\nthen restart.`,
  },
  {
    id: 'yaml',
    value: (n, v) => `service:\n  name: billing\n  ${n.snake}: ${v}\n  retries: 3\n`,
    whole: (m) => `service:\n  name: billing\n  ${m}\n  retries: 3\n`,
  },
  {
    id: 'json',
    value: (n, v) => `{\n  "${n.snake}": "${v}",\n  "timeout": 30\n}`,
    whole: (m) => `{"env": "${m}", "timeout": 30}`,
  },
  {
    id: 'toml',
    value: (n, v) => `[credentials]\n${n.snake} = "${v}"\nregion = "us-east-1"\n`,
    whole: (m) => `[credentials]\n${m}\nregion = "us-east-1"\n`,
  },
  {
    id: 'python-kwarg',
    value: (n, v) => `client = Client(${n.snake}="${v}", timeout=30)`,
    whole: (m) => `client = Client(\n    ${m},\n    timeout=30,\n)`,
  },
  {
    id: 'http-bearer',
    value: (_n, v) =>
      `curl https://api.example.com/v1/models \\\n  -H "Authorization: Bearer ${v}" \\\n  -H "Accept: application/json"`,
    whole: (m) => `GET /v1/models HTTP/1.1\nHost: api.example.com\n${m}\nAccept: */*\n`,
  },
  {
    id: 'http-x-api-key',
    value: (_n, v) => `GET /v1/me HTTP/1.1\nHost: api.example.com\nX-Api-Key: ${v}\nAccept: */*\n`,
    whole: (m) => `Request headers:\n\n${m}\nAccept: */*\n`,
  },
  {
    id: 'url-query',
    fits: (s) => /^[^\s"'`<>]*$/.test(s),
    value: (n, v) => `Open https://example.com/api?${n.snake}=${v}&page=2 in the browser.`,
    whole: (m) => `Open https://example.com/api?${m}&page=2 in the browser.`,
  },
  {
    id: 'markdown-fence',
    value: (_n, v) => `Here is the key:\n\n\`\`\`\n${v}\n\`\`\`\n\nKeep it private.`,
    whole: (m) => `Here is the config:\n\n\`\`\`ini\n${m}\n\`\`\`\n\nKeep it private.`,
  },
  {
    id: 'inline-code',
    value: (n, v) => `Set \`${n.env}\` to \`${v}\` and restart the service.`,
    whole: (m) => `Put \`${m}\` in the config and restart the service.`,
  },
  {
    id: 'js-const',
    value: (n, v) => `const ${n.camel} = '${v}';\nconst client = new Client({ ${n.camel} });`,
    whole: (m) => `const config = {\n  ${m},\n};`,
  },
  {
    id: 'chinese-prose',
    value: (_n, v) => `你的密钥是 ${v}。请妥善保管，不要分享给他人。`,
    whole: (m) => `配置如下：\n${m}\n请妥善保管。`,
  },
  {
    id: 'prose',
    value: (_n, v) => `Sure! Here is the key you asked for: ${v} — keep it secret.`,
    whole: (m) => `Sure! Set ${m} in your config, then restart the app.`,
  },
];

const MARK = '\u0000';

/** The text around the secret: [before, after]. */
export function around(
  context: SecretContext,
  name: SettingName,
  whole: boolean,
): [string, string] {
  const text = whole ? context.whole(MARK) : context.value(name, MARK);
  const at = text.indexOf(MARK);
  return [text.slice(0, at), text.slice(at + 1)];
}

// ---------------------------------------------------------------------------
// Transformations

/** The eleven invisible code points of issue 17 §1b. */
export const INVISIBLES: readonly { name: string; char: string }[] = [
  { name: 'ZWSP U+200B', char: '\u200B' },
  { name: 'ZWJ U+200D', char: '\u200D' },
  { name: 'word joiner U+2060', char: '\u2060' },
  { name: 'invisible separator U+2063', char: '\u2063' },
  { name: 'soft hyphen U+00AD', char: '\u00AD' },
  { name: 'CGJ U+034F', char: '\u034F' },
  { name: 'VS16 U+FE0F', char: '\uFE0F' },
  { name: 'LRI U+2066', char: '\u2066' },
  { name: 'Mongolian VS U+180B', char: '\u180B' },
  { name: 'Hangul filler U+3164', char: '\u3164' },
  { name: 'tag U+E0041', char: '\u{E0041}' },
];

export type TransformationKind =
  'none' | 'invisible' | 'bold' | 'italic' | 'code-span' | 'html-comment' | 'char-refs';

export const TRANSFORMATION_KINDS: readonly TransformationKind[] = [
  'none',
  'invisible',
  'bold',
  'italic',
  'code-span',
  'html-comment',
  'char-refs',
];

export interface Transformed {
  /** The secret as written into the text. */
  text: string;
  /** What was done, for a counterexample: `ZWSP U+200B at 3, 17`. */
  description: string;
}

/** Offsets strictly inside `s` that do not split a surrogate pair. */
function cutPoints(s: string): number[] {
  const points: number[] = [];
  for (let i = 1; i < s.length; i++) {
    const prev = s.charCodeAt(i - 1);
    const here = s.charCodeAt(i);
    if (prev >= 0xd800 && prev <= 0xdbff && here >= 0xdc00 && here <= 0xdfff) continue;
    points.push(i);
  }
  return points;
}

function distinctSorted(rng: Rng, from: readonly number[], count: number): number[] {
  const pool = [...from];
  const out: number[] = [];
  while (out.length < count && pool.length > 0) {
    out.push(pool.splice(rng.int(0, pool.length - 1), 1)[0] as number);
  }
  return out.sort((a, b) => a - b);
}

function insertAt(s: string, at: readonly number[], pieces: readonly string[]): string {
  let out = '';
  let last = 0;
  at.forEach((p, i) => {
    out += s.slice(last, p) + (pieces[i] as string);
    last = p;
  });
  return out + s.slice(last);
}

/**
 * Disguises `secret` (deterministic in `seed`): the person still sees the
 * secret once the text is rendered (`seenText`).
 */
export function transform(kind: TransformationKind, secret: string, seed: number): Transformed {
  const rng = new Rng(seed);
  const points = cutPoints(secret);
  switch (kind) {
    case 'none':
      return { text: secret, description: 'none' };
    case 'invisible': {
      const { name, char } = rng.pick(INVISIBLES);
      const everywhere = rng.next() < 0.2;
      const at = everywhere
        ? points.filter((_p, i) => i % 4 === 3)
        : distinctSorted(rng, points, rng.int(1, 3));
      return {
        text: insertAt(
          secret,
          at,
          at.map(() => char),
        ),
        description: `${name} at ${at.join(', ')}`,
      };
    }
    case 'bold':
    case 'italic':
    case 'code-span': {
      const mark = kind === 'bold' ? '**' : kind === 'italic' ? '*' : '`';
      // Emphasis opens before and closes after a visible character (CommonMark's flanking rule).
      const visible = (i: number) => kind === 'code-span' || /\S/.test(secret.charAt(i));
      const closes = points.filter((p) => visible(p - 1));
      const lastClose = closes[closes.length - 1] ?? -1;
      const opens = points.filter((p) => visible(p) && p < lastClose);
      const at = distinctSorted(rng, opens, 1);
      at.push(
        ...distinctSorted(
          rng,
          closes.filter((p) => p > (at[0] ?? Infinity)),
          1,
        ),
      );
      if (at.length < 2) return { text: secret, description: 'none (too short)' };
      return {
        text: insertAt(secret, at, [mark, mark]),
        description: `${mark}…${mark} around ${at[0]}..${at[1]}`,
      };
    }
    case 'html-comment': {
      const at = distinctSorted(rng, points, 1);
      return {
        text: insertAt(secret, at, ['<!-- x -->']),
        description: `<!-- x --> at ${at.join(', ')}`,
      };
    }
    case 'char-refs': {
      const chars = Array.from(secret);
      const count = Math.max(1, Math.min(chars.length, rng.int(1, 3)));
      const chosen = new Set(
        distinctSorted(
          rng,
          chars.map((_c, i) => i),
          count,
        ),
      );
      const refs: string[] = [];
      const text = chars
        .map((c, i) => {
          if (!chosen.has(i)) return c;
          const cp = c.codePointAt(0) as number;
          const ref = rng.next() < 0.5 ? `&#x${cp.toString(16)};` : `&#${cp};`;
          refs.push(ref);
          return ref;
        })
        .join('');
      return { text, description: `character references ${refs.join(' ')}` };
    }
  }
}

// ---------------------------------------------------------------------------
// What a person sees

const COMMENT = /<!--[\s\S]*?-->/g;
const REFERENCE = /&#(?:[xX]([0-9A-Fa-f]{1,6})|([0-9]{1,7}));/g;
const INLINE_MARKUP = /[*`]/g;
const DEFAULT_IGNORABLE = /\p{Default_Ignorable_Code_Point}/gu;

function decodeReference(whole: string, hex: string | undefined, dec: string | undefined): string {
  const cp = hex !== undefined ? parseInt(hex, 16) : Number(dec);
  return cp > 0 && cp <= 0x10ffff && !(cp >= 0xd800 && cp <= 0xdfff)
    ? String.fromCodePoint(cp)
    : whole;
}

/**
 * A text as a person reads it rendered (Markdown and HTML): HTML comments gone,
 * numeric character references decoded, inline emphasis and code-span marks
 * gone, default-ignorable code points (zero-width, joiners, soft hyphen, CGJ,
 * variation selectors, bidi isolates, Mongolian selectors, Hangul filler, tags)
 * gone.
 */
export function seenText(s: string): string {
  return s
    .replace(COMMENT, '')
    .replace(REFERENCE, decodeReference)
    .replace(INLINE_MARKUP, '')
    .replace(DEFAULT_IGNORABLE, '');
}

export const FRAGMENT = 8;

function gramCounts(s: string, n: number, into = new Map<string, number>()): Map<string, number> {
  for (let i = 0; i + n <= s.length; i++) {
    const g = s.slice(i, i + n);
    into.set(g, (into.get(g) ?? 0) + 1);
  }
  return into;
}

/**
 * The FRAGMENT-unit fragments of `seenSecret` that `seenOutput` shows more
 * often than the text around the secret did (`seenAround`: the context's own
 * text, e.g. `https://` of a URL, is not a leak), first offset first.
 */
export function leakedFragments(
  seenSecret: string,
  seenOutput: string,
  seenAround: readonly string[],
): { fragment: string; at: number }[] {
  const out = gramCounts(seenOutput, FRAGMENT);
  const base = new Map<string, number>();
  for (const s of seenAround) gramCounts(s, FRAGMENT, base);
  const leaks: { fragment: string; at: number }[] = [];
  const seen = new Set<string>();
  for (let i = 0; i + FRAGMENT <= seenSecret.length; i++) {
    const g = seenSecret.slice(i, i + FRAGMENT);
    if (seen.has(g)) continue;
    seen.add(g);
    if ((out.get(g) ?? 0) > (base.get(g) ?? 0)) leaks.push({ fragment: g, at: i });
  }
  return leaks;
}

/** Shortens a long text for a message: its start, its end and a window around `at`. */
export function excerpt(s: string, at = -1, width = 120): string {
  if (s.length <= 3 * width) return JSON.stringify(s);
  const parts: string[] = [JSON.stringify(s.slice(0, width))];
  if (at > width && at < s.length - width) {
    const from = Math.max(width, at - width / 2);
    parts.push(JSON.stringify(s.slice(from, Math.min(s.length - width, at + width / 2))));
  }
  parts.push(JSON.stringify(s.slice(-width)));
  return `${parts.join(' … ')} (${s.length} units)`;
}
