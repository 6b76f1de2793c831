/**
 * Reads the organisation's policy from `storage.managed` for the background
 * (issue 21 §1) and reports the values it had to ignore, once per change of that
 * list (remembered in `storage.local`, so a service worker restarted every few
 * minutes does not log the same broken policy again and again).
 */
import type { AuditRecord } from '../protocol/runtime-messages.ts';
import {
  emptyManagedPolicy,
  parseManagedPolicy,
  type ManagedIssue,
  type ParsedManagedPolicy,
} from './managed-policy.ts';

/** `storage.managed` (read-only for extensions). */
export interface ManagedArea {
  get(keys?: null): Promise<Record<string, unknown>>;
}

/** Where the last reported issue list is remembered (the settings storage). */
export interface IssueMemory {
  get(key: string): Promise<Record<string, unknown>>;
  set(items: Record<string, unknown>): Promise<void>;
}

/** storage.local key of the issues last written to the audit log. */
export const MANAGED_ISSUES_KEY = 'managedPolicyIssues';
/** The rule id prefix of audit records about an ignored managed value. */
export const MANAGED_ISSUE_RULE = 'managed-policy';

/** One audit record per ignored value: where and why, never the value (DESIGN §3.7). */
export function recordsFromManagedIssues(
  issues: readonly ManagedIssue[],
  time: number,
): AuditRecord[] {
  return issues.map((issue) => ({
    time,
    site: '',
    tabId: -1,
    conversationId: '',
    turnId: '',
    streamId: '',
    direction: 'in',
    format: '',
    rule: `${MANAGED_ISSUE_RULE}/${issue.field}`,
    kind: 'error',
    action: 'error',
    start: 0,
    end: 0,
    length: 0,
    digest: '',
    pack: issue.problem,
  }));
}

export class ManagedPolicySource {
  /** Reports one after the other, so two reads at once log a change once. */
  private reporting: Promise<void> = Promise.resolve();

  constructor(
    private readonly area: ManagedArea | undefined,
    private readonly memory: IssueMemory,
    private readonly onNewIssues: (issues: ManagedIssue[]) => void,
  ) {}

  /**
   * The current policy. An area that cannot be read (Firefox rejects when no
   * policy names the extension; Chrome without a schema) is no policy at all.
   */
  async read(): Promise<ParsedManagedPolicy> {
    if (this.area === undefined) return { policy: emptyManagedPolicy(), issues: [] };
    let raw: unknown;
    try {
      raw = await this.area.get(null);
    } catch {
      return { policy: emptyManagedPolicy(), issues: [] };
    }
    const parsed = parseManagedPolicy(raw);
    this.reporting = this.reporting
      .then(() => this.reportOnce(parsed.issues))
      .catch(() => undefined);
    await this.reporting;
    return parsed;
  }

  private async reportOnce(issues: ManagedIssue[]): Promise<void> {
    const signature = JSON.stringify(issues);
    const stored = (await this.memory.get(MANAGED_ISSUES_KEY))[MANAGED_ISSUES_KEY];
    if (stored === signature) return;
    await this.memory.set({ [MANAGED_ISSUES_KEY]: signature });
    if (issues.length > 0) this.onNewIssues(issues);
  }
}
