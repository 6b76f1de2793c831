import { t } from '../i18n.ts';

export interface CountersPanelProps {
  tab: number;
  today: number;
}

/** Interventions on this tab and today (all sites). */
export function CountersPanel({ tab, today }: CountersPanelProps) {
  return (
    <dl class="csg-counters">
      <div>
        <dt>{t('popup_counter_tab')}</dt>
        <dd data-testid="counter-tab">{tab}</dd>
      </div>
      <div>
        <dt>{t('popup_counter_today')}</dt>
        <dd data-testid="counter-today">{today}</dd>
      </div>
    </dl>
  );
}
