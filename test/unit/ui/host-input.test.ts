import { describe, expect, it } from 'vitest';
import { normaliseHost } from '../../../src/ui/host-input.ts';
import { coveredByManifest, sitePermissionPattern } from '../../../src/ui/site-permission.ts';

describe('host input', () => {
  it.each([
    ['example.com', 'example.com'],
    ['  Chat.Example.COM  ', 'chat.example.com'],
    ['https://chat.example.com/c/123?x=1', 'chat.example.com'],
    ['localhost:3000', 'localhost'],
    ['http://127.0.0.1:8080/', '127.0.0.1'],
    ['example.com.', 'example.com'],
    ['http://[::1]:3000/', '[::1]'],
  ])('%j → %j', (input, host) => {
    expect(normaliseHost(input)).toBe(host);
  });

  it.each([
    '',
    '   ',
    'not a host',
    'ftp://example.com',
    'javascript:alert(1)',
    'https://user:pass@example.com/',
    '-bad-.com',
    'exa_mple.com',
    'https://',
  ])('refuses %j', (input) => {
    expect(normaliseHost(input)).toBeNull();
  });
});

describe('site permission', () => {
  const manifest = ['https://claude.ai/*', 'http://localhost/*', 'http://127.0.0.1/*'];

  it('asks for every scheme and port of the host', () => {
    expect(sitePermissionPattern('chat.example.com')).toBe('*://chat.example.com/*');
    expect(sitePermissionPattern('localhost:3000')).toBe('*://localhost/*');
    expect(sitePermissionPattern('[::1]:8080')).toBe('*://[::1]/*');
  });

  it('knows which sites the manifest already covers', () => {
    expect(coveredByManifest('claude.ai', manifest)).toBe(true);
    expect(coveredByManifest('localhost', manifest)).toBe(true);
    expect(coveredByManifest('127.0.0.1:5000', manifest)).toBe(true);
    expect(coveredByManifest('sub.claude.ai', manifest)).toBe(false);
    expect(coveredByManifest('chat.example.com', manifest)).toBe(false);
    expect(coveredByManifest('example.com', ['*://*.example.com/*'])).toBe(true);
  });
});
