// The dashboard on a read replica (docs/scaling.md, "Read replicas for the dashboard"): a primary and a standby that
// streams its WAL, both from the embedded binaries. The packages ship no pg_basebackup, so the standby starts from a
// cold copy of the primary's cluster plus what `pg_basebackup -R` would write (standby.signal, primary_conninfo).
// Every dashboard read runs on both once the standby has replayed the primary's WAL: the same answers, and exact,
// with the counter ledger's deltas unfolded, folded, and unfolded on top of folded rows.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { appendFileSync, chownSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DAY, HOUR, type StoredEvent } from '@collector/domain';
import { type Kysely, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertApp, listApps } from './apps';
import { openDatabase } from './connection';
import { foldCounters } from './counters';
import { type EmbeddedPostgres, embeddedPostgresUnavailable, startEmbeddedPostgres } from './embedded-postgres';
import { prepareBatch, storePreparedBatches } from './ingest';
import {
  findIssue,
  type IssueListQuery,
  issueEventContexts,
  issueSeries,
  listIssueEvents,
  listIssues,
  liveIssues,
} from './issues';
import { migrateDatabase, migrateToLatest } from './migrate';
import { insertOrg } from './orgs';
import { outcomeTotals } from './outcomes';
import { overviewTotals } from './overview';
import type { Database } from './schema';
import { hourlyTotals } from './timeseries';
import { batch, errorEvent, someHour } from './write-path/testing';

const unavailable = await embeddedPostgresUnavailable();

/** Fixed once: the primary's and the standby's answers are compared, so every read uses the same clock. */
const now = Date.now();

/** Windows of the overview: whole hours, then edges inside hours (the partial hours are read from events). */
const windows = [
  { from: someHour, to: someHour + 2 * HOUR },
  { from: someHour - 20 * 60_000, to: someHour + HOUR + 25 * 60_000 },
];

interface Account {
  userId: string;
  /** The account's own organization, which holds its apps. */
  orgId: string;
  appKeys: string[];
}

/** Every dashboard read of an account, as the overview, issue list and issue pages make them. */
async function dashboard(db: Kysely<Database>, { orgId, appKeys }: Account) {
  const scopes = [undefined, ...appKeys];
  const overview = [];
  for (const appKey of scopes) {
    overview.push({
      appKey,
      allTime: await overviewTotals(db, { orgId, appKey }),
      windowed: await Promise.all(windows.map((window) => overviewTotals(db, { orgId, appKey, ...window }))),
      hourly: await hourlyTotals(db, { orgId, appKey, fromHour: someHour - DAY, to: now }),
      outcomes: await outcomeTotals(db, { orgId, appKey }),
      recentOutcomes: await outcomeTotals(db, { orgId, appKey, from: now - HOUR, to: now + HOUR }),
    });
  }
  const list = async (query: IssueListQuery) => {
    const listed = await listIssues(db, query);
    return { ...listed, rows: await liveIssues(db, listed.page) };
  };
  const lists = {
    lastSeen: await list({ orgIds: [orgId], sort: 'lastSeen', limit: 100 }),
    events: await list({ orgIds: [orgId], sort: 'events', limit: 100 }),
    users: await list({ orgIds: [orgId], sort: 'users', limit: 100 }),
    firstApp: await list({ orgIds: [orgId], appKey: appKeys[0], sort: 'firstSeen', limit: 2 }),
  };
  const issues = [];
  for (const row of lists.lastSeen.rows) {
    const key = {
      appKey: row.app_key,
      fingerprint: row.fingerprint,
      firstSeenAt: row.first_seen_at,
      lastSeenAt: row.last_seen_at,
    };
    issues.push({
      issue: await findIssue(db, { appKey: row.app_key, fingerprint: row.fingerprint }),
      series: await issueSeries(db, { appKey: row.app_key, fingerprint: row.fingerprint, now }),
      events: await listIssueEvents(db, { ...key, limit: 1_000 }),
      contexts: await issueEventContexts(db, key),
    });
  }
  return { apps: await listApps(db, [orgId]), overview, lists, issues };
}

type Answers = Awaited<ReturnType<typeof dashboard>>;

const distinct = (values: Array<string | undefined>) => new Set(values.filter((value) => value !== undefined)).size;

function totalsOf(events: readonly StoredEvent[]) {
  return {
    events: events.length,
    errors: events.filter((event) => event.type === 'error').length,
    failedRequests: events.filter((event) => event.type === 'request').length,
    affectedUsers: distinct(events.map((event) => event.anonymousId)),
    issues: distinct(events.map((event) => `${event.appKey} ${event.fingerprint}`)),
  };
}

/** The answers against the events stored (each once) and sent (every copy): the counts are exact, not close. */
function expectExact(answers: Answers, account: Account, stored: readonly StoredEvent[], sent: number) {
  const mine = stored.filter((event) => account.appKeys.includes(event.appKey));
  for (const scope of answers.overview) {
    const events = mine.filter((event) => scope.appKey === undefined || event.appKey === scope.appKey);
    expect(scope.allTime).toEqual(totalsOf(events));
    expect(scope.windowed).toEqual(
      windows.map(({ from, to }) =>
        totalsOf(events.filter((event) => event.timestamp >= from && event.timestamp < to)),
      ),
    );
    expect(scope.hourly.reduce((sum, hour) => sum + hour.events, 0)).toBe(events.length);
    const accepted = scope.outcomes.find((outcome) => outcome.reason === 'accepted')?.events;
    expect(accepted).toBe(events.length);
    expect(scope.recentOutcomes).toEqual(scope.outcomes);
  }
  const duplicates = answers.overview[0]?.outcomes.find((outcome) => outcome.reason === 'duplicate')?.events;
  expect(duplicates).toBe(sent - mine.length);

  const { lastSeen } = answers.lists;
  expect(lastSeen.total).toBe(totalsOf(mine).issues);
  expect(lastSeen.rows.reduce((sum, row) => sum + row.event_count, 0)).toBe(mine.length);
  for (const { issue, series, events } of answers.issues) {
    const own = mine
      .filter((event) => event.appKey === issue?.app_key && event.fingerprint === issue?.fingerprint)
      .sort((a, b) => b.timestamp - a.timestamp || (b.eventId < a.eventId ? -1 : 1));
    expect(issue?.event_count).toBe(own.length);
    expect(issue?.user_count).toBe(distinct(own.map((event) => event.anonymousId)));
    expect(issue?.last_seen_at).toBe(own[0]?.timestamp);
    expect(issue?.first_seen_at).toBe(own.at(-1)?.timestamp);
    expect(series.reduce((sum, day) => sum + day.events, 0)).toBe(own.length);
    expect(events.events.map((event) => event.eventId)).toEqual(own.map((event) => event.eventId));
  }
}

/** A file written into the cluster, given to the server's account (the cluster's owner) when the test runs as root. */
function ownedLikeCluster(cluster: string, file: string) {
  if (process.getuid?.() !== 0) return;
  const { uid, gid } = statSync(cluster);
  chownSync(file, uid, gid);
}

describe.skipIf(unavailable !== undefined)(
  `dashboard reads on a streaming replica${unavailable ? ` (skipped: ${unavailable})` : ''}`,
  () => {
    const cleanups: Array<() => Promise<void> | void> = [];
    let primary: EmbeddedPostgres;
    let primaryDb: Kysely<Database>;
    let standbyDb: Kysely<Database>;
    let store: (batches: ReturnType<typeof batch>[]) => Promise<number>;
    /** Every event stored once, and every copy sent (duplicates included). */
    const stored: StoredEvent[] = [];
    let sent = 0;
    const owner: Account = {
      userId: 'user_replica_owner',
      orgId: 'org_replica_owner',
      appKeys: ['web_replica_one', 'web_replica_two'],
    };
    const other: Account = { userId: 'user_replica_other', orgId: 'org_replica_other', appKeys: ['web_replica_three'] };

    /**
     * The end of the primary's WAL now, then the standby's replay until it reaches it. The insert position, not the
     * write position (pg_current_wal_lsn): these servers commit asynchronously, so a commit's record may be inserted
     * and not yet written, and a standby at the write position can still miss it.
     */
    async function caughtUp(): Promise<void> {
      const started = Date.now();
      const { rows } = await sql<{ lsn: string }>`select pg_current_wal_insert_lsn()::text as lsn`.execute(primaryDb);
      const target = rows[0]?.lsn as string;
      for (;;) {
        const { rows: replay } = await sql<{ replayed: string | null; done: boolean }>`
          select pg_last_wal_replay_lsn()::text as replayed, pg_last_wal_replay_lsn() >= ${target}::pg_lsn as done`.execute(
          standbyDb,
        );
        if (replay[0]?.done) return;
        if (Date.now() - started > 30_000) {
          throw new Error(`the standby replayed to ${replay[0]?.replayed}, not to the primary's ${target}, in 30 s`);
        }
        await new Promise((done) => setTimeout(done, 20));
      }
    }

    /** Both servers' answers, once the standby has replayed everything the primary wrote so far. */
    async function bothAnswers(account: Account) {
      await caughtUp();
      return { primary: await dashboard(primaryDb, account), standby: await dashboard(standbyDb, account) };
    }

    const events = (appKey: string, prefix: string, count: number, users: string[], fingerprints: string[]) =>
      Array.from({ length: count }, (_, i) =>
        errorEvent(appKey, `evt_${prefix}_${i}`, {
          timestamp: someHour - HOUR + i * 7 * 60_000 + i * 1_000,
          anonymousId: `anon_${users[i % users.length]}`,
          fingerprint: `TypeError:${fingerprints[i % fingerprints.length]}`,
          level: i % 2 === 0 ? 'error' : 'fatal',
          release: `1.${i % 3}.0`,
          environment: i % 2 === 0 ? 'production' : 'staging',
          ...(i % 5 === 0
            ? {
                type: 'request' as const,
                fingerprint: 'request:cart',
                request: { method: 'GET', url: '/api/cart', status: 500 },
              }
            : {}),
        }),
      );

    beforeAll(async () => {
      const primaryDir = mkdtempSync(join(tmpdir(), 'collector-replica-primary-'));
      const standbyDir = mkdtempSync(join(tmpdir(), 'collector-replica-standby-'));
      cleanups.push(() => {
        rmSync(primaryDir, { recursive: true, force: true });
        rmSync(standbyDir, { recursive: true, force: true });
      });
      const startPrimary = async () => {
        primary = await startEmbeddedPostgres({ dataDir: primaryDir, durable: false });
        const server = primary;
        cleanups.push(() => server.stop());
        const database = await openDatabase({ url: primary.url });
        cleanups.push(() => database.close());
        primaryDb = database.db;
        return database;
      };

      // What the standby's copy holds: the schema and one app's first events.
      const beforeCopy = await startPrimary();
      await migrateDatabase({ url: primary.url });
      for (const { userId, orgId, appKeys } of [owner, other]) {
        await primaryDb
          .insertInto('users')
          .values({ id: userId, email: `${userId}@example.com`, password_hash: '-', created_at: 0 })
          .execute();
        await primaryDb.transaction().execute((trx) =>
          insertOrg(trx, {
            id: orgId,
            name: orgId,
            slug: orgId.replaceAll('_', '-'),
            slugGiven: true,
            ownerId: userId,
            createdAt: 0,
          }),
        );
        for (const appKey of appKeys) {
          await insertApp(primaryDb, {
            app_key: appKey,
            org_id: orgId,
            slug: appKey.replaceAll('_', '-'),
            user_id: userId,
            name: appKey,
            type: 'web',
            created_at: 0,
            public_key: randomBytes(16).toString('hex'),
          });
        }
      }
      store = async (batches) => {
        const results = await storePreparedBatches(primaryDb, batches.map(prepareBatch));
        for (const each of batches) sent += each.events.length;
        return results.reduce((sum, result) => sum + result.stored, 0);
      };
      const first = events('web_replica_one', 'a', 24, ['u0', 'u1', 'u2', 'u3', 'u4'], ['f0', 'f1', 'f2']);
      expect(await store([batch('web_replica_one', first)])).toBe(24);
      stored.push(...first);

      // A cold copy: stopped cleanly (a shutdown checkpoint), the whole cluster is consistent at one WAL position,
      // which the standby replays on from. cp -a keeps the files' owner (the server's account when run as root).
      await beforeCopy.close();
      await primary.stop();
      execFileSync('cp', ['-a', join(primaryDir, 'postgres'), join(standbyDir, 'postgres')]);
      execFileSync('cp', ['-a', join(primaryDir, 'postgres.password'), join(standbyDir, 'postgres.password')]);
      // The primary comes back on a new port (each start picks a free one): the standby follows that one.
      await startPrimary();
      const cluster = join(standbyDir, 'postgres');
      const signal = join(cluster, 'standby.signal');
      writeFileSync(signal, '');
      ownedLikeCluster(cluster, signal);
      // initdb's pg_hba.conf already lets `replication` connect from 127.0.0.1 with a password, and the superuser may
      // stream; wal_level is `replica` by default.
      const { port } = new URL(primary.url);
      const password = readFileSync(join(standbyDir, 'postgres.password'), 'utf8').trim();
      appendFileSync(
        join(cluster, 'postgresql.auto.conf'),
        `primary_conninfo = 'host=127.0.0.1 port=${port} user=collector password=${password} application_name=collector_replica'\n`,
      );
      const standby = await startEmbeddedPostgres({ dataDir: standbyDir, durable: false });
      cleanups.push(() => standby.stop());
      const database = await openDatabase({ url: standby.url });
      cleanups.push(() => database.close());
      standbyDb = database.db;
    }, 180_000);

    afterAll(async () => {
      for (const cleanup of cleanups.reverse()) await cleanup();
    }, 60_000);

    it('is a hot standby that streams from the primary', async () => {
      const { rows } = await sql<{ recovery: boolean }>`select pg_is_in_recovery() as recovery`.execute(standbyDb);
      expect(rows[0]?.recovery).toBe(true);
      await caughtUp();
      // The sender says "catchup" until it has processed the standby's reply to what it sent: a moment after replay
      // caught up, so its state is read until it changes (or 30 s pass), then checked.
      const started = Date.now();
      let senders: { name: string; state: string }[] = [];
      do {
        if (senders.length > 0) await new Promise((done) => setTimeout(done, 20));
        ({ rows: senders } = await sql<{ name: string; state: string }>`
          select application_name as name, state from pg_stat_replication`.execute(primaryDb));
      } while (senders.some(({ state }) => state === 'catchup') && Date.now() - started < 30_000);
      expect(senders).toEqual([{ name: 'collector_replica', state: 'streaming' }]);
    });

    it('answers every dashboard read as the primary does, exactly, before and after a fold', async () => {
      // Streamed: one statement for two apps' batches (as EventWriter groups them) with copies of stored events.
      const second = events('web_replica_one', 'b', 16, ['u3', 'u5', 'u6'], ['f1', 'f3']);
      const third = events('web_replica_two', 'c', 12, ['u0', 'u7'], ['f0', 'f4']);
      const copies = stored.slice(0, 6);
      expect(
        await store([
          batch('web_replica_one', second),
          batch('web_replica_two', third),
          batch('web_replica_one', copies),
        ]),
      ).toBe(28);
      stored.push(...second, ...third);
      const others = events('web_replica_three', 'd', 5, ['u0'], ['f0']);
      expect(await store([batch('web_replica_three', others)])).toBe(5);
      stored.push(...others);
      const othersSent = 5;

      const { rows: unfolded } = await sql<{ n: number }>`select count(*)::int8 as n from issue_deltas`.execute(
        primaryDb,
      );
      expect(unfolded[0]?.n).toBeGreaterThan(0);
      const beforeFold = await bothAnswers(owner);
      expect(beforeFold.standby).toEqual(beforeFold.primary);
      expectExact(beforeFold.standby, owner, stored, sent - othersSent);
      const otherBefore = await bothAnswers(other);
      expect(otherBefore.standby).toEqual(otherBefore.primary);
      expectExact(otherBefore.standby, other, stored, othersSent);

      // The fold runs on the primary; the standby replays its deletes and upserts, and shows the same counts.
      expect(await foldCounters(primaryDb)).toBeTypeOf('number');
      const { rows: left } = await sql<{ n: number }>`select count(*)::int8 as n from issue_deltas`.execute(primaryDb);
      expect(left[0]?.n).toBe(0);
      const afterFold = await bothAnswers(owner);
      expect(afterFold.standby).toEqual(afterFold.primary);
      expect(afterFold.standby).toEqual(beforeFold.standby);

      // Deltas on top of folded rows: a new issue, an existing one, and ids the owner's other app has seen already.
      const fourth = events('web_replica_two', 'e', 9, ['u0', 'u1', 'u8'], ['f4', 'f5']);
      expect(await store([batch('web_replica_two', fourth)])).toBe(9);
      stored.push(...fourth);
      const later = await bothAnswers(owner);
      expect(later.standby).toEqual(later.primary);
      expectExact(later.standby, owner, stored, sent - othersSent);
      expect(later.standby.overview[0]?.allTime.affectedUsers).toBe(9);
    });

    it('refuses what must run on the primary: ingestion and the fold (migrations find nothing to do)', async () => {
      const attempt = [prepareBatch(batch('web_replica_one', events('web_replica_one', 'z', 2, ['u0'], ['f0'])))];
      await expect(storePreparedBatches(standbyDb, attempt)).rejects.toMatchObject({ code: '25006' });
      await expect(foldCounters(standbyDb)).rejects.toMatchObject({ code: '25006' });
      // Migrations are no guard: on a replica that has replayed them they find nothing to do (the migrator only reads
      // and takes an advisory lock), so a collector pointed at a replica would start, then fail every write.
      expect(await migrateToLatest(standbyDb)).toEqual([]);
    });
  },
);
