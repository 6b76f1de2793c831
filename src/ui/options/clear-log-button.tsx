import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import { t } from '../i18n.ts';

export interface ClearLogButtonProps {
  disabled: boolean;
  onConfirm: () => void;
}

/** Clearing the audit log takes two steps: ask, then confirm (or cancel). */
export function ClearLogButton({ disabled, onConfirm }: ClearLogButtonProps) {
  const [asking, setAsking] = useState(false);
  const cancelRef = useRef<HTMLButtonElement>(null);
  // Focus moves to the safe choice, so a double Enter press does not clear the log.
  // A layout effect: it runs in the same task as the commit, so the question never
  // appears without its focus (a plain effect waits for the next frame; CI caught the gap).
  useLayoutEffect(() => {
    if (asking) cancelRef.current?.focus();
  }, [asking]);
  if (!asking) {
    return (
      <button
        type="button"
        disabled={disabled}
        data-testid="audit-clear"
        onClick={() => setAsking(true)}
      >
        {t('options_audit_clear')}
      </button>
    );
  }
  return (
    <div class="csg-confirm" role="group" aria-labelledby="csg-clear-question">
      <p id="csg-clear-question">{t('options_audit_clear_question')}</p>
      <button
        type="button"
        class="csg-danger"
        data-testid="audit-clear-confirm"
        onClick={() => {
          setAsking(false);
          onConfirm();
        }}
      >
        {t('options_audit_clear_confirm')}
      </button>
      <button
        type="button"
        ref={cancelRef}
        data-testid="audit-clear-cancel"
        onClick={() => setAsking(false)}
      >
        {t('options_cancel')}
      </button>
    </div>
  );
}
