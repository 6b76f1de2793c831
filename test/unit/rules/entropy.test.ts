import { describe, expect, it } from 'vitest';
import { entropyAtLeast, shannonEntropy } from '../../../src/core/rules/validators/entropy.ts';

describe('shannonEntropy', () => {
  it.each([
    ['', 0],
    ['aaaaaaaa', 0],
    ['aabb', 1],
    ['abcd', 2],
    ['abcdefgh', 3],
    ['0123456789abcdef', 4],
  ])('%j has %d bits per character', (s, bits) => {
    expect(shannonEntropy(s)).toBeCloseTo(bits, 10);
  });

  it('counts code points, not UTF-16 code units', () => {
    // Two distinct astral characters: 1 bit per character, not 2 bits over 4 code units.
    expect(shannonEntropy('\u{1F600}\u{1F601}')).toBeCloseTo(1, 10);
  });

  it('ranks placeholders below random values', () => {
    expect(shannonEntropy('********')).toBe(0);
    expect(shannonEntropy('changeme')).toBeLessThan(3);
    expect(shannonEntropy('password')).toBeLessThan(3);
    expect(shannonEntropy('q7RvT2pLx9WdK4mZ')).toBeGreaterThan(3.5);
  });
});

describe('entropyAtLeast', () => {
  it('is inclusive at the threshold', () => {
    expect(entropyAtLeast('abcdefgh', 3)).toBe(true);
    expect(entropyAtLeast('abcdefga', 3)).toBe(false);
  });
  it.each([
    ['Xk29fLq8ZtWm', 3, true],
    ['xxxxxxxxxxxx', 3, false],
    ['required', 3, false],
    ['', 0.1, false],
  ])('%j at %d → %s', (s, min, expected) => {
    expect(entropyAtLeast(s, min)).toBe(expected);
  });
});
