/**
 * The benchmark workload: about 10 MB (UTF-8) of deterministic, LLM-like
 * output — English and Chinese prose, fenced code, Markdown headings, lists and
 * links, the odd emoji — with a synthetic secret every ~50 KB (GitHub PAT, AWS
 * key id, OpenAI project key, PEM private key, JWT, password assignment), all
 * drawn from a seeded PRNG in the formats of the core pack, then cut into
 * 4-code-unit chunks (the size of real token deltas) and 4096-unit chunks.
 */
import { SeededRandom } from './seeded-random.ts';

export const WORKLOAD_SEED = 20240601;
export const WORKLOAD_BYTES = 10_000_000;
export const SECRET_EVERY_BYTES = 50_000;

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const BASE64URL = ALNUM + '-_';
const BASE64 = ALNUM + '+/';
const AWS_BODY = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
const PASSWORD_CHARS = ALNUM + '!@^+-.';

const ENGLISH = (
  'the a an of to in for on with as by at from that this these those it its is are was were be ' +
  'been will would can could should may might must model stream chunk guard text output answer ' +
  'question user request response function value result error cache server client browser page ' +
  'data file line word number list table example reason step first second next last then also ' +
  'however because therefore while when where which who what how why simple quick careful safe ' +
  'secure fast slow large small new old good better best different same each every all some many ' +
  'few more most other such only just even still already again always never often usually ' +
  'rule pattern match event state buffer release hold offset length start end input build test ' +
  'run deploy config option setting version update change note summary idea plan design layout'
).split(' ');

const CHINESE = (
  '我们 你们 他们 这个 那个 模型 输出 文本 流式 数据 规则 匹配 安全 隐私 密钥 服务器 浏览器 ' +
  '页面 请求 响应 函数 结果 错误 缓存 问题 答案 例子 步骤 首先 然后 最后 因为 所以 但是 ' +
  '如果 可以 需要 应该 已经 还是 非常 简单 快速 稳定 性能 测试 部署 配置 版本 更新 设计 ' +
  '实现 方法 系统 用户 内容 信息 处理 检查 保护 分块 边界 状态 长度 事件 结束 开始 支持 ' +
  '使用 发现 提供 包括 通过 进行 得到 表示 说明 注意 重要 问题 解决 方案 理解 上下文'
).split(' ');

const LANGUAGES = ['ts', 'python', 'bash', 'json'] as const;
const EMOJI = ['🙂', '🚀', '✅', '📌', '🔒', '👍'];

export type SecretKind = 'github-pat' | 'aws-key-id' | 'openai-key' | 'pem' | 'jwt' | 'password';

export const SECRET_KINDS: readonly SecretKind[] = [
  'github-pat',
  'aws-key-id',
  'openai-key',
  'pem',
  'jwt',
  'password',
];

export interface Workload {
  seed: number;
  text: string;
  /** UTF-8 bytes of `text`. */
  bytes: number;
  /** 4-code-unit chunks. */
  chunks: string[];
  /** 4096-code-unit chunks. */
  bulkChunks: string[];
  chunkChars: number;
  secrets: Record<SecretKind, number>;
}

function capitalise(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

class LlmTextWriter {
  private readonly parts: string[] = [];
  private bytesSoFar = 0;

  constructor(private readonly rnd: SeededRandom) {}

  get bytes(): number {
    return this.bytesSoFar;
  }

  add(text: string): void {
    this.parts.push(text);
    this.bytesSoFar += Buffer.byteLength(text, 'utf8');
  }

  text(): string {
    return this.parts.join('');
  }

  englishSentence(): string {
    const rnd = this.rnd;
    const words: string[] = [];
    const n = rnd.int(6, 18);
    for (let i = 0; i < n; i++) {
      let word = rnd.pick(ENGLISH);
      if (rnd.chance(0.04)) word = '`' + word + '()`';
      else if (rnd.chance(0.03)) word = '**' + word + '**';
      else if (rnd.chance(0.02))
        word = `[${word}](https://docs.example.com/${word}/${rnd.int(1, 99)})`;
      words.push(word);
    }
    let sentence = capitalise(words.join(' '));
    if (rnd.chance(0.15)) sentence = sentence.replace(' ', ', ');
    return sentence + rnd.pick(['.', '.', '.', '!', '?', ':']);
  }

  chineseSentence(): string {
    const rnd = this.rnd;
    let s = '';
    const n = rnd.int(5, 16);
    for (let i = 0; i < n; i++) {
      s += rnd.pick(CHINESE);
      if (i > 2 && i < n - 1 && rnd.chance(0.15)) s += '，';
      if (rnd.chance(0.03)) s += ` ${rnd.pick(ENGLISH)} `;
    }
    return s + rnd.pick(['。', '。', '！', '？']);
  }

  paragraph(): string {
    const rnd = this.rnd;
    const chinese = rnd.chance(0.35);
    const n = rnd.int(2, 6);
    const sentences: string[] = [];
    for (let i = 0; i < n; i++) {
      sentences.push(chinese ? this.chineseSentence() : this.englishSentence());
    }
    let p = sentences.join(chinese ? '' : ' ');
    if (rnd.chance(0.05)) p += ' ' + rnd.pick(EMOJI);
    return p + '\n\n';
  }

  identifier(): string {
    const rnd = this.rnd;
    return (
      rnd.pick(ENGLISH) + capitalise(rnd.pick(ENGLISH)) + (rnd.chance(0.3) ? rnd.int(1, 9) : '')
    );
  }

  codeBlock(): string {
    const rnd = this.rnd;
    const lang = rnd.pick(LANGUAGES);
    const lines: string[] = [];
    const n = rnd.int(4, 14);
    for (let i = 0; i < n; i++) {
      const a = this.identifier();
      const b = this.identifier();
      const k = rnd.int(0, 1000);
      switch (lang) {
        case 'ts':
          lines.push(
            rnd.pick([
              `function ${a}(${b}: number): number {`,
              `  const ${a} = ${b} + ${k};`,
              `  if (${a} > ${k}) return ${b};`,
              `  return ${a} * 2;`,
              `}`,
              `// ${this.englishSentence()}`,
              `export const ${a} = await ${b}({ retries: ${k % 7} });`,
            ]),
          );
          break;
        case 'python':
          lines.push(
            rnd.pick([
              `def ${a}(${b}):`,
              `    ${a} = ${b} + ${k}`,
              `    for i in range(${k % 50}):`,
              `        print(f"{i}: {${b}}")`,
              `    return ${a}`,
              `# ${this.englishSentence()}`,
            ]),
          );
          break;
        case 'bash':
          lines.push(
            rnd.pick([
              `npm run ${rnd.pick(ENGLISH)}`,
              `cd ${rnd.pick(ENGLISH)}/${rnd.pick(ENGLISH)} && ls -la`,
              `echo "${this.englishSentence()}"`,
              `git log --oneline | head -${k % 20}`,
            ]),
          );
          break;
        case 'json':
          lines.push(`  "${a}": ${rnd.chance(0.5) ? k : `"${b}"`},`);
          break;
      }
    }
    return '```' + lang + '\n' + lines.join('\n') + '\n```\n\n';
  }

  markdownBlock(): string {
    const rnd = this.rnd;
    const out: string[] = [];
    if (rnd.chance(0.5)) out.push(`## ${capitalise(rnd.pick(ENGLISH))} ${rnd.pick(ENGLISH)}\n`);
    const n = rnd.int(2, 7);
    const numbered = rnd.chance(0.4);
    for (let i = 0; i < n; i++) {
      const bullet = numbered ? `${i + 1}.` : '-';
      const body = rnd.chance(0.3) ? this.chineseSentence() : this.englishSentence();
      out.push(`${bullet} ${rnd.chance(0.3) ? `**${rnd.pick(ENGLISH)}**: ` : ''}${body}`);
    }
    if (rnd.chance(0.3)) {
      out.push(
        `\nSee [the ${rnd.pick(ENGLISH)} guide](https://example.org/${rnd.pick(ENGLISH)}#${rnd.pick(ENGLISH)}).`,
      );
    }
    return out.join('\n') + '\n\n';
  }

  secret(kind: SecretKind): string {
    const rnd = this.rnd;
    switch (kind) {
      case 'github-pat':
        return `Set it in your shell: \`export GITHUB_PAT=ghp_${rnd.chars(ALNUM, 36)}\` and retry.\n\n`;
      case 'aws-key-id':
        return `\`\`\`bash\nexport AWS_ACCESS_KEY_ID=AKIA${rnd.chars(AWS_BODY, 16)}\nexport AWS_REGION=eu-west-1\n\`\`\`\n\n`;
      case 'openai-key': {
        const key = `sk-proj-${rnd.chars(BASE64URL, 58)}T3BlbkFJ${rnd.chars(BASE64URL, 58)}`;
        return `The request used the header \`Authorization: Bearer ${key}\` as shown.\n\n`;
      }
      case 'pem': {
        const lines: string[] = [];
        const n = rnd.int(8, 25);
        for (let i = 0; i < n; i++) lines.push(rnd.chars(BASE64, 64));
        lines.push(rnd.chars(BASE64, rnd.int(4, 60)) + '==');
        return (
          '```\n-----BEGIN RSA PRIVATE KEY-----\n' +
          lines.join('\n') +
          '\n-----END RSA PRIVATE KEY-----\n```\n\n'
        );
      }
      case 'jwt': {
        const header = Buffer.from('{"alg":"HS256","typ":"JWT"}').toString('base64url');
        const payload = Buffer.from(
          JSON.stringify({ sub: `user-${rnd.chars(ALNUM, 8)}`, iat: 1700000000 + rnd.int(0, 1e7) }),
        ).toString('base64url');
        return `Use the bearer token ${header}.${payload}.${rnd.chars(BASE64URL, 43)} for the call.\n\n`;
      }
      case 'password':
        return `\`\`\`python\ndb = connect(host="db.internal")\npassword = "${rnd.chars(PASSWORD_CHARS, 20)}"\n\`\`\`\n\n`;
    }
  }
}

export function chunkText(text: string, size: number): string[] {
  const chunks: string[] = [];
  for (let i = 0; i < text.length; i += size) chunks.push(text.slice(i, i + size));
  return chunks;
}

export function buildWorkload(
  seed: number = WORKLOAD_SEED,
  bytes: number = WORKLOAD_BYTES,
): Workload {
  const rnd = new SeededRandom(seed);
  const writer = new LlmTextWriter(rnd);
  const secrets = Object.fromEntries(SECRET_KINDS.map((k) => [k, 0])) as Record<SecretKind, number>;
  let nextSecretAt = rnd.int(SECRET_EVERY_BYTES * 0.8, SECRET_EVERY_BYTES * 1.2);
  let secretIndex = 0;
  while (writer.bytes < bytes) {
    if (writer.bytes >= nextSecretAt) {
      const kind = SECRET_KINDS[secretIndex++ % SECRET_KINDS.length] as SecretKind;
      writer.add(writer.secret(kind));
      secrets[kind]++;
      nextSecretAt += rnd.int(SECRET_EVERY_BYTES * 0.8, SECRET_EVERY_BYTES * 1.2);
      continue;
    }
    const r = rnd.next();
    if (r < 0.6) writer.add(writer.paragraph());
    else if (r < 0.8) writer.add(writer.markdownBlock());
    else writer.add(writer.codeBlock());
  }
  // Trim to the exact size at a character boundary (never inside a UTF-8 sequence).
  const encoded = Buffer.from(writer.text(), 'utf8');
  let cut = Math.min(bytes, encoded.length);
  while (cut > 0 && ((encoded[cut] ?? 0) & 0xc0) === 0x80) cut--;
  const text = encoded.subarray(0, cut).toString('utf8');
  const total = cut;
  return {
    seed,
    text,
    bytes: total,
    chunks: chunkText(text, 4),
    bulkChunks: chunkText(text, 4096),
    chunkChars: 4,
    secrets,
  };
}
