import {
  AUDIT_ACTIONS,
  AUDIT_KINDS,
  type AuditFilter,
  parseActionChoice,
  parseKindChoice,
} from './audit-filter.ts';
import { t } from './i18n.ts';
import { actionName, kindName } from './rule-names.ts';

export interface AuditFiltersProps {
  filter: AuditFilter;
  onChange: (filter: AuditFilter) => void;
}

/** Kind and action filters of an audit log view, as labelled selects. */
export function AuditFilters({ filter, onChange }: AuditFiltersProps) {
  return (
    <div class="csg-filters">
      <label>
        {t('filter_kind')}
        <select
          data-testid="filter-kind"
          value={filter.kind}
          onChange={(event) =>
            onChange({ ...filter, kind: parseKindChoice(event.currentTarget.value) })
          }
        >
          <option value="all">{t('filter_all')}</option>
          {AUDIT_KINDS.map((kind) => (
            <option key={kind} value={kind}>
              {kindName(kind, t)}
            </option>
          ))}
        </select>
      </label>
      <label>
        {t('filter_action')}
        <select
          data-testid="filter-action"
          value={filter.action}
          onChange={(event) =>
            onChange({ ...filter, action: parseActionChoice(event.currentTarget.value) })
          }
        >
          <option value="all">{t('filter_all')}</option>
          {AUDIT_ACTIONS.map((action) => (
            <option key={action} value={action}>
              {actionName(action, t)}
            </option>
          ))}
        </select>
      </label>
    </div>
  );
}
