/**
 * Rule ids, kinds and actions in plain words for the popup and options page
 * (issue 4: "rule names in plain words"). Known rule ids have a translated name
 * in _locales (`rule_<id with _>`); an unknown id (a custom pack's) falls back
 * to a readable form of the id itself.
 */
import type { AuditRecord } from '../protocol/runtime-messages.ts';
import type { Translate } from './i18n.ts';

/** The _locales key of a rule's readable name (message names allow [A-Za-z0-9_@] only). */
export function ruleNameKey(id: string): string {
  return `rule_${id.replace(/[^A-Za-z0-9]/g, '_')}`;
}

/** Abbreviations common in rule ids, written the way people read them. */
const ABBREVIATIONS = new Set([
  'ad',
  'api',
  'aws',
  'gcp',
  'html',
  'iban',
  'id',
  'jwt',
  'pat',
  'pem',
  'pgp',
  'sas',
  'ssh',
  'ssn',
  'url',
  'zh',
]);

/**
 * `aws-secret-access-key` → `AWS secret access key`: words split on - _ . and spaces,
 * known abbreviations upper-cased, the first word capitalised.
 */
export function readableId(id: string): string {
  const words = id
    .split(/[-_.\s]+/)
    .filter((word) => word.length > 0)
    .map((word) => (ABBREVIATIONS.has(word.toLowerCase()) ? word.toUpperCase() : word));
  const text = words.join(' ');
  if (text.length === 0) return id;
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** The plain-words name of a rule: its translation when known, else a readable id. */
export function ruleName(id: string, translate: Translate): string {
  const key = ruleNameKey(id);
  const name = translate(key);
  return name === key || name === '' ? readableId(id) : name;
}

/** The plain-words name of a rule kind (`secret`, `pii`, … or `error`). */
export function kindName(kind: AuditRecord['kind'], translate: Translate): string {
  const key = `kind_${kind}`;
  const name = translate(key);
  return name === key || name === '' ? readableId(kind) : name;
}

/** What happened, as a past participle: `redact` → "redacted", `block` → "blocked", … */
export function actionName(action: AuditRecord['action'] | 'hold', translate: Translate): string {
  const key = `action_${action.replace(/-/g, '_')}`;
  const name = translate(key);
  return name === key || name === '' ? readableId(action) : name;
}

/**
 * The _locales keys of the wire formats' plain names (issue 18: the popup's answer
 * counts), one per format a guard reports; an unknown format falls back to a readable id.
 */
export const FORMAT_NAME_KEYS: Readonly<Record<string, string>> = {
  'openai-chat': 'format_openai_chat',
  'openai-responses': 'format_openai_responses',
  anthropic: 'format_anthropic',
  ollama: 'format_ollama',
  'gemini-api': 'format_gemini_api',
  'chatgpt-web': 'format_chatgpt_web',
  'claude-web': 'format_claude_web',
  'deepseek-web': 'format_deepseek_web',
  'gemini-web': 'format_gemini_web',
  'open-webui': 'format_open_webui',
  librechat: 'format_librechat',
  lobechat: 'format_lobechat',
  'grok-web': 'format_grok_web',
  huggingchat: 'format_huggingchat',
  'le-chat': 'format_le_chat',
  'qwen-chat': 'format_qwen_chat',
  zai: 'format_zai',
  chatglm: 'format_chatglm',
  perplexity: 'format_perplexity',
  'kimi-web': 'format_kimi_web',
  'doubao-web': 'format_doubao_web',
  'yuanbao-web': 'format_yuanbao_web',
  'qianwen-web': 'format_qianwen_web',
  'big-agi': 'format_big_agi',
  copilot: 'format_copilot',
  'ai-sdk-ui': 'format_ai_sdk_ui',
  'ai-sdk-data': 'format_ai_sdk_data',
  'ai-sdk-text': 'format_ai_sdk_text',
  generic: 'format_generic',
  'plain-text': 'format_plain_text',
};

/** The plain name of a wire format (`openai-chat` → "OpenAI chat"). */
export function formatName(format: string, translate: Translate): string {
  const key = FORMAT_NAME_KEYS[format];
  const name = key === undefined ? '' : translate(key);
  return name === key || name === '' ? readableId(format) : name;
}
