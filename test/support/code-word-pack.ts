/**
 * The small custom rules the wire and CLI tests reach redactions, cuts and blocks
 * with: `zebra-` and three digits is redacted, `STOP` and two digits blocks. Made
 * of innocuous words, so no real-looking secret sits in the tests.
 */
import type { RulePack, RuleSpec } from '../../src/core/rules/rule.ts';

export const CODE_WORD_RULE: RuleSpec = {
  id: 'code-word',
  kind: 'custom',
  description: 'redacts a code word',
  pattern: 'zebra-[0-9]{3}',
  keywords: ['zebra-'],
  action: 'redact',
  examples: { match: ['zebra-123'], noMatch: ['zebra-12'] },
};

export const STOP_WORD_RULE: RuleSpec = {
  id: 'stop-word',
  kind: 'custom',
  description: 'blocks STOP followed by two digits',
  pattern: 'STOP[0-9]{2}',
  keywords: ['STOP'],
  action: 'block',
  examples: { match: ['say STOP42 now'], noMatch: ['STOP4'] },
};

/** A pack spec named `name` with the code word and, unless `block` is false, the stop word. */
export function codeWordPackSpec(name: string, version = '1', block = true): RulePack {
  return { name, version, rules: block ? [CODE_WORD_RULE, STOP_WORD_RULE] : [CODE_WORD_RULE] };
}
