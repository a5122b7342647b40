import { describe, expect, it } from 'vitest';
import { parseSearch, type SearchTerm, searchFreeText } from './search';

/** The terms of q, which must parse. */
function terms(q: string): SearchTerm[] {
  const parsed = parseSearch(q);
  if (!parsed.ok) throw new Error(`${q}: ${parsed.message}`);
  return parsed.terms;
}

/** The message for q, which must not parse. */
function message(q: string): string {
  const parsed = parseSearch(q);
  if (parsed.ok) throw new Error(`${q} parsed: ${JSON.stringify(parsed.terms)}`);
  return parsed.message;
}

const exact = (text: string) => ({ match: 'exact', text });

describe('parseSearch', () => {
  it('reads nothing from empty or blank text', () => {
    expect(terms('')).toEqual([]);
    expect(terms('  \t ')).toEqual([]);
  });

  it('reads is: values, archived as ignored', () => {
    expect(terms('is:unresolved is:resolved is:ignored is:archived is:assigned is:unassigned')).toEqual([
      { raw: 'is:unresolved', key: 'is', negated: false, values: ['unresolved'] },
      { raw: 'is:resolved', key: 'is', negated: false, values: ['resolved'] },
      { raw: 'is:ignored', key: 'is', negated: false, values: ['ignored'] },
      { raw: 'is:archived', key: 'is', negated: false, values: ['ignored'] },
      { raw: 'is:assigned', key: 'is', negated: false, values: ['assigned'] },
      { raw: 'is:unassigned', key: 'is', negated: false, values: ['unassigned'] },
    ]);
    expect(terms('!is:resolved')).toEqual([{ raw: '!is:resolved', key: 'is', negated: true, values: ['resolved'] }]);
  });

  it('refuses an unknown is: value, naming it and what is: takes', () => {
    expect(message('level:error is:open')).toBe(
      'is:open: is:open is unknown; is: takes unresolved, resolved, ignored, archived, assigned or unassigned',
    );
    expect(message('is:Resolved')).toContain('is:Resolved');
    expect(message('is:resolv*')).toContain('is:resolv* is unknown');
  });

  it('reads assigned: me, none and an e-mail address (lower-cased), and refuses anything else', () => {
    expect(terms('assigned:me assigned:none assigned:Ann@Example.com').map((term) => term)).toEqual([
      { raw: 'assigned:me', key: 'assigned', negated: false, values: ['me'] },
      { raw: 'assigned:none', key: 'assigned', negated: false, values: ['none'] },
      { raw: 'assigned:Ann@Example.com', key: 'assigned', negated: false, values: ['ann@example.com'] },
    ]);
    expect(message('assigned:ann')).toBe('assigned:ann: assigned: takes me, none or a member’s e-mail address');
    expect(message('assigned:*@example.com')).toContain('assigned:*@example.com');
  });

  it('reads level: values and refuses unknown ones', () => {
    expect(terms('level:[error,fatal]')).toEqual([
      { raw: 'level:[error,fatal]', key: 'level', negated: false, values: ['error', 'fatal'] },
    ]);
    expect(message('level:warn')).toBe('level:warn: level: takes fatal, error, warning, info or debug');
    expect(message('level:err*')).toContain('level:err*');
  });

  it('reads release: and environment: with wildcards', () => {
    expect(terms('release:1.2.* environment:production')).toEqual([
      { raw: 'release:1.2.*', key: 'release', negated: false, values: [{ match: 'pattern', pieces: ['1.2.', ''] }] },
      { raw: 'environment:production', key: 'environment', negated: false, values: [exact('production')] },
    ]);
  });

  it('reads handled: and Sentry’s error.handled: / error.unhandled: as one handled term', () => {
    const values = (q: string) => terms(q).map((term) => (term.key === 'handled' ? term.values : term.key));
    expect(values('handled:yes handled:no')).toEqual([['yes'], ['no']]);
    expect(values('error.handled:true error.handled:false')).toEqual([['yes'], ['no']]);
    expect(values('error.unhandled:true error.unhandled:false')).toEqual([['no'], ['yes']]);
    expect(terms('!error.unhandled:true')[0]).toMatchObject({ key: 'handled', negated: true, values: ['no'] });
    expect(message('handled:true')).toBe('handled:true: handled: takes yes or no');
    expect(message('error.handled:yes')).toBe('error.handled:yes: error.handled: takes true or false');
    expect(message('error.unhandled:1')).toContain('error.unhandled:1');
  });

  it('reads has: with a tag key, negated too', () => {
    expect(terms('has:browser !has:user.email')).toEqual([
      { raw: 'has:browser', key: 'has', negated: false, tags: ['browser'] },
      { raw: '!has:user.email', key: 'has', negated: true, tags: ['user.email'] },
    ]);
    expect(message('has:a/b')).toBe('has:a/b: has: takes a tag’s key (letters, digits, _, . and -)');
    expect(message('has:brow*')).toContain('has:brow*');
  });

  it('reads any other key as a tag’s', () => {
    expect(terms('browser:Chrome customer_tier:gold os.name:Linux a-b:c')).toEqual([
      { raw: 'browser:Chrome', key: 'tag', tag: 'browser', negated: false, values: [exact('Chrome')] },
      { raw: 'customer_tier:gold', key: 'tag', tag: 'customer_tier', negated: false, values: [exact('gold')] },
      { raw: 'os.name:Linux', key: 'tag', tag: 'os.name', negated: false, values: [exact('Linux')] },
      { raw: 'a-b:c', key: 'tag', tag: 'a-b', negated: false, values: [exact('c')] },
    ]);
    // The value runs to the whitespace: a second colon is part of it.
    expect(terms('url:https://shop.example/cart')[0]).toMatchObject({
      tag: 'url',
      values: [exact('https://shop.example/cart')],
    });
  });

  it('reads tags[key] as a tag, for tags named like built-in keys', () => {
    expect(terms('tags[level]:high tags[is]:x !tags[release]:"a b" tags[sentry:user]:u')).toEqual([
      { raw: 'tags[level]:high', key: 'tag', tag: 'level', negated: false, values: [exact('high')] },
      { raw: 'tags[is]:x', key: 'tag', tag: 'is', negated: false, values: [exact('x')] },
      { raw: '!tags[release]:"a b"', key: 'tag', tag: 'release', negated: true, values: [exact('a b')] },
      { raw: 'tags[sentry:user]:u', key: 'tag', tag: 'sentry:user', negated: false, values: [exact('u')] },
    ]);
    expect(message('tags[level:high')).toBe('tags[level:high: unclosed [');
    expect(message('tags[a b]:c')).toBe('tags[a: unclosed [');
    expect(message('tags[]:x')).toBe('tags[]:x: a tag’s key is letters, digits, _, ., : and -');
    expect(message('tags[a/b]:x')).toContain('tags[a/b]:x');
    expect(message('tags[level]')).toBe('tags[level]: tags[level] needs a :value');
    expect(message('tags[level]:')).toBe('tags[level]:: tags[level] has no value');
  });

  it('reads quoted values with escaped quotes and backslashes', () => {
    expect(terms('browser:"Chrome 120" message:"say \\"hi\\"" path:"C:\\\\temp"')).toEqual([
      { raw: 'browser:"Chrome 120"', key: 'tag', tag: 'browser', negated: false, values: [exact('Chrome 120')] },
      { raw: 'message:"say \\"hi\\""', key: 'tag', tag: 'message', negated: false, values: [exact('say "hi"')] },
      { raw: 'path:"C:\\\\temp"', key: 'tag', tag: 'path', negated: false, values: [exact('C:\\temp')] },
    ]);
  });

  it('refuses an unclosed quote, naming the rest of the text', () => {
    expect(message('browser:"Chrome 120 level:error')).toBe('browser:"Chrome 120 level:error: unclosed quote');
    expect(message('"checkout failed')).toBe('"checkout failed: unclosed quote');
  });

  it('refuses text glued to a quoted value or to quoted free text, and a quote inside a bare value', () => {
    expect(message('browser:"Chrome 120"x')).toBe('browser:"Chrome 120"x: text right after the value');
    expect(message('"a b"c')).toBe('"a b"c: text right after a closing quote');
    expect(message('browser:Chrome"120"')).toBe('browser:Chrome"120": put the whole value in quotes');
  });

  it('reads lists, with spaces after commas and quoted members', () => {
    expect(terms('browser:[Chrome, "Mobile Safari",Firefox*] level:error')).toEqual([
      {
        raw: 'browser:[Chrome, "Mobile Safari",Firefox*]',
        key: 'tag',
        tag: 'browser',
        negated: false,
        values: [exact('Chrome'), exact('Mobile Safari'), { match: 'pattern', pieces: ['Firefox', ''] }],
      },
      { raw: 'level:error', key: 'level', negated: false, values: ['error'] },
    ]);
  });

  it('refuses an unclosed list, an empty member and members without commas', () => {
    expect(message('browser:[Chrome,Firefox level:error')).toBe('browser:[Chrome,Firefox level:error: unclosed [');
    expect(message('browser:[Chrome,')).toBe('browser:[Chrome,: unclosed [');
    expect(message('browser:[Chrome,,Firefox]')).toBe('browser:[Chrome,,Firefox]: an empty value in the list');
    expect(message('browser:[]')).toBe('browser:[]: an empty value in the list');
    expect(message('browser:[Chrome Firefox]')).toBe(
      'browser:[Chrome Firefox]: values in a list are separated by commas',
    );
    expect(message('browser:[a]b')).toBe('browser:[a]b: text right after the value');
  });

  it('reads * as a wildcard and \\* as a star', () => {
    expect(terms('url:*/checkout/* v:a\\*b w:"x*y" z:*')).toEqual([
      {
        raw: 'url:*/checkout/*',
        key: 'tag',
        tag: 'url',
        negated: false,
        values: [{ match: 'pattern', pieces: ['', '/checkout/', ''] }],
      },
      { raw: 'v:a\\*b', key: 'tag', tag: 'v', negated: false, values: [exact('a*b')] },
      { raw: 'w:"x*y"', key: 'tag', tag: 'w', negated: false, values: [{ match: 'pattern', pieces: ['x', 'y'] }] },
      { raw: 'z:*', key: 'tag', tag: 'z', negated: false, values: [{ match: 'pattern', pieces: ['', ''] }] },
    ]);
    // A backslash before anything else is a backslash.
    expect(terms('path:C:\\temp')[0]).toMatchObject({ values: [exact('C:\\temp')] });
  });

  it('negates any term with !', () => {
    const negated = terms('!level:error !release:1.0 !assigned:me !browser:Chrome !tags[is]:x').map((term) =>
      term.key === 'text' ? undefined : term.negated,
    );
    expect(negated).toEqual([true, true, true, true, true]);
  });

  it('refuses a term with no value', () => {
    expect(message('level:')).toBe('level:: level has no value');
    expect(message('browser: Chrome')).toBe('browser:: browser has no value');
    expect(message('!browser:')).toBe('!browser:: browser has no value');
    expect(message('browser:""')).toBe('browser:"": browser has no value');
    expect(message('browser:[""]')).toBe('browser:[""]: browser has no value');
  });

  it('refuses a key with characters no key has, saying how to search text with a colon', () => {
    expect(message('a/b:c')).toBe('a/b:c: a key is letters, digits, _, . and - (put free text with a colon in quotes)');
    expect(message(':value')).toContain(':value: a key is');
    expect(message('héllo:x')).toContain('héllo:x');
    expect(message('!!level:error')).toContain('!!level:error');
  });

  it('keeps free text words and quoted text, in order, among the terms', () => {
    const parsed = terms('cart  is:unresolved "TypeError: x" browser:Chrome undefined !items 50% ""');
    expect(parsed.map((term) => term.key)).toEqual(['text', 'is', 'text', 'tag', 'text', 'text', 'text']);
    expect(parsed.filter((term) => term.key === 'text').map((term) => term.raw)).toEqual([
      'cart',
      '"TypeError: x"',
      'undefined',
      '!items',
      '50%',
    ]);
    expect(searchFreeText(parsed)).toBe('cart TypeError: x undefined !items 50%');
  });

  it('keeps quoted free text as typed, stars and inner spaces included', () => {
    expect(searchFreeText(terms('"a  *b"'))).toBe('a  *b');
    expect(searchFreeText(terms("'items' GET /api/orders/<id>"))).toBe("'items' GET /api/orders/<id>");
  });

  it('has no free text when every word is a term', () => {
    expect(searchFreeText(terms('is:resolved level:error'))).toBeUndefined();
  });

  it('reports the first fault only', () => {
    expect(message('is:open level:warn')).toMatch(/^is:open: /);
  });
});
