/**
 * Issue 21 §2: the OTLP/HTTP logs endpoint, as the organisation's policy
 * (`auditExport.endpoint`) or the person (options page) sets it. Pure: no
 * extension API here, so the policy parser and the UI use it as the background does.
 *
 * Accepted: an absolute http: or https: URL without credentials (a user name or
 * password in the URL would sit in storage and show in the options page; a
 * Collector authenticates the sender otherwise, docs/deployment.md). A URL whose
 * path is `/` gets the OTLP/HTTP logs path `/v1/logs` (OTLP specification,
 * "OTLP/HTTP Request": the default URL path for logs); any other path is used as is.
 *
 * The encoding is either of OTLP/HTTP's two (OTLP specification, "Binary Protobuf
 * Encoding" and "JSON Protobuf Encoding"); JSON unless set, docs/deployment.md
 * "Encoding" says why.
 */

/** The OTLP/HTTP default path of the logs signal. */
export const OTLP_LOGS_PATH = '/v1/logs';
/** Longest endpoint accepted (characters). */
const MAX_ENDPOINT_LENGTH = 2048;

/** OTLP/HTTP's encodings: binary protobuf or the JSON mapping of the same messages. */
export const OTLP_ENCODINGS = ['json', 'protobuf'] as const;
export type OtlpEncoding = (typeof OTLP_ENCODINGS)[number];
/**
 * JSON: what the export has sent since it was built (receivers set up for it keep
 * working), and what an administrator can read in the browser's network panel to
 * check that no text leaves. A Collector's OTLP receiver takes both.
 */
export const DEFAULT_OTLP_ENCODING: OtlpEncoding = 'json';

/** The request's Content-Type per encoding (OTLP specification, "OTLP/HTTP Request"). */
export const OTLP_CONTENT_TYPES: Record<OtlpEncoding, string> = {
  json: 'application/json',
  protobuf: 'application/x-protobuf',
};

/** The encoding named by `value`, or undefined when it names none (no coercion). */
export function parseOtlpEncoding(value: unknown): OtlpEncoding | undefined {
  return OTLP_ENCODINGS.find((known) => known === value);
}

/** The endpoint to POST to, or undefined when `value` is not an acceptable endpoint. */
export function parseOtlpEndpoint(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const text = value.trim();
  if (text === '' || text.length > MAX_ENDPOINT_LENGTH || !URL.canParse(text)) return undefined;
  const url = new URL(text);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  if (url.username !== '' || url.password !== '') return undefined;
  url.hash = '';
  if (url.pathname === '/') url.pathname = OTLP_LOGS_PATH;
  return url.href;
}

/** The host permission pattern the endpoint needs (`optional_host_permissions`). */
export function endpointPermissionPattern(endpoint: string): string {
  const url = new URL(endpoint);
  return `${url.protocol}//${url.hostname}/*`;
}

/** Where the endpoint in force comes from. */
export type EndpointSource = 'policy' | 'person';

export interface EndpointInForce {
  endpoint: string;
  source: EndpointSource;
  encoding: OtlpEncoding;
}

/**
 * The organisation's endpoint wins over the person's, and its encoding over the
 * person's, each on its own (issue 21 §1: managed values win). `managedEncoding`
 * is already parsed; `ownEncoding` is whatever storage holds (a bad value: default).
 */
export function endpointInForce(
  managed: string | undefined,
  own: unknown,
  managedEncoding?: OtlpEncoding,
  ownEncoding?: unknown,
): EndpointInForce | undefined {
  const encoding = managedEncoding ?? parseOtlpEncoding(ownEncoding) ?? DEFAULT_OTLP_ENCODING;
  if (managed !== undefined) return { endpoint: managed, source: 'policy', encoding };
  const endpoint = parseOtlpEndpoint(own);
  return endpoint === undefined ? undefined : { endpoint, source: 'person', encoding };
}
