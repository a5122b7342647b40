// The issue list's search terms (domain's parseSearch) as conditions on an issue row `i`, each a named fragment. Facets
// (release, environment, handled, tag:<key>) are rows of issue_facets, whose key (app_key, facet, value, fingerprint)
// answers "has this issue been seen with this value" with one index probe per issue. For a few issues that probe is the
// way (searchFilter's probes); for every issue of the list's apps, the facet rows the terms match are read once and
// hash-joined to the issues instead, grouped by issue where a term can match several (its scan): on this project's
// 2-CPU machine a probe cost ~3 µs, 17 ms for 5,047 issues, where reading the rows and hashing them took 3.5, and
// PostgreSQL, which multiplies the selectivities of an issue's two key columns and so expects a twentieth of the
// issues to match a facet, chose probes for the second facet term.
import { type SearchTerm, type SearchValue, searchFreeText } from '@collector/domain';
import { type RawBuilder, sql } from 'kysely';

/** A LIKE pattern for a wildcard value: each piece with \, % and _ escaped, the pieces joined by %. */
export function likePattern(pieces: readonly string[]): string {
  return pieces.map((piece) => piece.replace(/[\\%_]/g, '\\$&')).join('%');
}

/**
 * `f.value` matches one of the values: exact ones by equality, patterns by LIKE. A pattern with a literal start is a
 * prefix range in the facet key where the collation allows it (the planner derives the range itself, under C as in the
 * embedded database); under other collations the probe reads the app's rows of that facet, still one key prefix.
 */
function valueMatches(values: readonly SearchValue[]): RawBuilder<boolean> {
  const exact = values.flatMap((value) => (value.match === 'exact' ? [value.text] : []));
  const alternatives: RawBuilder<boolean>[] = [];
  if (exact.length === 1) alternatives.push(sql`f.value = ${exact[0]}`);
  else if (exact.length > 1) alternatives.push(sql`f.value in (${sql.join(exact)})`);
  for (const value of values)
    if (value.match === 'pattern') alternatives.push(sql`f.value like ${likePattern(value.pieces)} escape '\\'`);
  return alternatives.length === 1
    ? (alternatives[0] as RawBuilder<boolean>)
    : sql`(${sql.join(alternatives, sql` or `)})`;
}

/** A row `f` of issue_facets is one of the facets (`release`, `handled`, `tag:browser`...), with a value that matches. */
function facetRow(facets: readonly string[], values?: readonly SearchValue[]): RawBuilder<boolean> {
  const facet =
    facets.length === 1 ? sql<boolean>`f.facet = ${facets[0]}` : sql<boolean>`f.facet in (${sql.join([...facets])})`;
  return values ? sql<boolean>`${facet} and ${valueMatches(values)}` : facet;
}

/** The terms read from issue_facets; the others are conditions on the issue's row or its assignment. */
const facetKeys = ['release', 'environment', 'handled', 'has', 'tag'] as const;
type FacetTerm = Extract<SearchTerm, { key: (typeof facetKeys)[number] }>;

/** Whether a term is read from issue_facets. */
function readsFacets(term: SearchTerm): term is FacetTerm {
  return (facetKeys as readonly string[]).includes(term.key);
}

const assignment = sql`select from issue_assignees s where s.app_key = i.app_key and s.fingerprint = i.fingerprint`;

/** The issue is assigned to the user, to anyone (`'anyone'`), or to no one (null). */
export function assignedTo(userId: string | 'anyone' | null): RawBuilder<boolean> {
  if (userId === null) return sql`not exists (${assignment})`;
  if (userId === 'anyone') return sql`exists (${assignment})`;
  return sql`exists (${assignment} and s.user_id = ${userId})`;
}

/** The issue is assigned to the user with this e-mail address (kept lower-cased, as parseSearch gives it). */
function assignedToEmail(email: string): RawBuilder<boolean> {
  return sql`exists (${assignment} and s.user_id = (select u.id from users u where u.email = ${email}))`;
}

const anyOf = (conditions: RawBuilder<boolean>[]): RawBuilder<boolean> =>
  conditions.length === 1 ? (conditions[0] as RawBuilder<boolean>) : sql`(${sql.join(conditions, sql` or `)})`;

/** What a term that is not a facet's asks of an issue, before its negation; `me`: the caller, for `assigned:me`. */
function termCondition(
  term: Exclude<SearchTerm, FacetTerm | { key: 'text' }>,
  me: string | undefined,
): RawBuilder<boolean> {
  switch (term.key) {
    case 'is': {
      const statuses = term.values.filter((value) => value !== 'assigned' && value !== 'unassigned');
      const conditions = statuses.length > 0 ? [sql<boolean>`i.status in (${sql.join(statuses)})`] : [];
      if (term.values.includes('assigned')) conditions.push(assignedTo('anyone'));
      if (term.values.includes('unassigned')) conditions.push(assignedTo(null));
      return anyOf(conditions);
    }
    case 'assigned':
      return anyOf(
        term.values.map((value) => {
          if (value === 'none') return assignedTo(null);
          if (value !== 'me') return assignedToEmail(value);
          // The route answers assigned:me from a caller who is no user (an organization token) with a 400 first.
          if (me === undefined) throw new Error('assigned:me needs the caller’s user id');
          return assignedTo(me);
        }),
      );
    case 'level':
      return sql`i.level in (${sql.join(term.values)})`;
  }
}

/** The facets a term reads: release and environment are facets of their own; every other key is a tag's. */
function facetsOf(term: FacetTerm): string[] {
  switch (term.key) {
    case 'release':
    case 'environment':
    case 'handled':
      return [term.key];
    case 'has':
      return term.tags.map((tag) => (tag === 'release' || tag === 'environment' ? tag : `tag:${tag}`));
    case 'tag':
      return [`tag:${term.tag}`];
  }
}

/** What a facet term asks of one of an issue's facet rows `f`, before its negation: the issue holds it if a row does. */
function facetCondition(term: FacetTerm): RawBuilder<boolean> {
  const facets = facetsOf(term);
  switch (term.key) {
    case 'has':
      return facetRow(facets);
    case 'handled':
      return facetRow(
        facets,
        term.values.map((text) => ({ match: 'exact', text })),
      );
    default:
      return facetRow(facets, term.values);
  }
}

/**
 * Whether a term matches at most one facet row of an issue: one facet and one exact value, a row's whole key but the
 * issue. Such a term's rows are joined to the issues as they are; the other terms' rows must be grouped by issue first.
 */
function oneRowAnIssue(term: FacetTerm): boolean {
  switch (term.key) {
    case 'has':
      return false;
    case 'handled':
      return term.values.length === 1;
    default:
      return facetsOf(term).length === 1 && term.values.length === 1 && term.values[0]?.match === 'exact';
  }
}

/** What makes a term's part of the statement's text: its key, negation and number of values (values are parameters). */
function shapeOf(term: SearchTerm): string {
  if (term.key === 'text') return 'text';
  const count = term.key === 'has' ? term.tags.length : term.values.length;
  return `${term.key}${term.negated ? '!' : ''}${count}`;
}

/** What the terms ask of an issue `i`, both ways (issue-search.ts's header): all conditions to hold. */
export interface SearchFilter {
  /** For every issue of `apps`: a join that gives `i` its facet hits (h), and the conditions, which read them. */
  scan: { join: RawBuilder<unknown>; conditions: RawBuilder<boolean>[] };
  /** For a few issues: the same conditions, facet terms as index probes. */
  probes: RawBuilder<boolean>[];
  /**
   * Whether a value is a pattern: the planner finds a pattern's prefix range in the facet key from the value itself,
   * which a prepared statement's generic plan does not know, so such a statement is better planned at each call.
   */
  patterns: boolean;
}

/**
 * The terms as conditions on an issue `i`: the free text as one case-insensitive substring of search_text (lower-cased
 * when the issue was written), each other term as itself or, negated, its opposite. `apps`: a query of the app keys
 * whose issues are scanned, whose facet rows alone are read.
 */
export function searchFilter(
  typed: readonly SearchTerm[],
  me: string | undefined,
  apps: RawBuilder<unknown>,
): SearchFilter {
  const rowConditions: RawBuilder<boolean>[] = [];
  const text = searchFreeText(typed);
  // Terms all hold together, so their order is free: one order for the same kinds of terms however they were typed
  // makes one statement text, which is prepared (a shape: issues.ts); the free text was read in typed order above.
  const terms = [...typed].sort((a, b) => shapeOf(a).localeCompare(shapeOf(b)));
  if (text !== undefined) rowConditions.push(sql`strpos(i.search_text, lower(${text})) > 0`);
  for (const term of terms) {
    if (term.key === 'text' || readsFacets(term)) continue;
    const condition = termCondition(term, me);
    rowConditions.push(term.negated ? sql`not ${condition}` : condition);
  }
  const facetTerms = terms.filter(readsFacets);
  if (facetTerms.length === 0)
    return { scan: { join: sql``, conditions: rowConditions }, probes: rowConditions, patterns: false };
  const hit = (term: FacetTerm, held: RawBuilder<boolean>) => (term.negated ? sql<boolean>`not ${held}` : held);
  const rows = facetTerms.map(facetCondition);
  // A term of one row an issue is a left join of its own (h0, h1...); the others' rows are read together and grouped
  // by issue (h). Each is a hash join over the apps' issues. Grouping rows that need none cost a fifth of the statement
  // where every issue matches (release + environment: 11.5 -> 8.9 ms in psql, docs/performance.md). Left joins, even
  // for terms that must hold: as inner joins PostgreSQL, which expects few rows to match, planned nested loops (29 ms).
  const single = facetTerms.map(oneRowAnIssue);
  const grouped = facetTerms.flatMap((_, k) => (single[k] ? [] : [k]));
  const joins = facetTerms.flatMap((_, k) =>
    single[k]
      ? [
          sql`left join (select f.app_key, f.fingerprint, true as hit from issue_facets f
        where f.app_key in (${apps}) and ${rows[k]}) ${sql.id(`h${k}`)}
        on ${sql.id(`h${k}`)}.app_key = i.app_key and ${sql.id(`h${k}`)}.fingerprint = i.fingerprint`,
        ]
      : [],
  );
  if (grouped.length > 0)
    joins.push(sql`left join (
        select f.app_key, f.fingerprint, ${sql.join(grouped.map((k) => sql`bool_or(${rows[k]}) as ${sql.id(`t${k}`)}`))}
        from issue_facets f
        where f.app_key in (${apps}) and (${sql.join(
          grouped.map((k) => rows[k] as RawBuilder<boolean>),
          sql` or `,
        )}) group by f.app_key, f.fingerprint
      ) h on h.app_key = i.app_key and h.fingerprint = i.fingerprint`);
  return {
    scan: {
      join: sql.join(joins, sql`\n`),
      conditions: [
        ...rowConditions,
        ...facetTerms.map((term, k) =>
          hit(
            term,
            single[k]
              ? sql<boolean>`coalesce(${sql.id(`h${k}`)}.hit, false)`
              : sql<boolean>`coalesce(h.${sql.id(`t${k}`)}, false)`,
          ),
        ),
      ],
    },
    probes: [
      ...rowConditions,
      ...facetTerms.map((term, k) =>
        hit(
          term,
          sql<boolean>`exists (select from issue_facets f where f.app_key = i.app_key and ${rows[k]} and f.fingerprint = i.fingerprint)`,
        ),
      ),
    ],
    patterns: facetTerms.some(
      (term) => term.key !== 'has' && term.key !== 'handled' && term.values.some((value) => value.match === 'pattern'),
    ),
  };
}
