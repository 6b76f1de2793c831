import { useCallback, useEffect, useState } from 'preact/hooks';
import type { ReferenceOnlyItem, ReferenceOnlyList } from '../../protocol/runtime-messages.ts';
import { t } from '../i18n.ts';
import { listReferenceOnly, setReferenceOnly } from './reference-only-client.ts';

export interface ReferenceOnlyPanelProps {
  tabId: number;
}

type PanelState = { kind: 'loading' } | { kind: 'unavailable' } | ReferenceOnlyList;

function roleName(role: string): string {
  if (role === 'user') return t('popup_reference_only_role_user');
  if (role === 'assistant') return t('popup_reference_only_role_assistant');
  return role;
}

/**
 * Issue 5 §3: the current tab's conversation messages, each with a "reference only"
 * toggle. Marking here does what the in-page control does (the tab's bridge applies
 * it); the list shown is the one the bridge answers after the change.
 */
export function ReferenceOnlyPanel({ tabId }: ReferenceOnlyPanelProps) {
  const [state, setState] = useState<PanelState>({ kind: 'loading' });
  const [busy, setBusy] = useState(false);

  const show = (answer: Awaited<ReturnType<typeof listReferenceOnly>>) => {
    setState(answer.ok && answer.value.available ? answer.value : { kind: 'unavailable' });
  };

  useEffect(() => {
    let cancelled = false;
    void listReferenceOnly(tabId).then((answer) => {
      if (!cancelled) show(answer);
    });
    return () => {
      cancelled = true;
    };
  }, [tabId]);

  const toggle = useCallback(
    (item: ReferenceOnlyItem) => {
      setBusy(true);
      void setReferenceOnly(tabId, item.index, !item.marked)
        .then(show)
        .finally(() => setBusy(false));
    },
    [tabId],
  );

  return (
    <section aria-labelledby="csg-reference-only-title" data-testid="reference-only">
      <h2 id="csg-reference-only-title">{t('popup_reference_only_title')}</h2>
      {'kind' in state ? (
        state.kind === 'loading' ? (
          <p class="csg-muted">{t('popup_loading')}</p>
        ) : (
          <p class="csg-muted" data-testid="reference-only-unavailable">
            {t('popup_reference_only_unavailable')}
          </p>
        )
      ) : state.items.length === 0 ? (
        <p class="csg-muted" data-testid="reference-only-empty">
          {t('popup_reference_only_empty')}
        </p>
      ) : (
        <>
          <p class="csg-muted">{t('popup_reference_only_hint')}</p>
          <ul class="csg-reference-only" data-testid="reference-only-list">
            {state.items.map((item) => (
              <li key={item.index} data-testid="reference-only-item" data-index={item.index}>
                <button
                  type="button"
                  class="csg-reference-toggle"
                  aria-pressed={item.marked}
                  aria-label={t('popup_reference_only_toggle', [
                    String(item.index + 1),
                    roleName(item.role),
                  ])}
                  disabled={busy}
                  data-testid="reference-only-toggle"
                  data-index={item.index}
                  onClick={() => toggle(item)}
                >
                  ⊘
                </button>
                <span class="csg-reference-role">{roleName(item.role)}</span>
                <span class="csg-reference-preview">{item.preview}</span>
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}
