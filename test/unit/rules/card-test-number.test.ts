import { describe, expect, it } from 'vitest';
import { repeatedGroupCard } from '../../../src/core/rules/validators/card-test-number.ts';

describe('repeatedGroupCard (issue 17 §4: documented test numbers are placeholders)', () => {
  it.each([
    '4000 1028 1028 1028',
    '5555555555554444',
    '2340-3520-3520-3520',
    '6011 6011 6011 6017',
  ])('%s is one group repeated', (n) => {
    expect(repeatedGroupCard(n)).toBe(true);
  });

  it.each(['4000 0012 3456 7899', '5527 2040 2040 5675', '3714 496353 98431', '4000001234567899'])(
    '%s is not',
    (n) => {
      expect(repeatedGroupCard(n)).toBe(false);
    },
  );
});
