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
 */

/** The OTLP/HTTP default path of the logs signal. */
export const OTLP_LOGS_PATH = '/v1/logs';
/** Longest endpoint accepted (characters). */
const MAX_ENDPOINT_LENGTH = 2048;

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
}

/** The organisation's endpoint wins over the person's (issue 21 §1: managed values win). */
export function endpointInForce(
  managed: string | undefined,
  own: unknown,
): EndpointInForce | undefined {
  if (managed !== undefined) return { endpoint: managed, source: 'policy' };
  const endpoint = parseOtlpEndpoint(own);
  return endpoint === undefined ? undefined : { endpoint, source: 'person' };
}
