/**
 * A CJK-heavy workload for the engine benches (issue 19 §3, docs/engine-speed.md "CJK and the
 * bigram fold"): Chinese prose as the answers of the Chinese chat sites the product guards
 * (Kimi, Doubao, Qwen, DeepSeek, Yuanbao) mostly are, made by a seeded generator from the
 * words below (written for this bench, not taken from any corpus), with full-width
 * punctuation, some ASCII (numbers, code words), emoji (surrogate pairs), and now and then a
 * secret-shaped value or invisible characters (zero-width, variation selectors, tag
 * characters) for the rules to find.
 */

const WORDS = (
  '我们 你们 他们 这个 那个 今天 明天 问题 方法 系统 数据 用户 服务 网络 安全 模型 回答 ' +
  '理解 分析 结果 需要 可以 应该 因为 所以 但是 如果 然后 已经 还是 一些 没有 非常 重要 ' +
  '文件 代码 程序 设计 测试 功能 页面 浏览器 服务器 数据库 接口 配置 环境 版本 更新 ' +
  '学习 工作 时间 地方 城市 天气 朋友 公司 市场 经济 发展 技术 研究 教育 文化 历史 ' +
  '首先 其次 最后 总之 例如 比如 另外 同时 通过 关于 对于 根据 以及 或者 而且 虽然 ' +
  '简单 复杂 快速 稳定 清楚 详细 具体 主要 基本 常见 实际 可能 一般 特别 完全'
).split(' ');
const ASCII = ['API', 'JSON', 'Python', 'HTTP', 'v2', '2026', '100', 'OK', 'GPU', 'Linux'];
const PUNCT = ['，', '，', '，', '。', '、', '：', '；', '！', '？'];
const EMOJI = ['\u{1F600}', '\u{1F44D}', '\u{1F680}', '\u{2705}'];
const BASE62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** mulberry32: a small seeded generator, so every run builds the same text. */
function generator(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Rare parts: secret-shaped values and invisible characters (one in ~400 words). */
function rarePart(pick: (n: number) => number): string {
  const random = (n: number, alphabet: string) =>
    Array.from({ length: n }, () => alphabet[pick(alphabet.length)]).join('');
  switch (pick(6)) {
    case 0:
      return ` AKIA${random(16, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567')} `;
    case 1:
      return ` ghp_${random(36, BASE62)} `;
    case 2:
      return '\u200b';
    case 3:
      return '\u{E0049}\u{E0067}\u{E006E}';
    case 4:
      return `a\ufe01b`;
    default:
      return `sk-${random(40, BASE62)}`;
  }
}

/** About `units` UTF-16 units of generated Chinese prose, the same for every call. */
export function buildCjkText(units: number, seed = 19): string {
  const random = generator(seed);
  const pick = (n: number) => Math.floor(random() * n);
  const parts: string[] = [];
  let length = 0;
  while (length < units) {
    const r = pick(400);
    let part: string;
    if (r === 0) part = rarePart(pick);
    else if (r < 24) part = ` ${ASCII[pick(ASCII.length)]} `;
    else if (r < 28) part = EMOJI[pick(EMOJI.length)] as string;
    else if (r < 100) part = PUNCT[pick(PUNCT.length)] as string;
    else if (r < 104) part = '\n\n';
    else part = WORDS[pick(WORDS.length)] as string;
    parts.push(part);
    length += part.length;
  }
  return parts.join('');
}
