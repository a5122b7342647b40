// A table of rows under one row of column headings, in a frame that scrolls sideways when the table is wider than
// its panel. Given the class `responsive`, a phone shows each row as a card whose cells say their data-label.
import type { ReactNode } from 'react';

/**
 * A column's heading: its name; or, with `hidden`, a name for screen readers only (a column of buttons); or a
 * `heading` of its own (a select-all box), the name then only telling the columns apart.
 */
export type Column = string | { name: string; hidden?: boolean; className?: string; heading?: ReactNode };

export function Table({
  className,
  columns,
  caption,
  busy,
  children,
}: {
  className?: string;
  columns: Column[];
  /** For screen readers only: the page says what the table holds in its own words. */
  caption?: string;
  busy?: boolean;
  children: ReactNode;
}) {
  return (
    <div className="table-scroll" aria-busy={busy}>
      <table className={className}>
        {caption && <caption className="visually-hidden">{caption}</caption>}
        <thead>
          <tr>
            {columns.map((column) => {
              const {
                name,
                hidden,
                className: headingClass,
                heading,
              }: Exclude<Column, string> = typeof column === 'string' ? { name: column } : column;
              return (
                <th key={name} scope="col" className={headingClass}>
                  {heading ?? (hidden ? <span className="visually-hidden">{name}</span> : name)}
                </th>
              );
            })}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}
