import type { AuditRecord } from '../protocol/runtime-messages.ts';
import { t } from './i18n.ts';
import { actionName, kindName, ruleName } from './rule-names.ts';

export interface EventRowProps {
  record: AuditRecord;
  /** Show the site (the log spans sites; the live list is one tab). */
  showSite: boolean;
}

function timeOf(time: number): string {
  return new Date(time).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
}

/** One guard event in plain words: "Redacted · AWS access key · Secret · answer". */
export function EventRow({ record, showSite }: EventRowProps) {
  return (
    <li class="csg-event" data-action={record.action} data-rule={record.rule} data-testid="event">
      <span class="csg-event-action">{actionName(record.action, t)}</span>
      <span class="csg-event-rule">
        {/* An engine error need not name a rule: its kind says what failed. */}
        {record.rule === '' ? kindName(record.kind, t) : ruleName(record.rule, t)}
      </span>
      <span class="csg-event-meta csg-muted">
        {kindName(record.kind, t)} ·{' '}
        {t(record.direction === 'in' ? 'direction_in' : 'direction_out')} ·{' '}
        <time dateTime={new Date(record.time).toISOString()}>{timeOf(record.time)}</time>
        {showSite ? ` · ${record.site}` : ''}
      </span>
    </li>
  );
}
