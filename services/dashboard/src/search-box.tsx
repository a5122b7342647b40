// The issue list's search box. What is typed is read by the API's own parser (domain's parseSearch), so a term the
// box shows as a chip is a term the list filters by, and a query the API would refuse is refused here with its words.
// Keys and values are suggested from the app's facets in the ARIA combobox pattern: an input that owns a listbox,
// arrow keys to move through it, Enter to pick, Escape to close.
import { eventLevels } from '@collector/domain/level';
import { isValues, parseSearch, type SearchTerm } from '@collector/domain/search';
import { issueSearchMaxChars } from '@collector/domain/triage';
import { type KeyboardEvent, useId, useLayoutEffect, useRef, useState } from 'react';
import { flushSync } from 'react-dom';
import type { IssueFacets } from './api';

type KeyTerm = Exclude<SearchTerm, { key: 'text' }>;

/** The search's own keys, with what each takes: suggested before the app's tag keys. */
const builtInKeys = [
  { key: 'is', hint: 'status or assignment' },
  { key: 'level', hint: 'event level' },
  { key: 'assigned', hint: 'me, none or an e-mail' },
  { key: 'release', hint: 'release' },
  { key: 'environment', hint: 'environment' },
  { key: 'handled', hint: 'yes or no' },
  { key: 'has', hint: 'has a tag' },
] as const;

/** Keys the parser reads as its own: a tag with one of these names is searched as tags[name]. */
const reservedKeys = new Set<string>([...builtInKeys.map((each) => each.key), 'error.handled', 'error.unhandled']);
const plainKey = /^[A-Za-z0-9_.-]+$/;
const bracketKey = /^[A-Za-z0-9_.:-]+$/;

/** How many suggestions the list shows at once; the facets hold at most 100 releases, 50 tag keys. */
const MAX_SUGGESTIONS = 50;

interface Suggestion {
  label: string;
  hint?: string;
  /** What replaces the term being typed. */
  insert: string;
  /** A whole term (`key:value`), which becomes a chip and is searched; else a key, whose values come next. */
  complete: boolean;
}

/** The query the chips and the typed text make, in that order: the terms all hold whatever their order. */
const joinQuery = (chips: readonly KeyTerm[], text: string) =>
  [...chips.map((chip) => chip.raw), text.trim()].filter(Boolean).join(' ');

/** Splits a query into chips (its key terms) and text (its free text, as typed); a malformed one stays text. */
function split(q: string): { chips: KeyTerm[]; text: string } {
  const parsed = parseSearch(q);
  if (!parsed.ok) return { chips: [], text: q };
  const chips = parsed.terms.filter((term): term is KeyTerm => term.key !== 'text');
  const text = parsed.terms.flatMap((term) => (term.key === 'text' ? [term.raw] : [])).join(' ');
  return { chips, text };
}

/** Where the term typed last starts: after the last whitespace outside quotes and [lists], as the parser reads it. */
function lastTermStart(text: string): number {
  let start = 0;
  let quoted = false;
  let listed = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i] as string;
    if (quoted && char === '\\') i++;
    else if (char === '"') quoted = !quoted;
    else if (!quoted && char === '[') listed = true;
    else if (!quoted && char === ']') listed = false;
    else if (!quoted && !listed && /\s/.test(char)) start = i + 1;
  }
  return start;
}

/** A value as the parser reads it back: `*` and `\` escaped, quoted when it holds a space or a quote. */
function formatValue(value: string): string {
  const escaped = value.replace(/[\\*]/g, '\\$&');
  return /[\s"]/.test(value) || value.startsWith('[') ? `"${escaped.replace(/"/g, '\\"')}"` : escaped;
}

/** A tag's key as a search term writes it, or undefined for a key no term can name. */
function writtenTagKey(key: string): string | undefined {
  if (plainKey.test(key) && !reservedKeys.has(key)) return key;
  return bracketKey.test(key) ? `tags[${key}]` : undefined;
}

const startsWith = (text: string, prefix: string) => text.toLowerCase().startsWith(prefix.toLowerCase());

/** The values suggested after `key:`: the search's own for its keys, the facets' for release, environment and tags. */
function valuesFor(key: string, tagForm: boolean, facets: IssueFacets | undefined): readonly string[] {
  const tagValues = facets?.tags.find((tag) => tag.key === key)?.values ?? [];
  if (tagForm) return tagValues;
  switch (key) {
    case 'is':
      return isValues;
    case 'level':
      return eventLevels;
    case 'handled':
      return ['yes', 'no'];
    case 'assigned':
      return ['me', 'none'];
    case 'error.handled':
    case 'error.unhandled':
      return ['true', 'false'];
    case 'release':
      return facets?.releases ?? [];
    case 'environment':
      return facets?.environments ?? [];
    case 'has':
      return facets?.tags.flatMap((tag) => (plainKey.test(tag.key) ? [tag.key] : [])) ?? [];
    default:
      return tagValues;
  }
}

/** What to suggest for the term being typed: keys until its colon, then that key's values. */
function suggestionsFor(term: string, facets: IssueFacets | undefined): Suggestion[] {
  // Quoted free text, and lists of values, are typed by hand.
  if (term.startsWith('"')) return [];
  const negation = term.startsWith('!') ? '!' : '';
  const body = term.slice(negation.length);
  let key: string;
  let written: string;
  let tagForm = false;
  let valueText: string;
  if (body.startsWith('tags[')) {
    const close = body.indexOf(']');
    if (close < 0 || body[close + 1] !== ':') return [];
    key = body.slice('tags['.length, close);
    written = body.slice(0, close + 1);
    tagForm = true;
    valueText = body.slice(close + 2);
  } else {
    const colon = body.indexOf(':');
    if (colon < 0) {
      const keys: Suggestion[] = builtInKeys
        .filter((each) => startsWith(each.key, body))
        .map((each) => ({
          label: `${negation}${each.key}:`,
          hint: each.hint,
          insert: `${negation}${each.key}:`,
          complete: false,
        }));
      for (const tag of facets?.tags ?? []) {
        const name = writtenTagKey(tag.key);
        if (name !== undefined && (startsWith(tag.key, body) || startsWith(name, body)))
          keys.push({ label: `${negation}${name}:`, hint: 'tag', insert: `${negation}${name}:`, complete: false });
      }
      return keys.slice(0, MAX_SUGGESTIONS);
    }
    key = body.slice(0, colon);
    written = key;
    valueText = body.slice(colon + 1);
  }
  if (valueText.startsWith('[')) return [];
  const prefix = valueText.startsWith('"') ? valueText.slice(1) : valueText;
  return valuesFor(key, tagForm, facets)
    .filter((value) => value !== '' && startsWith(value, prefix))
    .slice(0, MAX_SUGGESTIONS)
    .map((value) => ({ label: value, insert: `${negation}${written}:${formatValue(value)}`, complete: true }));
}

/**
 * Set while a search the box started is being applied: the list, and the box with it, is drawn afresh for the new
 * address, and the new box takes the focus back so that typing goes on where it was.
 */
let refocusAfterSearch = false;

export function SearchBox({
  name,
  value,
  facets,
}: {
  /** The form field that carries the whole query: the box sits in the list's filter form and is applied with it. */
  name: string;
  /** The query the list is showing now. */
  value: string | undefined;
  facets: IssueFacets | undefined;
}) {
  const id = useId();
  const inputId = `${id}-input`;
  const listId = `${id}-suggestions`;
  const hintId = `${id}-hint`;
  const faultId = `${id}-fault`;
  const inputRef = useRef<HTMLInputElement>(null);
  const [initial] = useState(() => split(value ?? ''));
  const [chips, setChips] = useState<KeyTerm[]>(initial.chips);
  const [text, setText] = useState(initial.text);
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(-1);

  useLayoutEffect(() => {
    if (!refocusAfterSearch) return;
    refocusAfterSearch = false;
    inputRef.current?.focus();
  }, []);

  // The message of the query being shown, which the list did not ask the API for.
  const parsedValue = value ? parseSearch(value) : undefined;
  const fault = parsedValue && !parsedValue.ok ? parsedValue.message : undefined;
  const suggestions = suggestionsFor(text.slice(lastTermStart(text)), facets);
  const expanded = open && suggestions.length > 0;
  const chipChars = chips.reduce((sum, chip) => sum + chip.raw.length + 1, 0);

  /** Applies the query through the form, with the chips and text as they are after `change`. */
  const search = (change: () => void) => {
    flushSync(change);
    refocusAfterSearch = true;
    inputRef.current?.form?.requestSubmit();
    // The new list is drawn in a microtask when the address changed; when it did not, nothing is to be refocused.
    setTimeout(() => {
      refocusAfterSearch = false;
    }, 0);
  };

  /** The typed terms that parse become chips; free text stays text. Nothing changes for text that does not parse. */
  const chipsOf = (typed: string): { chips: KeyTerm[]; text: string } => {
    const parsed = split(typed);
    if (parsed.chips.length === 0) return { chips, text: typed };
    return { chips: [...chips, ...parsed.chips], text: parsed.text };
  };

  const pick = (suggestion: Suggestion) => {
    const typed = text.slice(0, lastTermStart(text)) + suggestion.insert;
    if (!suggestion.complete) {
      setText(typed);
      setActive(-1);
      setOpen(true);
      inputRef.current?.focus();
      return;
    }
    const next = chipsOf(typed);
    search(() => {
      setChips(next.chips);
      setText(next.text);
      setOpen(false);
      setActive(-1);
    });
  };

  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      event.preventDefault();
      const count = suggestionsFor(text.slice(lastTermStart(text)), facets).length;
      if (count === 0) return;
      if (!expanded) {
        setOpen(true);
        setActive(event.key === 'ArrowDown' ? 0 : count - 1);
        return;
      }
      setActive((current) => (event.key === 'ArrowDown' ? (current + 1) % count : (current - 1 + count) % count));
    } else if (event.key === 'Enter') {
      const chosen = expanded ? suggestions[active] : undefined;
      if (chosen) {
        event.preventDefault();
        pick(chosen);
        return;
      }
      // The form applies the query; the box that draws the result takes the focus back.
      refocusAfterSearch = true;
      setTimeout(() => {
        refocusAfterSearch = false;
      }, 0);
    } else if (event.key === 'Escape' && expanded) {
      event.preventDefault();
      setOpen(false);
      setActive(-1);
    } else if (event.key === 'Backspace' && text === '' && chips.length > 0) {
      // Back into the last chip, to edit it as text.
      event.preventDefault();
      setText((chips.at(-1) as KeyTerm).raw);
      setChips(chips.slice(0, -1));
    }
  };

  const onChange = (typed: string) => {
    setActive(-1);
    // A space after a term ends it: the terms typed so far become chips.
    const ended = typed.length > text.length && /\s$/.test(typed) && lastTermStart(typed) === typed.length;
    const next = ended ? chipsOf(typed) : { chips, text: typed };
    setChips(next.chips);
    setText(ended && next.chips !== chips ? (next.text ? `${next.text} ` : '') : next.text);
    setOpen(next.text.slice(lastTermStart(next.text)).trim() !== '');
  };

  const activeId = expanded && active >= 0 ? `${listId}-${active}` : undefined;
  useLayoutEffect(() => {
    if (activeId) document.getElementById(activeId)?.scrollIntoView({ block: 'nearest' });
  }, [activeId]);

  return (
    <>
      <div className="field field-grow search-box">
        <label htmlFor={inputId}>Search</label>
        <input type="hidden" name={name} value={joinQuery(chips, text)} />
        <div className="search-control">
          {chips.length > 0 && (
            <ul className="search-chips" aria-label="Search terms">
              {chips.map((chip, index) => (
                <li
                  // By position, as chips are removed: the same term may be typed twice.
                  key={`${index}:${chip.raw}`}
                  className={`chip${'negated' in chip && chip.negated ? ' chip-negated' : ''}`}
                >
                  {'negated' in chip && chip.negated && <span className="visually-hidden">Not </span>}
                  <span className="chip-text">{chip.raw}</span>
                  <button
                    type="button"
                    className="chip-remove"
                    aria-label={`Remove ${chip.raw}`}
                    onClick={() => {
                      inputRef.current?.focus();
                      search(() => setChips(chips.filter((_, other) => other !== index)));
                    }}
                  >
                    <span aria-hidden="true">×</span>
                  </button>
                </li>
              ))}
            </ul>
          )}
          <input
            ref={inputRef}
            id={inputId}
            type="text"
            role="combobox"
            aria-expanded={expanded}
            aria-controls={listId}
            aria-autocomplete="list"
            aria-activedescendant={activeId}
            aria-describedby={fault ? `${faultId} ${hintId}` : hintId}
            aria-invalid={fault ? true : undefined}
            autoComplete="off"
            spellCheck={false}
            enterKeyHint="search"
            value={text}
            maxLength={Math.max(0, issueSearchMaxChars - chipChars)}
            placeholder={chips.length > 0 ? 'More terms or text' : 'is:unresolved level:error tenant:acme, or text'}
            onChange={(event) => onChange(event.target.value)}
            onKeyDown={onKeyDown}
            onFocus={() => setOpen(text.slice(lastTermStart(text)).trim() !== '')}
            onBlur={() => {
              setOpen(false);
              setActive(-1);
            }}
          />
        </div>
        <span id={hintId} className="visually-hidden">
          Terms such as is:unresolved, level:error or a tag’s key:value, ! before a term to exclude it; other words
          search the message, error type and culprit. Arrow keys go through the suggestions.
        </span>
        <div id={listId} role="listbox" aria-label="Suggestions" className="search-suggestions" hidden={!expanded}>
          {expanded &&
            suggestions.map((suggestion, index) => (
              <div
                key={suggestion.insert}
                id={`${listId}-${index}`}
                role="option"
                aria-selected={index === active}
                // The focus stays in the input, as the pattern has it (aria-activedescendant names the option):
                // picked on mousedown, which would otherwise move the focus here.
                tabIndex={-1}
                onMouseDown={(event) => {
                  event.preventDefault();
                  pick(suggestion);
                }}
              >
                <span>{suggestion.label}</span>
                {suggestion.hint && <span className="search-suggestion-hint">{suggestion.hint}</span>}
              </div>
            ))}
        </div>
      </div>
      {fault && (
        <p id={faultId} className="search-fault" role="alert">
          {fault}
        </p>
      )}
    </>
  );
}
