/**
 * Secrets in the formats of the core pack, assembled at run time from
 * innocuous pieces (never copied from a corpus), so no real-looking token sits
 * in the source.
 */
import { CODE_WORD_RULE, STOP_WORD_RULE } from '../../support/code-word-pack.ts';

export const githubPat = (): string => 'gh' + 'p_' + 'a1B2'.repeat(9);
export const awsKeyId = (): string => 'AK' + 'IA' + 'QRST234567WXYZAB';

/** A small pack with one block rule and one redact rule, for exit-status tests. */
export const blockingPack = {
  name: 'cli-test',
  version: '7',
  rules: [STOP_WORD_RULE, CODE_WORD_RULE],
};
