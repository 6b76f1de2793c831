import type { AuditRecord } from '../../protocol/runtime-messages.ts';
import { EventRow } from '../event-row.tsx';
import { t } from '../i18n.ts';

export interface LiveEventsProps {
  /** Newest last, as they arrived. */
  events: readonly AuditRecord[];
  holding: boolean;
}

/** The current tab's events as they happen, newest first, and the holding indicator. */
export function LiveEvents({ events, holding }: LiveEventsProps) {
  return (
    <section aria-labelledby="csg-live-title">
      <h2 id="csg-live-title">{t('popup_live_title')}</h2>
      {holding ? (
        <p class="csg-holding" role="status" data-testid="holding">
          {t('popup_holding')}
        </p>
      ) : null}
      {events.length === 0 ? (
        <p class="csg-muted">{t('popup_live_empty')}</p>
      ) : (
        <ul class="csg-events" data-testid="live-events" aria-live="polite">
          {[...events].reverse().map((record, index) => (
            <EventRow
              key={record.id ?? `live-${events.length - index}`}
              record={record}
              showSite={false}
            />
          ))}
        </ul>
      )}
    </section>
  );
}
