/**
 * Secrets in the formats of the core pack, assembled at run time from
 * innocuous pieces (never copied from a corpus), so no real-looking token sits
 * in the source.
 */
export const githubPat = (): string => 'gh' + 'p_' + 'a1B2'.repeat(9);
export const awsKeyId = (): string => 'AK' + 'IA' + 'QRST234567WXYZAB';

/** A small pack with one block rule and one redact rule, for exit-status tests. */
export const blockingPack = {
  name: 'cli-test',
  version: '7',
  rules: [
    {
      id: 'stop-word',
      kind: 'custom',
      description: 'blocks STOP followed by two digits',
      pattern: 'STOP[0-9]{2}',
      keywords: ['STOP'],
      action: 'block',
      examples: { match: ['say STOP42 now'], noMatch: ['STOP4'] },
    },
    {
      id: 'code-word',
      kind: 'custom',
      description: 'redacts a code word',
      pattern: 'zebra-[0-9]{3}',
      keywords: ['zebra-'],
      action: 'redact',
      examples: { match: ['zebra-123'], noMatch: ['zebra-12'] },
    },
  ],
};
