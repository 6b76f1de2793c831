/**
 * A fixed sample of ordinary text (prose, code, a URL, numbers, Markdown;
 * English and Chinese): what a rule without keywords costs on it (prefilter-cost.ts), and
 * how common each unit class is (start-deferral.ts). Its own module so the
 * compiled pack can read it without the pack checker.
 */
export const PREFILTER_SAMPLE = [
  'The quick brown fox jumps over the lazy dog, then reads the release notes for version 2.4.1.',
  'function total(items) {\n  return items.reduce((sum, item) => sum + item.price * item.count, 0);\n}',
  'See the guide at https://docs.example.org/getting-started#install before 10:30 on 2024-05-17.',
  '我们明天上午九点在会议室讨论新的设计方案，请大家提前准备材料。',
  'Rows: 42, 17, 3.14159; status = "ok"; retries <= 3 && timeout > 250ms.',
  'Read [the guide](https://docs.example.org/guide) and run `npm ci` for **details**.\n',
].join('\n');
