// The issue list's search syntax, Sentry's: terms such as `is:resolved`, `level:error`, `browser:"Chrome 120"`,
// `!environment:staging`, `release:[1.0,1.1]`, `url:*checkout*`, and free text for the rest. Pure and zod-free: the
// REST list and the dashboard's search box parse with this one function.
import { type EventLevel, eventLevels } from './level';
import { type IssueStatus, issueStatuses } from './triage';

/**
 * A term's value: exact text, or a pattern in which each unescaped `*` matches any run of characters, kept as the
 * literal pieces between the stars (`a*b` -> ['a', 'b'], `*` -> ['', '']).
 */
export type SearchValue = { match: 'exact'; text: string } | { match: 'pattern'; pieces: string[] };

/** What `is:` takes once `archived` is read as Sentry means it, `ignored`. */
export type IsValue = IssueStatus | 'assigned' | 'unassigned';
export const isValues = [...issueStatuses, 'archived', 'assigned', 'unassigned'] as const;

/** `me`, `none`, or a member's e-mail address, lower-cased as accounts keep it. */
export type AssigneeValue = 'me' | 'none' | `${string}@${string}`;

/** `handled` values, Sentry's tag's: `error.handled:true` and `error.unhandled:false` read as `yes`. */
export type HandledValue = 'yes' | 'no';

/**
 * One term of a search. A term with several values (`key:[a,b]`) holds when any of them does; `negated` (`!key:...`)
 * turns that round. `raw` is the term as typed, for a chip or a message.
 */
export type SearchTerm = { raw: string } & (
  | { key: 'is'; negated: boolean; values: IsValue[] }
  | { key: 'assigned'; negated: boolean; values: AssigneeValue[] }
  | { key: 'level'; negated: boolean; values: EventLevel[] }
  | { key: 'release' | 'environment'; negated: boolean; values: SearchValue[] }
  | { key: 'handled'; negated: boolean; values: HandledValue[] }
  /** Tag keys; `release` and `environment` name those facets (`tags[release]` is a tag). */
  | { key: 'has'; negated: boolean; tags: string[] }
  | { key: 'tag'; tag: string; negated: boolean; values: SearchValue[] }
  /** A word, or quoted text, of the free text. */
  | { key: 'text'; text: string }
);

export type SearchParse = { ok: true; terms: SearchTerm[] } | { ok: false; message: string };

/** Keys written plainly (`browser.name`); `tags[...]` takes `:` too, as Sentry's tag keys may hold it. */
const plainKey = /^[A-Za-z0-9_.-]+$/;
const bracketKey = /^[A-Za-z0-9_.:-]+$/;
const emailLike = /^[^\s@]+@[^\s@]+$/;
const isSpace = (char: string | undefined) => char !== undefined && /\s/.test(char);

class SearchSyntaxError extends Error {}

/** The term that starts at `start` as typed, up to the whitespace after `end` (or the end of q), for a message. */
function termAt(q: string, start: number, end = start): string {
  const space = q.slice(end).search(/\s/);
  return q.slice(start, space < 0 ? q.length : end + space);
}

/**
 * A fault of the term at `start`, named up to the whitespace after `end`; an unclosed quote or bracket (`end` 'rest')
 * takes the rest of q in with it.
 */
const fault = (q: string, start: number, reason: string, end: number | 'rest' = start) =>
  new SearchSyntaxError(`${end === 'rest' ? q.slice(start) : termAt(q, start, end)}: ${reason}`);

/** `a, b or c`, for messages. */
const choices = (items: readonly string[]) => `${items.slice(0, -1).join(', ')} or ${items.at(-1)}`;

/**
 * Reads one value from `start`: quoted (`"a b"`, with `\"` and `\\`), or unquoted up to whitespace or one of `stops`.
 * In both, `*` is a wildcard and `\*` a literal star. Returns the literal pieces between wildcards and where it ended.
 */
function readValue(q: string, start: number, stops: string, termStart: number): { pieces: string[]; end: number } {
  const pieces = [''];
  const quoted = q[start] === '"';
  let i = quoted ? start + 1 : start;
  for (;;) {
    const char = q[i];
    if (char === undefined) {
      if (quoted) throw fault(q, termStart, 'unclosed quote', 'rest');
      break;
    }
    if (quoted ? char === '"' : isSpace(char) || stops.includes(char)) {
      if (quoted) i++;
      break;
    }
    if (!quoted && char === '"') throw fault(q, termStart, 'put the whole value in quotes');
    const next = q[i + 1];
    if (char === '\\' && (next === '*' || next === '\\' || (quoted && next === '"'))) {
      pieces[pieces.length - 1] += next;
      i += 2;
    } else if (char === '*') {
      pieces.push('');
      i++;
    } else {
      pieces[pieces.length - 1] += char;
      i++;
    }
  }
  return { pieces, end: i };
}

const toValue = (pieces: string[]): SearchValue =>
  pieces.length === 1 ? { match: 'exact', text: pieces[0] as string } : { match: 'pattern', pieces };

/** The values of `key:value`, `key:"a b"` or `key:[a, "b c"]` from `start`, and where the term ended. */
function readValues(q: string, start: number, termStart: number): { values: SearchValue[]; end: number } {
  if (q[start] !== '[') {
    const { pieces, end } = readValue(q, start, '', termStart);
    return { values: [toValue(pieces)], end };
  }
  // No ] anywhere after: the list is unclosed, whatever else is wrong inside it.
  if (q.indexOf(']', start) < 0) throw fault(q, termStart, 'unclosed [', 'rest');
  const values: SearchValue[] = [];
  let i = start + 1;
  for (;;) {
    while (isSpace(q[i])) i++;
    if (i >= q.length) throw fault(q, termStart, 'unclosed [', 'rest');
    const { pieces, end } = readValue(q, i, ',]', termStart);
    if (end === i) throw fault(q, termStart, 'an empty value in the list', i);
    values.push(toValue(pieces));
    i = end;
    while (isSpace(q[i])) i++;
    if (q[i] === ']') return { values, end: i + 1 };
    if (i >= q.length) throw fault(q, termStart, 'unclosed [', 'rest');
    if (q[i] !== ',') throw fault(q, termStart, 'values in a list are separated by commas', i);
    i++;
  }
}

/** Values that must be typed exactly (no wildcard), checked against a set of choices. */
function exactChoices<T extends string>(
  values: SearchValue[],
  allowed: readonly T[],
  fail: (text: string) => string,
): T[] {
  return values.map((value) => {
    const text = value.match === 'exact' ? value.text : value.pieces.join('*');
    if (value.match !== 'exact' || !(allowed as readonly string[]).includes(text))
      throw new SearchSyntaxError(fail(text));
    return text as T;
  });
}

/** The term for `key` (a built-in key, or a tag's unless `tagForm`) with its values. */
function termFor(key: string, tagForm: boolean, negated: boolean, values: SearchValue[], raw: string): SearchTerm {
  const texts = values.map((value) => (value.match === 'exact' ? value.text : value.pieces.join('*')));
  if (texts.some((text) => text === '')) throw new SearchSyntaxError(`${raw}: ${key} has no value`);
  if (tagForm) return { raw, key: 'tag', tag: key, negated, values };
  switch (key) {
    case 'is': {
      const found = exactChoices(
        values,
        isValues,
        (text) => `${raw}: is:${text} is unknown; is: takes ${choices(isValues)}`,
      );
      return { raw, key, negated, values: found.map((value) => (value === 'archived' ? 'ignored' : value)) };
    }
    case 'assigned':
      return {
        raw,
        key,
        negated,
        values: values.map((value, index) => {
          const text = texts[index] as string;
          if (value.match === 'exact' && (text === 'me' || text === 'none' || emailLike.test(text)))
            return text.toLowerCase() as AssigneeValue;
          throw new SearchSyntaxError(`${raw}: assigned: takes me, none or a member’s e-mail address`);
        }),
      };
    case 'level':
      return {
        raw,
        key,
        negated,
        values: exactChoices(values, eventLevels, () => `${raw}: level: takes ${choices(eventLevels)}`),
      };
    case 'release':
    case 'environment':
      return { raw, key, negated, values };
    case 'handled':
      return {
        raw,
        key,
        negated,
        values: exactChoices(values, ['yes', 'no'] as const, () => `${raw}: handled: takes yes or no`),
      };
    case 'error.handled':
    case 'error.unhandled': {
      const booleans = exactChoices(values, ['true', 'false'] as const, () => `${raw}: ${key}: takes true or false`);
      const yes = key === 'error.handled' ? 'true' : 'false';
      return { raw, key: 'handled', negated, values: booleans.map((value) => (value === yes ? 'yes' : 'no')) };
    }
    case 'has':
      return {
        raw,
        key,
        negated,
        tags: values.map((value, index) => {
          const text = texts[index] as string;
          if (value.match !== 'exact' || !plainKey.test(text))
            throw new SearchSyntaxError(`${raw}: has: takes a tag’s key (letters, digits, _, . and -)`);
          return text;
        }),
      };
    default:
      return { raw, key: 'tag', tag: key, negated, values };
  }
}

/**
 * The terms of `q`, in the order typed, or a message that names the first term that cannot be read: an unknown `is:`
 * value, a term with no value, an unclosed quote or bracket, a key with characters no key has. Free text words are
 * terms of their own (`key: 'text'`); a word with a colon is a term, so free text with a colon goes in quotes.
 */
export function parseSearch(q: string): SearchParse {
  const terms: SearchTerm[] = [];
  let i = 0;
  try {
    while (i < q.length) {
      if (isSpace(q[i])) {
        i++;
        continue;
      }
      const start = i;
      if (q[i] === '"') {
        const { pieces, end } = readValue(q, i, '', start);
        if (end < q.length && !isSpace(q[end])) throw fault(q, start, 'text right after a closing quote', end);
        // Quoted free text is matched as typed, stars included: the text search has no wildcards.
        const text = pieces.join('*');
        if (text.trim() !== '') terms.push({ raw: q.slice(start, end), key: 'text', text });
        i = end;
        continue;
      }
      const negated = q[i] === '!';
      const keyStart = negated ? i + 1 : i;
      const wordEnd = start + termAt(q, start).length;
      let key: string;
      let tagForm = false;
      let valueStart: number;
      if (q.startsWith('tags[', keyStart)) {
        const close = q.indexOf(']', keyStart);
        if (close < 0 || close > wordEnd) throw fault(q, start, 'unclosed [');
        key = q.slice(keyStart + 'tags['.length, close);
        if (!bracketKey.test(key)) throw fault(q, start, 'a tag’s key is letters, digits, _, ., : and -');
        if (q[close + 1] !== ':') throw fault(q, start, `tags[${key}] needs a :value`);
        tagForm = true;
        valueStart = close + 2;
      } else {
        const colon = q.indexOf(':', keyStart);
        if (colon < 0 || colon >= wordEnd) {
          // A word of free text, '!' and all.
          const word = q.slice(start, wordEnd);
          terms.push({ raw: word, key: 'text', text: word });
          i = wordEnd;
          continue;
        }
        key = q.slice(keyStart, colon);
        if (!plainKey.test(key))
          throw fault(q, start, 'a key is letters, digits, _, . and - (put free text with a colon in quotes)');
        valueStart = colon + 1;
      }
      if (valueStart >= q.length || isSpace(q[valueStart]))
        throw fault(q, start, `${tagForm ? `tags[${key}]` : key} has no value`);
      const { values, end } = readValues(q, valueStart, start);
      if (end < q.length && !isSpace(q[end])) throw fault(q, start, 'text right after the value', end);
      terms.push(termFor(key, tagForm, negated, values, q.slice(start, end)));
      i = end;
    }
  } catch (error) {
    if (error instanceof SearchSyntaxError) return { ok: false, message: error.message };
    throw error;
  }
  return { ok: true, terms };
}

/** The free text of the terms, words joined by one space, as the issue list's substring search takes it. */
export function searchFreeText(terms: readonly SearchTerm[]): string | undefined {
  const words = terms.flatMap((term) => (term.key === 'text' ? [term.text] : []));
  return words.length > 0 ? words.join(' ') : undefined;
}
