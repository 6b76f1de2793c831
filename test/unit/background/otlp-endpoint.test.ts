/** Issue 21 §2: which OTLP endpoints and encodings are accepted, and which are in force. */
import { describe, expect, it } from 'vitest';
import { parseManagedPolicy } from '../../../src/background/managed-policy.ts';
import {
  endpointInForce,
  endpointPermissionPattern,
  parseOtlpEncoding,
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
      encoding: 'json',
    });
    expect(endpointInForce(undefined, 'https://mine.example')).toEqual({
      endpoint: 'https://mine.example/v1/logs',
      source: 'person',
      encoding: 'json',
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

  it('encodes as the organisation says, else as the person chose, else JSON', () => {
    const mine = 'https://mine.example';
    expect(endpointInForce(undefined, mine, undefined, 'protobuf')?.encoding).toBe('protobuf');
    expect(endpointInForce(undefined, mine, 'json', 'protobuf')?.encoding).toBe('json');
    expect(endpointInForce(undefined, mine, 'protobuf', 'json')?.encoding).toBe('protobuf');
    expect(endpointInForce(mine, undefined, 'protobuf')?.encoding).toBe('protobuf');
    // Storage holding anything else (an older or edited value) falls back to the default.
    for (const stored of [undefined, 'PROTOBUF', 'proto', 1, {}]) {
      expect(endpointInForce(undefined, mine, undefined, stored)?.encoding).toBe('json');
    }
  });

  it('parses exactly the two OTLP/HTTP encodings, without coercion', () => {
    expect(parseOtlpEncoding('json')).toBe('json');
    expect(parseOtlpEncoding('protobuf')).toBe('protobuf');
    for (const value of ['Protobuf', ' json', 'grpc', 'http/protobuf', '', null, 0, ['json']]) {
      expect(parseOtlpEncoding(value)).toBeUndefined();
    }
  });

  it('takes the managed policy auditExport.encoding; a bad one is ignored and reported', () => {
    expect(
      parseManagedPolicy({ auditExport: { encoding: 'protobuf' } }).policy.auditExport,
    ).toEqual({ encoding: 'protobuf' });
    expect(
      parseManagedPolicy({
        auditExport: { endpoint: 'https://corp.example:4318', encoding: 'protobuf' },
      }).policy.auditExport,
    ).toEqual({ endpoint: 'https://corp.example:4318/v1/logs', encoding: 'protobuf' });
    const bad = parseManagedPolicy({
      auditExport: { endpoint: 'https://corp.example', encoding: 'grpc' },
    });
    // The endpoint still applies; the encoding stays the person's (or the default).
    expect(bad.policy.auditExport).toEqual({ endpoint: 'https://corp.example/v1/logs' });
    expect(bad.issues).toEqual([{ field: 'auditExport.encoding', problem: 'not-an-encoding' }]);
    expect(parseManagedPolicy({ auditExport: { encoding: true } }).issues).toEqual([
      { field: 'auditExport.encoding', problem: 'not-an-encoding' },
    ]);
  });
});
