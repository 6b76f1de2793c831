/** A complete PageConfig that differs from the defaults, for the page-channel tests. */
import type { PageConfig } from '../../../src/protocol/settings-schema.ts';

export const sampleConfig: PageConfig = {
  version: 1,
  incoming: {
    secret: 'block',
    pii: 'redact',
    exfil: 'redact',
    invisible: 'redact',
    injection: 'flag',
    custom: 'off',
  },
  outgoing: {
    secret: 'warn',
    pii: 'redact',
    exfil: 'off',
    invisible: 'redact',
    injection: 'off',
    custom: 'off',
  },
  allowedImageHosts: ['images.example'],
  packs: ['secrets'],
  disabledRules: ['iban'],
  customPacks: [],
  envelopeRenderer: 'json',
  autoEnvelopeMinChars: 0,
};
