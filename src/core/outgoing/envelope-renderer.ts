/**
 * The two envelope renderers, with opposite constraints (seed 000 §6):
 * `json` keeps the content exactly and escapes the encoded line; `quote` is
 * readable and lossy by contract.
 */
export type EnvelopeRenderer = 'json' | 'quote';

export const ENVELOPE_RENDERERS: readonly EnvelopeRenderer[] = ['json', 'quote'];

export function isEnvelopeRenderer(name: string): name is EnvelopeRenderer {
  return (ENVELOPE_RENDERERS as readonly string[]).includes(name);
}
