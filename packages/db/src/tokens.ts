// API tokens, invitations and password resets: secrets whose SHA-256 alone is stored, looked up by it.
import type { TokenScope } from '@collector/domain';
import type { Kysely, Selectable } from 'kysely';
import { prepared } from './connection';
import type { ApiTokensTable, Database, InvitationsTable } from './schema';

export type ApiTokenRow = Selectable<ApiTokensTable> & { org_slug: string | null };

export async function insertApiToken(
  db: Kysely<Database>,
  token: Omit<Selectable<ApiTokensTable>, 'scopes' | 'last_used_at'> & { scopes: readonly TokenScope[] },
): Promise<void> {
  await db
    .insertInto('api_tokens')
    .values({ ...token, scopes: JSON.stringify(token.scopes), last_used_at: null })
    .execute();
}

const tokenColumns = [
  'api_tokens.id',
  'api_tokens.hash',
  'api_tokens.name',
  'api_tokens.user_id',
  'api_tokens.org_id',
  'api_tokens.created_by',
  'api_tokens.scopes',
  'api_tokens.created_at',
  'api_tokens.last_used_at',
  'api_tokens.expires_at',
  'organizations.slug as org_slug',
] as const;

// Every request signed with a token (sentry-cli's, the API's) makes this look-up: prepared once per connection.
const tokenByHash = prepared((db, hash: string) =>
  db
    .selectFrom('api_tokens')
    .leftJoin('organizations', 'organizations.id', 'api_tokens.org_id')
    .select(tokenColumns)
    .where('api_tokens.hash', '=', hash),
);

export async function findApiTokenByHash(db: Kysely<Database>, hash: string): Promise<ApiTokenRow | undefined> {
  return (await db.executeQuery(tokenByHash(db, hash))).rows[0];
}

/** The user's own tokens and the tokens of the organizations in `orgIds` (those the user may manage), newest first. */
export async function listApiTokens(
  db: Kysely<Database>,
  query: { userId: string | null; orgIds: readonly string[] },
): Promise<ApiTokenRow[]> {
  return db
    .selectFrom('api_tokens')
    .leftJoin('organizations', 'organizations.id', 'api_tokens.org_id')
    .select(tokenColumns)
    .where((eb) =>
      eb.or([
        ...(query.userId === null ? [] : [eb('api_tokens.user_id', '=', query.userId)]),
        ...(query.orgIds.length === 0 ? [] : [eb('api_tokens.org_id', 'in', query.orgIds)]),
      ]),
    )
    .orderBy('api_tokens.created_at', 'desc')
    .orderBy('api_tokens.id', 'desc')
    .execute();
}

export async function findApiToken(db: Kysely<Database>, id: string): Promise<ApiTokenRow | undefined> {
  return db
    .selectFrom('api_tokens')
    .leftJoin('organizations', 'organizations.id', 'api_tokens.org_id')
    .select(tokenColumns)
    .where('api_tokens.id', '=', id)
    .executeTakeFirst();
}

export async function deleteApiToken(db: Kysely<Database>, id: string): Promise<void> {
  await db.deleteFrom('api_tokens').where('id', '=', id).execute();
}

/** Writes lastUsedAt when the stored one is a minute old or more: one write a minute per token at most. */
export async function touchApiToken(db: Kysely<Database>, id: string, now: number, everyMs: number): Promise<void> {
  await db
    .updateTable('api_tokens')
    .set({ last_used_at: now })
    .where('id', '=', id)
    .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<=', now - everyMs)]))
    .execute();
}

export async function insertInvitation(db: Kysely<Database>, invitation: InvitationsTable): Promise<void> {
  await db.insertInto('invitations').values(invitation).execute();
}

export async function listPendingInvitations(
  db: Kysely<Database>,
  orgId: string,
  now: number,
): Promise<InvitationsTable[]> {
  return db
    .selectFrom('invitations')
    .selectAll()
    .where('org_id', '=', orgId)
    .where('expires_at', '>', now)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

export async function deleteInvitation(db: Kysely<Database>, orgId: string, id: string): Promise<boolean> {
  const row = await db
    .deleteFrom('invitations')
    .where('org_id', '=', orgId)
    .where('id', '=', id)
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Takes an invitation: deletes it (it works once) and returns it, when it exists and has not expired. The delete is
 * the claim, so of two accepts of one token, one gets it.
 */
export async function takeInvitation(
  db: Kysely<Database>,
  hash: string,
  now: number,
  accept: (invitation: InvitationsTable) => boolean,
): Promise<
  (InvitationsTable & { org_slug: string; org_name: string; org_created_at: number }) | 'refused' | undefined
> {
  return db.transaction().execute(async (trx) => {
    const row = await trx
      .selectFrom('invitations as i')
      .innerJoin('organizations as o', 'o.id', 'i.org_id')
      .selectAll('i')
      .select(['o.slug as org_slug', 'o.name as org_name', 'o.created_at as org_created_at'])
      .where('i.hash', '=', hash)
      .where('i.expires_at', '>', now)
      .forUpdate()
      .executeTakeFirst();
    if (!row) return undefined;
    if (!accept(row)) return 'refused';
    await trx.deleteFrom('invitations').where('id', '=', row.id).execute();
    return row;
  });
}

export async function findInvitationByHash(
  db: Kysely<Database>,
  hash: string,
  now: number,
): Promise<InvitationsTable | undefined> {
  return db
    .selectFrom('invitations')
    .selectAll()
    .where('hash', '=', hash)
    .where('expires_at', '>', now)
    .executeTakeFirst();
}

export async function insertPasswordReset(
  db: Kysely<Database>,
  reset: { hash: string; userId: string; now: number; expiresAt: number },
): Promise<void> {
  await db
    .insertInto('password_resets')
    .values({ hash: reset.hash, user_id: reset.userId, created_at: reset.now, expires_at: reset.expiresAt })
    .execute();
}

/** Takes a reset token (it works once): the user it was for, when it has not expired. */
export async function takePasswordReset(db: Kysely<Database>, hash: string, now: number): Promise<string | undefined> {
  const row = await db
    .deleteFrom('password_resets')
    .where('hash', '=', hash)
    .returning(['user_id', 'expires_at'])
    .executeTakeFirst();
  if (!row || row.expires_at <= now) return undefined;
  // One reset ends the others: a link sent earlier must not work after the password was changed.
  await db.deleteFrom('password_resets').where('user_id', '=', row.user_id).execute();
  return row.user_id;
}

/** Invitations and reset links past their expiry, which nobody can use any more: deleted with the hourly retention run. */
export async function deleteExpiredLinks(db: Kysely<Database>, now: number): Promise<void> {
  await db.deleteFrom('invitations').where('expires_at', '<=', now).execute();
  await db.deleteFrom('password_resets').where('expires_at', '<=', now).execute();
}
