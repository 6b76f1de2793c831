import { t } from '../i18n.ts';
import { LockedBadge } from '../locked-badge.tsx';
import { HostAddForm } from './host-add-form.tsx';

export interface ImageHostsSectionProps {
  hosts: readonly string[];
  disabled: boolean;
  /** Issue 21 §1: the organisation sets the list; the person can neither add nor remove. */
  locked: boolean;
  onAdd: (host: string) => void;
  onRemove: (host: string) => void;
}

/** Hosts (and their subdomains) that Markdown images in answers may load from. */
export function ImageHostsSection(props: ImageHostsSectionProps) {
  const { hosts, disabled, locked, onAdd, onRemove } = props;
  return (
    <section aria-labelledby="csg-images-title">
      <h2 id="csg-images-title">{t('options_images_title')}</h2>
      <p class="csg-muted">{t('options_images_help')}</p>
      {locked ? <LockedBadge /> : null}
      {hosts.length === 0 ? <p class="csg-muted">{t('options_images_empty')}</p> : null}
      <ul class="csg-rows" data-testid="image-hosts">
        {hosts.map((host) => (
          <li key={host} data-host={host}>
            <span class="csg-mono">{host}</span>
            <button
              type="button"
              disabled={disabled || locked}
              aria-label={t('options_remove_named', host)}
              data-testid="image-host-remove"
              onClick={() => onRemove(host)}
            >
              {t('options_remove')}
            </button>
          </li>
        ))}
      </ul>
      {locked ? null : (
        <HostAddForm name="image-host" label={t('options_image_add_label')} onAdd={onAdd} />
      )}
    </section>
  );
}
