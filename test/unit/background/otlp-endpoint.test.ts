/** Issue 21 §2: which OTLP endpoints are accepted, and which one is in force. */
import { describe, expect, it } from 'vitest';
import { parseManagedPolicy } from '../../../src/background/managed-policy.ts';
import {
  endpointInForce,
  endpointPermissionPattern,
  parseOtlpEndpoint,
} from '../../../src/background/otlp-endpoint.ts';

describe('parseOtlpEndpoint', () => {
  it('takes http and https URLs, adding the logs path to a bare origin', () => {
    expect(parseOtlpEndpoint('https://otel.example.org:4318')).toBe(
      'https://otel.example.org:4318/v1/logs',
    );
    expect(parseOtlpEndpoint(' http://127.0.0.1:4318/v1/logs ')).toBe(
      'http://127.0.0.1:4318/v1/logs',
    );
    expect(parseOtlpEndpoint('https://gw.example.org/otlp/logs#x')).toBe(
      'https://gw.example.org/otlp/logs',
    );
  });

  it('refuses other schemes, credentials in the URL, and what is not a URL', () => {
    for (const value of [
      'ftp://otel.example.org/v1/logs',
      'javascript:alert(1)',
      'https://user:pass@otel.example.org/v1/logs',
      'https://token@otel.example.org/v1/logs',
      'otel.example.org:4318',
      '',
      42,
      undefined,
      `https://otel.example.org/${'a'.repeat(2100)}`,
    ]) {
      expect(parseOtlpEndpoint(value)).toBeUndefined();
    }
  });

  it('asks for the endpoint host only, any port', () => {
    expect(endpointPermissionPattern('https://otel.example.org:4318/v1/logs')).toBe(
      'https://otel.example.org/*',
    );
  });
});

describe('the endpoint in force', () => {
  it('is the organisation one when set, else the person one, else none', () => {
    expect(endpointInForce('https://corp.example/v1/logs', 'https://mine.example')).toEqual({
      endpoint: 'https://corp.example/v1/logs',
      source: 'policy',
    });
    expect(endpointInForce(undefined, 'https://mine.example')).toEqual({
      endpoint: 'https://mine.example/v1/logs',
      source: 'person',
    });
    expect(endpointInForce(undefined, 'not a url')).toBeUndefined();
    expect(endpointInForce(undefined, undefined)).toBeUndefined();
  });

  it('comes from the managed policy auditExport.endpoint; a bad one is ignored and reported', () => {
    expect(
      parseManagedPolicy({ auditExport: { endpoint: 'https://corp.example:4318' } }).policy
        .auditExport,
    ).toEqual({ endpoint: 'https://corp.example:4318/v1/logs' });
    const bad = parseManagedPolicy({
      auditExport: { endpoint: 'https://u:p@corp.example', headers: {} },
    });
    expect(bad.policy.auditExport).toBeUndefined();
    expect(bad.issues).toEqual([
      { field: 'auditExport.endpoint', problem: 'not-an-endpoint' },
      { field: 'auditExport.headers', problem: 'unknown-field' },
    ]);
  });
});
