// Spectral function: a string schema is bounded when it has maxLength, enum or const (OWASP's own test), or a
// pattern anchored at both ends whose every quantifier has an upper bound (`^evt_[A-Za-z0-9_-]{1,64}$`): such a
// pattern admits no string longer than a fixed length, so a separate maxLength would only repeat it.
const UNBOUNDED_QUANTIFIER = /(?<!\\)(?:[*+]|\{\d+,\})/;

export function isBoundedPattern(pattern) {
  if (typeof pattern !== 'string') return false;
  return (
    pattern.startsWith('^') && pattern.endsWith('$') && !pattern.endsWith('\\$') && !UNBOUNDED_QUANTIFIER.test(pattern)
  );
}

export default function boundedString(schema) {
  if (schema === null || typeof schema !== 'object') return;
  if ('maxLength' in schema || 'enum' in schema || 'const' in schema) return;
  if (isBoundedPattern(schema.pattern)) return;
  return [
    { message: 'Schema of type string must specify maxLength, enum, const, or a pattern that bounds its length.' },
  ];
}
