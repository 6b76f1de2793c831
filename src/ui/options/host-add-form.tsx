import { useState } from 'preact/hooks';
import { normaliseHost } from '../host-input.ts';
import { t } from '../i18n.ts';

export interface HostAddFormProps {
  /** Distinguishes the forms of one page (ids, test ids). */
  name: string;
  label: string;
  /** Called synchronously in the submit handler (permission requests need the gesture). */
  onAdd: (host: string) => void;
}

/** A labelled host field and an Add button; refuses what is not a host name. */
export function HostAddForm({ name, label, onAdd }: HostAddFormProps) {
  const [text, setText] = useState('');
  const [invalid, setInvalid] = useState(false);
  const inputId = `csg-${name}-input`;
  const errorId = `csg-${name}-error`;
  return (
    <form
      class="csg-inline-form"
      data-testid={`${name}-form`}
      onSubmit={(event) => {
        event.preventDefault();
        const host = normaliseHost(text);
        if (host === null) return setInvalid(true);
        setInvalid(false);
        setText('');
        onAdd(host);
      }}
    >
      <label for={inputId}>{label}</label>
      <input
        id={inputId}
        type="text"
        inputMode="url"
        autoComplete="off"
        spellcheck={false}
        value={text}
        aria-invalid={invalid}
        aria-describedby={invalid ? errorId : undefined}
        data-testid={`${name}-input`}
        onInput={(event) => setText(event.currentTarget.value)}
      />
      <button type="submit" data-testid={`${name}-add`}>
        {t('options_add')}
      </button>
      {invalid ? (
        <p id={errorId} class="csg-field-error" role="alert">
          {t('options_host_invalid')}
        </p>
      ) : null}
    </form>
  );
}
