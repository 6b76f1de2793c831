import { type AnswerCounts } from '../../protocol/runtime-messages.ts';
import { t } from '../i18n.ts';
import { formatName } from '../rule-names.ts';

export interface AnswersPanelProps {
  answers: AnswerCounts;
}

/**
 * Issue 18: the answers guarded on the tab's site, by a specific adapter (per format)
 * or by the generic structural adapter, and the answers that could not be decoded
 * (stopped, never shown). "Answers guarded on this site: 12 (OpenAI chat 10, generic 2)
 * · could not be decoded: 1", and what "generic" means.
 */
export function AnswersPanel({ answers }: AnswersPanelProps) {
  const formats = Object.entries(answers.adapters)
    .filter(([, count]) => count > 0)
    .sort(([a, x], [b, y]) => y - x || a.localeCompare(b));
  const parts: [string, number][] = [...formats];
  if (answers.generic > 0) parts.push(['generic', answers.generic]);
  const guarded = parts.reduce((sum, [, count]) => sum + count, 0);
  const separator = t('popup_answers_separator');
  return (
    <section class="csg-answers" data-testid="answers">
      <p class="csg-answers-summary">
        {t('popup_answers_guarded')} <strong data-testid="answers-guarded">{guarded}</strong>
        {parts.length > 0 ? (
          <>
            {' '}
            {t('popup_answers_open')}
            {parts.map(([format, count], index) => (
              <span key={format} data-testid="answers-format" data-format={format}>
                {index > 0 ? separator : ''}
                {formatName(format, t)} {count}
              </span>
            ))}
            {t('popup_answers_close')}
          </>
        ) : null}
        {' · '}
        {t('popup_answers_undecodable')}{' '}
        <strong data-testid="answers-undecodable">{answers.undecodable}</strong>
      </p>
      <p class="csg-muted csg-answers-note" data-testid="answers-generic-note">
        {t('popup_answers_generic_note')}
      </p>
    </section>
  );
}
