import type { SiteSettings } from '../../protocol/settings-schema.ts';
import { t } from '../i18n.ts';
import { LockedBadge } from '../locked-badge.tsx';
import { HostAddForm } from './host-add-form.tsx';

export interface SitesSectionProps {
  sites: Record<string, SiteSettings>;
  /** Sites the extension guards by default: they can be switched off, not removed. */
  isDefault: (site: string) => boolean;
  disabled: boolean;
  /** Issue 21 §1: the organisation's policy decides whether this site is on. */
  isLocked: (site: string) => boolean;
  onAdd: (site: string) => void;
  onToggle: (site: string, enabled: boolean) => void;
  onRemove: (site: string) => void;
}

/** The sites the guard knows, each switchable and removable, and a field to add one. */
export function SitesSection(props: SitesSectionProps) {
  const { sites, isDefault, disabled, isLocked, onAdd, onToggle, onRemove } = props;
  const names = Object.keys(sites).sort();
  return (
    <section aria-labelledby="csg-sites-title">
      <h2 id="csg-sites-title">{t('options_sites_title')}</h2>
      <p class="csg-muted">{t('options_sites_help')}</p>
      {names.length === 0 ? <p class="csg-muted">{t('options_sites_empty')}</p> : null}
      <ul class="csg-rows" data-testid="sites">
        {names.map((site) => {
          const enabled = sites[site]?.enabled === true;
          const locked = isLocked(site);
          return (
            <li key={site} data-site={site}>
              <label class="csg-check">
                <input
                  type="checkbox"
                  checked={enabled}
                  disabled={disabled || locked}
                  aria-describedby={locked ? `csg-site-locked-${site}` : undefined}
                  data-testid="site-enabled"
                  onChange={() => onToggle(site, !enabled)}
                />
                <span class="csg-mono">{site}</span>
              </label>
              {locked ? <LockedBadge id={`csg-site-locked-${site}`} /> : null}
              {locked ? null : isDefault(site) ? (
                <span class="csg-muted">{t('options_site_default')}</span>
              ) : (
                <button
                  type="button"
                  disabled={disabled}
                  aria-label={t('options_remove_named', site)}
                  data-testid="site-remove"
                  onClick={() => onRemove(site)}
                >
                  {t('options_remove')}
                </button>
              )}
            </li>
          );
        })}
      </ul>
      <HostAddForm name="site" label={t('options_site_add_label')} onAdd={onAdd} />
    </section>
  );
}
