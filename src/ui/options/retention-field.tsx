import { useState } from 'preact/hooks';
import { t } from '../i18n.ts';
import { LockedBadge } from '../locked-badge.tsx';

export interface RetentionFieldProps {
  name: 'maxRecords' | 'maxAgeDays';
  label: string;
  value: number;
  min: number;
  max: number;
  disabled: boolean;
  /** Issue 21 §1: the organisation sets this bound. */
  locked: boolean;
  /** Returns false when the typed text was refused. */
  onCommit: (typed: string) => boolean;
}

/**
 * A whole-number retention bound, saved when the field loses focus or on Enter. The
 * parent keys it by the stored value, so a new stored value starts a fresh field.
 */
export function RetentionField({
  name,
  label,
  value,
  min,
  max,
  disabled,
  locked,
  onCommit,
}: RetentionFieldProps) {
  const [text, setText] = useState(String(value));
  const [invalid, setInvalid] = useState(false);
  const id = `csg-${name}`;
  const commit = () => {
    if (text === String(value)) return;
    setInvalid(!onCommit(text));
  };
  return (
    <div class="csg-field">
      <label for={id}>{label}</label>
      <input
        id={id}
        type="number"
        inputMode="numeric"
        min={min}
        max={max}
        step={1}
        value={text}
        disabled={disabled || locked}
        aria-invalid={invalid}
        data-testid={`retention-${name}`}
        onInput={(event) => setText(event.currentTarget.value)}
        onBlur={commit}
        onKeyDown={(event) => {
          if (event.key === 'Enter') commit();
        }}
      />
      {locked ? <LockedBadge /> : null}
      {invalid ? (
        <p class="csg-field-error" role="alert">
          {t('options_retention_invalid', [String(min), String(max)])}
        </p>
      ) : null}
    </div>
  );
}
