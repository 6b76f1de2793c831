import { describe, expect, it } from 'vitest';
import { exfilUrlVerdict, hostIsAllowed } from '../../../src/core/rules/validators/exfil-url.ts';

const ALLOWED = ['images.example.com', 'cdn.example.org'];

function verdict(text: string, allowed: readonly string[] = ALLOWED) {
  return exfilUrlVerdict(text, allowed);
}

describe('exfilUrlVerdict: safe images', () => {
  it.each([
    ['![diagram](images/arch.png)', ''],
    ['![](./img/logo.svg "Logo")', ''],
    ['![](/static/a.png)', ''],
    ['![]()', ''],
    ['![logo](https://images.example.com/logo.png)', 'images.example.com'],
    ['![logo](https://eu.images.example.com/logo.png)', 'eu.images.example.com'],
    ['![logo](HTTPS://IMAGES.EXAMPLE.COM/logo.png)', 'images.example.com'],
    ['![logo](https://images.example.com:8443/logo.png)', 'images.example.com'],
    ['![logo](https://images.example.com./logo.png)', 'images.example.com'],
    ['![logo](//cdn.example.org/logo.png)', 'cdn.example.org'],
    ['![logo](<https://images.example.com/my logo.png> "Logo")', 'images.example.com'],
    ["![logo](https://images.example.com/logo.png 'Logo')", 'images.example.com'],
    ['![logo]( https://images.example.com/logo.png )', 'images.example.com'],
    ['![logo](https://images.example.com/a(1).png)', 'images.example.com'],
    ['![logo](https://images%2Eexample.com/logo.png)', 'images.example.com'],
    ['![logo](https://ｉｍａｇｅｓ.example.com/logo.png)', 'images.example.com'],
  ])('%s is not risky (host %j)', (text, host) => {
    expect(verdict(text)).toEqual({ risky: false, host });
  });
});

describe('exfilUrlVerdict: risky images', () => {
  it.each([
    ['![x](https://evil.example/p.png)', 'evil.example', 'host not allowed'],
    ['![x](http://evil.example/p.png)', 'evil.example', 'plain http'],
    ['![x](HtTpS://Evil.Example/p.png)', 'evil.example', 'mixed case'],
    ['![x](//evil.example/p.png)', 'evil.example', 'protocol-relative'],
    ['![x](\\\\evil.example/p.png)', 'evil.example', 'backslashes as slashes'],
    ['![x](/\\evil.example/p.png)', 'evil.example', 'mixed slashes'],
    ['![x](https:\\\\evil.example/p.png)', 'evil.example', 'https:\\\\'],
    ['![x](https:evil.example/p.png)', 'evil.example', 'no slashes'],
    ['![x](https:///evil.example/p.png)', 'evil.example', 'three slashes'],
    ['![x](https://images.example.com@evil.example/p.png)', 'evil.example', 'userinfo'],
    ['![x](https://user:pass@evil.example:8080/p.png)', 'evil.example', 'userinfo and port'],
    [
      '![x](https://images.example.com.evil.example/p.png)',
      'images.example.com.evil.example',
      'suffix trick',
    ],
    ['![x](https://evilimages.example.com/p.png)', 'evilimages.example.com', 'not a subdomain'],
    ['![x](https://[2001:db8::1]/p.png)', '[2001:db8::1]', 'IPv6 literal'],
    ['![x](https://203.0.113.9/p.png)', '203.0.113.9', 'IPv4 literal'],
    [
      '![x](https://images.example.com/p.png?d=SECRET)',
      'images.example.com',
      'query on an allowed host',
    ],
    [
      '![x](https://images.example.com/p.png#SECRET)',
      'images.example.com',
      'fragment on an allowed host',
    ],
    [
      '![x](https://images.example.com/p.png&#63;d=SECRET)',
      'images.example.com',
      'entity-encoded ?',
    ],
    [
      '![x](https://images.example.com/p.png\\?d=SECRET)',
      'images.example.com',
      'backslash-escaped ?',
    ],
    ['![x](https&#58;//evil.example/p.png)', 'evil.example', 'entity-encoded colon'],
    ['![x](https://evil&period;example/p.png)', 'evil.example', 'named entity in host'],
    ['![x](https://ev%69l.example/p.png)', 'evil.example', 'percent-encoded host'],
    ['![x](https://evil。example/p.png)', 'evil.example', 'ideographic full stop'],
    ['![x](<ht\ttps://evil.example/p.png>)', 'evil.example', 'tab inside the scheme'],
    ['![x](\\\\\\evil.example/p.png)', 'evil.example', 'escaped backslashes'],
    ['![x](<https://evil.example/a b.png>)', 'evil.example', 'angle brackets'],
    ['![x](\n  https://evil.example/p.png\n  "t")', 'evil.example', 'line breaks around'],
    ['![x](/avatar.png?session=abc)', '', 'relative with query'],
    ['![x](a.png#frag)', '', 'relative with fragment'],
    ['![x](data:image/png;base64,iVBORw0KGgo=)', 'data:', 'data URL'],
    ['![x](DATA:image/svg+xml,<svg/>)', 'data:', 'upper-case data URL'],
    ['![x](ftp://images.example.com/p.png)', 'images.example.com', 'other scheme with host'],
    ['![x](javascript:alert(1))', 'javascript:', 'other scheme'],
    ['![x](https://images.example.com/a(b)', 'images.example.com', 'unbalanced ( : URL continues'],
    ['![x](https://images.example.com/a\\)', 'images.example.com', 'escaped ) : URL continues'],
    ['![x](<https://images.example.com/a)', 'images.example.com', 'unclosed <'],
    ['![x](https://images.example.com/a.png', 'images.example.com', 'no closing )'],
    ['![very long alt text cut off by the rule bound', '', 'no ]( at all'],
  ])('%s is risky (host %j: %s)', (text, host) => {
    expect(verdict(text)).toEqual({ risky: true, host });
  });

  it('treats every absolute URL as risky when nothing is allowed', () => {
    expect(verdict('![x](https://images.example.com/p.png)', [])).toEqual({
      risky: true,
      host: 'images.example.com',
    });
  });

  it('names a host safely: no markup, bounded length', () => {
    const long = `![x](https://${'a'.repeat(300)}.example/p.png)`;
    expect(verdict(long).host.length).toBeLessThanOrEqual(100);
    const odd = verdict('![x](https://ev*il!.example/p.png)');
    expect(odd.risky).toBe(true);
    expect(odd.host).toBe('ev?il?.example');
  });

  it('ends a bare destination at whitespace, like CommonMark', () => {
    // `ht<TAB>tps://…` is no image at all: the destination is `ht`, the rest is no title.
    expect(verdict('![x](ht\ttps://evil.example/p.png)')).toEqual({ risky: false, host: '' });
  });

  it('accepts a bare destination as well as a full image', () => {
    expect(verdict('https://evil.example/p.png')).toEqual({ risky: true, host: 'evil.example' });
    expect(verdict('images/a.png')).toEqual({ risky: false, host: '' });
  });

  it('handles nested brackets in the alt text', () => {
    expect(verdict('![a [b] c](https://evil.example/)')).toEqual({
      risky: true,
      host: 'evil.example',
    });
    expect(verdict('![[x]](images/a.png)')).toEqual({ risky: false, host: '' });
    // A link inside the alt text does not end the image: its destination is the outer one.
    expect(verdict('![see [docs](images/a.png) here](https://evil.example/p.png)')).toEqual({
      risky: true,
      host: 'evil.example',
    });
    expect(verdict('![see [docs](https://evil.example/) here](images/a.png)')).toEqual({
      risky: false,
      host: '',
    });
    expect(verdict('![escaped \\] bracket](https://evil.example/p.png)')).toEqual({
      risky: true,
      host: 'evil.example',
    });
  });
});

describe('hostIsAllowed', () => {
  it.each([
    ['example.com', ['example.com'], true],
    ['a.b.example.com', ['example.com'], true],
    ['example.com', ['*.example.com'], true],
    ['example.com', ['.example.com'], true],
    ['example.com', ['EXAMPLE.COM.'], true],
    ['example.com', ['example.com:443'], true],
    ['[::1]', ['::1'], true],
    ['[::1]', ['[::1]:8080'], true],
    ['badexample.com', ['example.com'], false],
    ['example.com.evil', ['example.com'], false],
    ['', ['example.com'], false],
    ['example.com', [''], false],
  ])('%s with %j → %s', (host, allowed, expected) => {
    expect(hostIsAllowed(host, allowed)).toBe(expected);
  });
});
