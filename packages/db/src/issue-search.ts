// The issue list's search terms (domain's parseSearch) as conditions on an issue row `i`, each a named fragment.
// Facets (release, environment, handled, tag:<key>) are rows of issue_facets, whose key (app_key, facet, value,
// fingerprint) answers "has this issue been seen with this value" with one index probe per issue.
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

/** The issue was seen with one of the facets (`release`, `handled`, `tag:browser`...), with a value that matches. */
export function seenWith(facets: readonly string[], values?: readonly SearchValue[]): RawBuilder<boolean> {
  const facet = facets.length === 1 ? sql`f.facet = ${facets[0]}` : sql`f.facet in (${sql.join([...facets])})`;
  const value = values ? sql` and ${valueMatches(values)}` : sql``;
  return sql`exists (select from issue_facets f where f.app_key = i.app_key and ${facet}${value} and f.fingerprint = i.fingerprint)`;
}

/** The terms read from issue_facets (seenWith); the others are conditions on the issue's row or its assignment. */
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

/** What one term asks of an issue, before its negation; `me` is the caller's user id, for `assigned:me`. */
function termCondition(term: Exclude<SearchTerm, { key: 'text' }>, me: string | undefined): RawBuilder<boolean> {
  if (readsFacets(term)) return facetCondition(term);
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

/** What a facet term asks of an issue, before its negation. */
function facetCondition(term: FacetTerm): RawBuilder<boolean> {
  switch (term.key) {
    case 'release':
    case 'environment':
      return seenWith([term.key], term.values);
    case 'handled':
      return seenWith(
        ['handled'],
        term.values.map((text) => ({ match: 'exact', text })),
      );
    case 'has':
      // release and environment are facets of their own; every other key is a tag's.
      return seenWith(term.tags.map((tag) => (tag === 'release' || tag === 'environment' ? tag : `tag:${tag}`)));
    case 'tag':
      return seenWith([`tag:${term.tag}`], term.values);
  }
}

/**
 * The conditions the terms put on an issue, all to hold: the free text as one case-insensitive substring of
 * search_text (lower-cased when the issue was written), each other term as itself or, negated, its opposite.
 */
export function searchConditions(terms: readonly SearchTerm[], me: string | undefined): RawBuilder<boolean>[] {
  const conditions: RawBuilder<boolean>[] = [];
  const text = searchFreeText(terms);
  if (text !== undefined) conditions.push(sql`strpos(i.search_text, lower(${text})) > 0`);
  for (const term of terms) {
    if (term.key === 'text') continue;
    const condition = termCondition(term, me);
    conditions.push(term.negated ? sql`not ${condition}` : condition);
  }
  return conditions;
}
