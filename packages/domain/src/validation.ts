// Turns zod issues into the contract's `details`: one path and one plain sentence each.
import type { z } from 'zod';
import { AppError, type ErrorDetail } from './errors';

type Issue = z.core.$ZodIssue;

function pathOf(path: readonly PropertyKey[]): string {
  return path.map(String).join('.');
}

function sizeUnit(origin: string): string {
  if (origin === 'array' || origin === 'set') return 'items';
  if (origin === 'string') return 'characters';
  return '';
}

function describe(issue: Issue): string {
  switch (issue.code) {
    case 'invalid_type':
      // zod 4 leaves `input` off issues unless asked; its own message still says what was received.
      if (/ received undefined$/.test(issue.message)) return 'is required';
      if (!issue.message.startsWith('Invalid input')) return issue.message;
      return `expected ${issue.expected === 'int' ? 'integer' : issue.expected}`;
    case 'too_big': {
      const unit = sizeUnit(issue.origin);
      if (issue.origin === 'number' || issue.origin === 'int' || issue.origin === 'bigint')
        return `must be at most ${issue.maximum}`;
      return `must contain at most ${issue.maximum} ${unit}`.trimEnd();
    }
    case 'too_small': {
      const unit = sizeUnit(issue.origin);
      if (issue.origin === 'number' || issue.origin === 'int' || issue.origin === 'bigint')
        return `must be at least ${issue.minimum}`;
      return `must contain at least ${issue.minimum} ${unit}`.trimEnd();
    }
    case 'invalid_value':
      return `must be one of ${issue.values.map((value) => JSON.stringify(value)).join(', ')}`;
    case 'invalid_format':
      // Custom regex messages are written as sentences already.
      return issue.message && !issue.message.startsWith('Invalid') ? issue.message : `must be a valid ${issue.format}`;
    case 'unrecognized_keys':
      return `unknown keys ${issue.keys.join(', ')}`;
    default:
      return issue.message;
  }
}

export function detailsOf(issues: readonly Issue[], prefix: readonly PropertyKey[] = []): ErrorDetail[] {
  return issues.map((issue) => ({ path: pathOf([...prefix, ...issue.path]), message: describe(issue) }));
}

/** "path: message" for the first problem, the way the contract's example reads. */
export function summarize(details: readonly ErrorDetail[]): string {
  const [first] = details;
  if (!first) return 'invalid input';
  const head = first.path ? `${first.path}: ${first.message}` : first.message;
  return details.length > 1 ? `${head} (and ${details.length - 1} more)` : head;
}

export function validationError(details: ErrorDetail[]): AppError {
  return new AppError('VALIDATION_FAILED', summarize(details), { details });
}
