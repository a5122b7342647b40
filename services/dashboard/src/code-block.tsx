// A block of code or a stack trace, which may be wider or longer than its panel and so scroll on its own.
import type { ReactNode } from 'react';

/**
 * The scrolling frame is a region named `label` (a `pre` has no role that takes a name), and takes focus: a keyboard
 * scrolls only what has focus.
 */
export function CodeBlock({
  label,
  kind,
  children,
}: {
  label: string;
  kind: 'snippet' | 'stack';
  children: ReactNode;
}) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling area must be focusable for a keyboard to scroll it (WCAG 2.1.1), and Safari does not make it so by itself
    <section className="code-scroll" aria-label={label} tabIndex={0}>
      <pre className={kind}>{children}</pre>
    </section>
  );
}
