/**
 * The MAIN world's check of what the bridge sends. The bridge is ours and the
 * port is private, but a malformed config must never switch the guard off: an
 * invalid message is dropped and the current (or default) config stays.
 */
import { RULE_KINDS } from '../core/rules/rule.ts';
import { PAGE_CHANNEL_VERSION, type BridgeToPage } from '../protocol/page-channel.ts';
import type {
  CompiledPageRules,
  IncomingAction,
  OutgoingAction,
  PageConfig,
} from '../protocol/settings-schema.ts';

const INCOMING: readonly IncomingAction[] = ['redact', 'block', 'flag', 'off'];
const OUTGOING: readonly OutgoingAction[] = ['redact', 'warn', 'block', 'off'];

type Fields = Record<string, unknown>;

/** Own enumerable fields only, on a prototype-less object (nothing inherited counts). */
function recordOf(value: unknown): Fields | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  return Object.assign(Object.create(null) as Fields, value);
}

function isStringList(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}

function policyOf<T extends string>(
  input: unknown,
  actions: readonly T[],
): Record<string, T> | undefined {
  const value = recordOf(input);
  if (!value) return undefined;
  const policy: Record<string, T> = {};
  for (const kind of RULE_KINDS) {
    const action = value[kind];
    if (typeof action !== 'string' || !(actions as readonly string[]).includes(action)) {
      return undefined;
    }
    policy[kind] = action as T;
  }
  return policy;
}

/**
 * The outer shape of PageConfig.compiled (two objects and the label pack's
 * scalars); what is inside the serialised packs is checked by
 * loadCompiledPack, which trusts nothing (page-guard-config.ts).
 */
function compiledOf(input: unknown): CompiledPageRules | undefined {
  const value = recordOf(input);
  const labels = recordOf(value?.labels);
  if (!value || !labels || !recordOf(value.pack) || !recordOf(labels.rules)) return undefined;
  const { name, version, minProse } = labels;
  if (typeof name !== 'string' || typeof version !== 'string') return undefined;
  if (typeof minProse !== 'number' || !Number.isSafeInteger(minProse)) return undefined;
  return {
    pack: value.pack as CompiledPageRules['pack'],
    labels: { name, version, minProse, rules: labels.rules as CompiledPageRules['pack'] },
  };
}

export function parsePageConfig(input: unknown): PageConfig | undefined {
  const value = recordOf(input);
  if (!value || value.version !== 1) return undefined;
  const incoming = policyOf(value.incoming, INCOMING);
  const outgoing = policyOf(value.outgoing, OUTGOING);
  const { allowedImageHosts, packs, disabledRules, customPacks } = value;
  const { envelopeRenderer, autoEnvelopeMinChars } = value;
  if (!incoming || !outgoing) return undefined;
  if (!isStringList(allowedImageHosts) || !isStringList(packs) || !isStringList(disabledRules)) {
    return undefined;
  }
  if (!Array.isArray(customPacks)) return undefined;
  if (envelopeRenderer !== 'json' && envelopeRenderer !== 'quote') return undefined;
  if (typeof autoEnvelopeMinChars !== 'number' || !(autoEnvelopeMinChars >= 0)) return undefined;
  // Absent is allowed here (the contract field is optional); the MAIN world then fails closed.
  const compiled = value.compiled === undefined ? undefined : compiledOf(value.compiled);
  if (value.compiled !== undefined && compiled === undefined) return undefined;
  return {
    version: 1,
    incoming: incoming as PageConfig['incoming'],
    outgoing: outgoing as PageConfig['outgoing'],
    allowedImageHosts: [...allowedImageHosts],
    packs: [...packs],
    disabledRules: [...disabledRules],
    customPacks: [...(customPacks as unknown[])],
    envelopeRenderer,
    autoEnvelopeMinChars,
    ...(compiled === undefined ? {} : { compiled }),
  };
}

/** A valid message from the bridge; undefined otherwise. */
export function parseBridgeMessage(input: unknown): BridgeToPage | undefined {
  const value = recordOf(input);
  if (!value || value.v !== PAGE_CHANNEL_VERSION) return undefined;
  switch (value.type) {
    case 'config': {
      const config = parsePageConfig(value.config);
      return config && { v: 1, type: 'config', config };
    }
    case 'send-decision': {
      const { requestId, decision } = value;
      if (typeof requestId !== 'string' || (decision !== 'send' && decision !== 'cancel')) {
        return undefined;
      }
      return { v: 1, type: 'send-decision', requestId, decision };
    }
    case 'outgoing-marks': {
      const { pasted, referenceOnly } = value;
      if (!isStringList(pasted) || !isStringList(referenceOnly)) return undefined;
      return {
        v: 1,
        type: 'outgoing-marks',
        pasted: [...pasted],
        referenceOnly: [...referenceOnly],
      };
    }
    case 'outgoing-lookup-result': {
      const { requestId, pasted, referenceOnly } = value;
      if (typeof requestId !== 'string' || !isStringList(pasted)) return undefined;
      if (!Array.isArray(referenceOnly) || !referenceOnly.every((i) => Number.isSafeInteger(i))) {
        return undefined;
      }
      return {
        v: 1,
        type: 'outgoing-lookup-result',
        requestId,
        pasted: [...pasted],
        referenceOnly: [...(referenceOnly as number[])],
      };
    }
    default:
      return undefined;
  }
}
