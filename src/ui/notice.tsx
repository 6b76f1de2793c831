import type { ComponentChildren } from 'preact';

export interface NoticeProps {
  tone: 'info' | 'error';
  testId?: string;
  children: ComponentChildren;
}

/** A message the person should notice; errors are announced at once by screen readers. */
export function Notice({ tone, testId, children }: NoticeProps) {
  return (
    <p
      class={`csg-notice csg-notice-${tone}`}
      role={tone === 'error' ? 'alert' : 'status'}
      data-testid={testId}
    >
      {children}
    </p>
  );
}
