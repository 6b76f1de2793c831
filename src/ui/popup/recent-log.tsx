import type { AuditRecord } from '../../protocol/runtime-messages.ts';
import type { AuditFilter } from '../audit-filter.ts';
import { AuditFilters } from '../audit-filters.tsx';
import { EventRow } from '../event-row.tsx';
import { t } from '../i18n.ts';

export interface RecentLogProps {
  /** Newest first, already filtered. */
  records: readonly AuditRecord[] | 'unreachable';
  filter: AuditFilter;
  onFilterChange: (filter: AuditFilter) => void;
}

/** The newest audit records of every site, with kind and action filters. */
export function RecentLog({ records, filter, onFilterChange }: RecentLogProps) {
  return (
    <section aria-labelledby="csg-log-title">
      <h2 id="csg-log-title">{t('popup_log_title')}</h2>
      <AuditFilters filter={filter} onChange={onFilterChange} />
      {records === 'unreachable' ? (
        <p class="csg-muted">{t('background_unreachable')}</p>
      ) : records.length === 0 ? (
        <p class="csg-muted" data-testid="log-empty">
          {t('popup_log_empty')}
        </p>
      ) : (
        <ul class="csg-events" data-testid="recent-log">
          {records.map((record, index) => (
            <EventRow key={record.id ?? `log-${index}`} record={record} showSite={true} />
          ))}
        </ul>
      )}
    </section>
  );
}
