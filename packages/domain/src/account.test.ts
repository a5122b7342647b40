import { describe, expect, it } from 'vitest';
import { credentialsSchema, emailSchema, passwordSchema } from './account';

/** A syntactically valid address of exactly `length` characters. */
function emailOfLength(length: number): string {
  const domain = '@example.com';
  return 'a'.repeat(length - domain.length) + domain;
}

describe('emailSchema', () => {
  it('trims and lower-cases', () => {
    expect(emailSchema.parse('  Alice.Smith@Example.COM \n')).toBe('alice.smith@example.com');
    expect(emailSchema.parse('bob@example.com')).toBe('bob@example.com');
  });

  it('accepts 254 characters and rejects 255', () => {
    expect(emailSchema.parse(emailOfLength(254))).toBe(emailOfLength(254));
    expect(emailSchema.safeParse(emailOfLength(255)).success).toBe(false);
  });

  it('measures the length after trimming', () => {
    expect(emailSchema.parse(`   ${emailOfLength(254)}   `)).toBe(emailOfLength(254));
  });

  it('rejects what is not an address', () => {
    for (const input of [
      '',
      '   ',
      'alice',
      'alice@',
      '@example.com',
      'alice@example',
      'alice example@example.com',
      'a@@example.com',
    ]) {
      expect(emailSchema.safeParse(input).success).toBe(false);
    }
  });

  it('rejects non-strings', () => {
    for (const input of [42, null, undefined, ['a@example.com']]) {
      expect(emailSchema.safeParse(input).success).toBe(false);
    }
  });
});

describe('passwordSchema', () => {
  it('rejects 7 characters', () => {
    expect(passwordSchema.safeParse('a'.repeat(7)).success).toBe(false);
  });

  it('accepts 8 and 128 characters', () => {
    expect(passwordSchema.parse('a'.repeat(8))).toBe('a'.repeat(8));
    expect(passwordSchema.parse('a'.repeat(128))).toBe('a'.repeat(128));
  });

  it('rejects 129 characters rather than truncating', () => {
    expect(passwordSchema.safeParse('a'.repeat(129)).success).toBe(false);
  });

  it('does not trim', () => {
    expect(passwordSchema.parse('  secret  ')).toBe('  secret  ');
    // Seven characters plus a space is eight: the space counts.
    expect(passwordSchema.parse('1234567 ')).toBe('1234567 ');
    expect(passwordSchema.safeParse(' 123456 '.trim()).success).toBe(false);
  });
});

describe('credentialsSchema', () => {
  it('normalises the e-mail and keeps the password as typed', () => {
    expect(credentialsSchema.parse({ email: ' Bob@Example.com ', password: ' Pa55word! ', extra: 1 })).toEqual({
      email: 'bob@example.com',
      password: ' Pa55word! ',
    });
  });
});
