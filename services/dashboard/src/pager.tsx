// A list read a page at a time by cursor (the issues, one issue's events). The cursors of the pages before this one
// ride in the history entry, so the pager's Previous and the browser's Back both work, and a reload keeps them.
import type { ReactNode } from 'react';
import { navigate } from './navigation';

/** A history entry is one screen's, so one key serves every list. */
const earlierCursors = (): (string | undefined)[] => {
  const state = window.history.state as { pageCursors?: (string | undefined)[] } | null;
  return Array.isArray(state?.pageCursors) ? state.pageCursors : [];
};

/** Nothing on the only page; `children` stand between the two buttons. */
export function CursorPager({
  label,
  previousLabel,
  nextLabel,
  page,
  cursor,
  nextCursor,
  loading,
  hrefFor,
  onNext,
  children,
}: {
  label: string;
  previousLabel: string;
  nextLabel: string;
  page: number;
  /** This page's cursor; undefined on the first page. */
  cursor: string | undefined;
  nextCursor: string | null | undefined;
  loading: boolean;
  hrefFor: (cursor: string | undefined, page: number) => string;
  onNext?: () => void;
  children?: ReactNode;
}) {
  if (page === 1 && !nextCursor) return null;
  const previous = () => {
    const cursors = earlierCursors();
    // Reached by a shared link, with no earlier pages known: back to the first.
    const before = cursors.length === page - 1 ? cursors.at(-1) : undefined;
    navigate(hrefFor(before, before ? page - 1 : 1), { state: { pageCursors: before ? cursors.slice(0, -1) : [] } });
  };
  const next = () => {
    if (!nextCursor) return;
    navigate(hrefFor(nextCursor, page + 1), { state: { pageCursors: [...earlierCursors(), cursor] } });
    onNext?.();
  };
  return (
    <nav className="pager" aria-label={label}>
      <button type="button" className="button" disabled={page === 1} onClick={previous}>
        {previousLabel}
      </button>
      {children}
      <button type="button" className="button" disabled={!nextCursor || loading} onClick={next}>
        {nextLabel}
      </button>
    </nav>
  );
}
