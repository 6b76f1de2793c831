import { describe, expect, it } from 'vitest';
import shipped from '../../../src/core/outgoing/packs/source-labels.json' with { type: 'json' };
import {
  LabelPackError,
  checkLabelPack,
  compileLabelPack,
} from '../../../src/core/outgoing/source-label-pack.ts';

const label = (over: Record<string, unknown> = {}) => ({
  id: 'via-tag',
  description: 'a test label',
  pattern: '<via [a-z]{1,10}>[ ]?',
  keywords: ['<via '],
  examples: { match: ['x <via feed> y'], noMatch: ['via feed'] },
  ...over,
});
const pack = (over: Record<string, unknown> = {}) => ({
  name: 'labels-test',
  version: '1',
  minProse: 4,
  labels: [label()],
  ...over,
});

const fields = (json: unknown) => checkLabelPack(json).problems.map((p) => p.field);

describe('label packs', () => {
  it('the shipped pack is valid, examples included', () => {
    expect(checkLabelPack(shipped).problems).toEqual([]);
  });

  it('a valid pack compiles to rules that replace each label by nothing', () => {
    const compiled = compileLabelPack(pack());
    expect(compiled).toMatchObject({ name: 'labels-test', version: '1', minProse: 4 });
    expect(compiled.rules.rules.map((r) => [r.id, r.kind, r.action, r.replacement])).toEqual([
      ['via-tag', 'custom', 'redact', ''],
    ]);
  });

  it.each([
    ['an unknown pack field', pack({ rules: [] }), 'rules'],
    ['a minProse that is not a positive integer', pack({ minProse: 0 }), 'minProse'],
    ['no labels', pack({ labels: [] }), 'labels'],
    [
      'an unknown label field (no action: labels are always removed)',
      pack({ labels: [label({ action: 'block' })] }),
      'labels[0].action',
    ],
    [
      'a match example without a label',
      pack({ labels: [label({ examples: { match: ['none'], noMatch: ['via x'] } })] }),
      'examples.match[0]',
    ],
    [
      'a noMatch example with a label',
      pack({ labels: [label({ examples: { match: ['<via a>'], noMatch: ['<via b>'] } })] }),
      'examples.noMatch[0]',
    ],
    [
      'an unbounded pattern without maxLength',
      pack({ labels: [label({ pattern: '<via [a-z]+>' })] }),
      'maxLength',
    ],
  ])('reports %s', (_, json, field) => {
    expect(fields(json)).toContain(field);
    expect(() => compileLabelPack(json)).toThrow(LabelPackError);
  });

  it('reports a pack that is not an object', () => {
    expect(checkLabelPack([]).problems).toEqual([
      { field: '', message: 'a label pack is a JSON object' },
    ]);
  });
});
