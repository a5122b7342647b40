// Organizations, their members' roles, and the scopes of API tokens: the words the authorization policy is written in.
import { z } from 'zod';

export const orgRoles = ['owner', 'admin', 'member'] as const;
export type OrgRole = (typeof orgRoles)[number];

/** Higher may do all that lower may. */
export const roleRank: Record<OrgRole, number> = { member: 1, admin: 2, owner: 3 };

export const tokenScopes = ['read', 'write', 'releases'] as const;
export type TokenScope = (typeof tokenScopes)[number];

/** An organization's slug, and an app's within its organization (Sentry's org and project slugs). */
export const slugPattern = /^[a-z0-9][a-z0-9-]{0,49}$/;
export const slugMaxChars = 50;

export const slugSchema = z
  .string()
  .regex(slugPattern, 'must be 1 to 50 of a-z, 0-9 and -, starting with a letter or digit')
  .refine((slug) => !/^\d+$/.test(slug), 'must not be all digits (a number names a project id)');

/**
 * A slug made from a name: lower-cased ASCII letters and digits, other runs as one `-`. Never all digits (Sentry's
 * tools read a number as a project id) and never empty: `fallback` is used or prefixed then.
 */
export function slugify(name: string, fallback: string): string {
  const base = name
    .normalize('NFKD')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, slugMaxChars)
    .replace(/-+$/, '');
  if (base === '') return fallback;
  if (/^\d+$/.test(base)) return `${fallback}-${base}`.slice(0, slugMaxChars);
  return base;
}

/** `base`, or `base-2`, `base-3`... : the first that `taken` does not hold, within the slug's length. */
export function uniqueSlug(base: string, taken: (slug: string) => boolean): string {
  if (!taken(base)) return base;
  for (let n = 2; ; n++) {
    const suffix = `-${n}`;
    const slug = `${base.slice(0, slugMaxChars - suffix.length).replace(/-+$/, '')}${suffix}`;
    if (!taken(slug)) return slug;
  }
}

export interface Org {
  slug: string;
  name: string;
  /** The caller's role in it. */
  role: OrgRole;
  createdAt: number;
}
