/**
 * The pii pack through the engine: default actions (cards, IBANs and ID
 * numbers redacted; e-mail addresses and phone numbers flagged, never held),
 * and its validators on their own.
 */
import { describe, expect, it } from 'vitest';
import { StreamGuard } from '../../../src/core/guard/stream-guard.ts';
import { scanText } from '../../../src/core/guard/scan-text.ts';
import { compileGuardPack } from '../../../src/core/rules/builtin-packs.ts';
import { emailIsPersonal } from '../../../src/core/rules/validators/email-address.ts';
import { usSsnValid } from '../../../src/core/rules/validators/us-ssn.ts';

const pii = compileGuardPack({ packs: ['pii'] });

function rulesIn(text: string): string[] {
  return scanText(pii, text).events.flatMap((e) => (e.type === 'match' ? [e.rule] : []));
}

describe('pii pack', () => {
  it('redacts cards, IBANs, resident IDs and SSNs by default', () => {
    expect(scanText(pii, 'card 4000 0012 3456 7899, thanks').output).toBe(
      'card [redacted:payment-card], thanks',
    );
    expect(scanText(pii, 'IBAN DE27 1002 0030 0012 3456 78.').output).toBe('IBAN [redacted:iban].');
    expect(scanText(pii, '号码440305199003071236。').output).toBe(
      '号码[redacted:cn-resident-id]。',
    );
    // The label stays, the number goes (the labelled rule's value; us-ssn covers the same span).
    expect(scanText(pii, 'SSN 536-21-4477').output).toMatch(
      /^SSN \[redacted:us-ssn(?:-labelled)?\]$/,
    );
    expect(scanText(pii, 'number 536-21-4477').output).toBe('number [redacted:us-ssn]');
  });

  it('leaves numbers alone that fail the checksum or the issuing ranges', () => {
    for (const text of [
      'card 4000 0012 3456 7890',
      'IBAN DE28 1002 0030 0012 3456 78',
      '号码440305199003071237',
      'number 666-21-4477',
      'build 20240517103000 done',
    ]) {
      expect(scanText(pii, text).output, text).toBe(text);
      expect(rulesIn(text), text).toEqual([]);
    }
  });

  it('flags e-mail addresses and phone numbers without changing or holding the text', () => {
    const guard = new StreamGuard(pii);
    const first = guard.push('mail jane.doe@mailbox.org or call +1 415 555 0132');
    expect(first.emit).toBe('mail jane.doe@mailbox.org or call +1 415 555 0132');
    const rest = guard.end();
    const events = [...first.events, ...rest.events];
    expect(events.map((e) => (e.type === 'match' ? [e.rule, e.action] : []))).toEqual([
      ['email-address', 'flag'],
      ['phone-e164', 'flag'],
    ]);
    expect(rulesIn('手机 13812345678')).toEqual(['cn-mobile']);
  });

  it('matches passport-like ids only after a context word', () => {
    expect(scanText(pii, 'Passport: K29384756').output).toBe(
      'Passport: [redacted:passport-number]',
    );
    expect(rulesIn('Ticket K29384756')).toEqual([]);
  });

  it('follows a per-kind policy (off, or redact on send)', () => {
    expect(rulesIn('jane.doe@mailbox.org')).toEqual(['email-address']);
    expect(scanText(pii, 'jane.doe@mailbox.org', { policy: { pii: 'off' } }).events).toEqual([]);
    expect(scanText(pii, 'to jane.doe@mailbox.org', { policy: { pii: 'redact' } }).output).toBe(
      'to [redacted:email-address]',
    );
  });
});

describe('usSsnValid', () => {
  it.each([
    ['536-21-4477', true],
    ['536 21 4477', true],
    ['536214477', true],
    ['536-21 4477', false],
    ['000-21-4477', false],
    ['666-21-4477', false],
    ['900-21-4477', false],
    ['536-00-4477', false],
    ['536-21-0000', false],
    ['078-05-1120', false],
    ['123-45-6789', false],
    // Issue 17 §4: area and group that count up or down are a made-up number, whatever the serial.
    ['123-45-2208', false],
    ['456-78-1093', false],
    ['765-43-5120', false],
    ['124-45-2208', true],
  ])('%s → %s', (text, valid) => {
    expect(usSsnValid(text)).toBe(valid);
  });
});

describe('emailIsPersonal', () => {
  it.each([
    ['jane.doe@mailbox.org', true],
    ['li.wei@corp-mail.cn', true],
    ['security@project.org', false],
    ['support+billing@shop.example.net', false],
    ['no-reply@service.io', false],
    ['jane@example.com', false],
    ['jane@intranet.local', false],
    ['123+octo@users.noreply.github.com', false],
    ['icon@2x.png', false],
    ['password@cluster.db-host.net', false],
    ['tab-tools@vendor.org.disabled', false],
    ['notes@vendor.org.bak', false],
    ['jane@studio.photography', true],
  ])('%s → %s', (text, personal) => {
    expect(emailIsPersonal(text)).toBe(personal);
  });
});
