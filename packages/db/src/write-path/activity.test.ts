// activity.ts against a real database: each subject's active hours linked to its active hour before, exact when
// events arrive late (before hours already linked) and when statements write the same subjects at once; the hour lists
// and the link counts per day and per hour agree with the links. The expected links are folded from the stored events
// with lag(), as migration 0003 folded the events stored before it.
import { HOUR, type StoredEvent } from '@collector/domain';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { batch, errorEvent, openWritePathDatabase, someHour } from './testing';

const { db, newAccount, store } = await openWritePathDatabase('activity');
const { newApp } = await newAccount();
const DAY = 24 * HOUR;

interface Link {
  kind: string;
  subject: string;
  hour: number;
  prev_hour: number;
}

/** The links as the events say they must be. */
async function expectedLinks(appKey: string): Promise<Link[]> {
  const { rows } = await sql<Link>`
    select kind, subject, hour, coalesce(lag(hour) over (partition by kind, subject order by hour), -1) as prev_hour from (
      select distinct 'user' as kind, anonymous_id as subject, (timestamp / ${HOUR}::int8)::int4 as hour from events where app_key = ${appKey} and anonymous_id is not null
      union
      select distinct 'issue', fingerprint, (timestamp / ${HOUR}::int8)::int4 from events where app_key = ${appKey}
    ) h order by kind, subject, hour`.execute(db);
  return rows;
}

const storedLinks = (appKey: string) =>
  db
    .selectFrom('activity_hours')
    .select(['kind', 'subject', 'hour', 'prev_hour'])
    .where('app_key', '=', appKey)
    .orderBy('kind')
    .orderBy('subject')
    .orderBy('hour')
    .execute();

/** Every derived structure agrees with the links: hour lists, and link counts per day and per hour (zero counts aside). */
async function expectConsistent(appKey: string) {
  const links = await storedLinks(appKey);
  expect(links).toEqual(await expectedLinks(appKey));

  const lists = new Map<string, number[]>();
  for (const link of links)
    lists.set(`${link.kind} ${link.subject}`, [...(lists.get(`${link.kind} ${link.subject}`) ?? []), link.hour]);
  const userLists = await db
    .selectFrom('app_users')
    .select(['anonymous_id', 'hours'])
    .where('app_key', '=', appKey)
    .execute();
  const issueLists = await db
    .selectFrom('issue_hours')
    .select(['fingerprint', 'hours'])
    .where('app_key', '=', appKey)
    .execute();
  const storedLists = new Map([
    ...userLists.map((row) => [`user ${row.anonymous_id}`, row.hours] as const),
    ...issueLists.map((row) => [`issue ${row.fingerprint}`, row.hours] as const),
  ]);
  expect(storedLists).toEqual(lists);

  const prevDay = (link: Link) => (link.prev_hour < 0 ? -1 : Math.floor(link.prev_hour / 24));
  for (const [table, slot, slotOf] of [
    ['activity_by_prev_day', 'day', (link: Link) => Math.floor(link.hour / 24)],
    ['activity_by_hour', 'hour', (link: Link) => link.hour],
  ] as const) {
    const { rows } = await sql<{ kind: string; slot: number; prev_day: number; links: number }>`
      select kind, ${sql.ref(slot)} as slot, prev_day, links from ${sql.table(table)}
      where app_key = ${appKey} and links <> 0`.execute(db);
    const tally = new Map<string, number>();
    for (const link of links) {
      const key = `${link.kind} ${slotOf(link)} ${prevDay(link)}`;
      tally.set(key, (tally.get(key) ?? 0) + 1);
    }
    expect(new Map(rows.map((row) => [`${row.kind} ${row.slot} ${row.prev_day}`, row.links])), table).toEqual(tally);
  }
}

const at = (appKey: string, id: string, timestamp: number, extra: Partial<StoredEvent> = {}) =>
  errorEvent(appKey, id, { timestamp, anonymousId: 'anon_x', ...extra });

describe('write path: activity', () => {
  it("links each active hour to the subject's hour before, relinking when a late event comes before hours already stored", async () => {
    const appKey = await newApp();
    const start = someHour - 10 * DAY;
    await store(
      batch(appKey, [at(appKey, 'evt_1', start + 9 * DAY), at(appKey, 'evt_2', start + 9 * DAY + 30 * 60_000)]),
    );
    // Late: before every stored hour, then between two of them, then one that is already stored (nothing to do).
    await store(batch(appKey, [at(appKey, 'evt_3', start + 2 * DAY + 5 * HOUR)]));
    await store(
      batch(appKey, [
        at(appKey, 'evt_4', start + 5 * DAY + 23 * HOUR),
        at(appKey, 'evt_5', start + 6 * DAY, { fingerprint: 'TypeError:other' }),
      ]),
    );
    await store(batch(appKey, [at(appKey, 'evt_6', start + 2 * DAY + 5 * HOUR + 1)]));
    const h = (time: number) => Math.floor(time / HOUR);
    expect((await storedLinks(appKey)).filter((link) => link.kind === 'user')).toEqual([
      { kind: 'user', subject: 'anon_x', hour: h(start + 2 * DAY + 5 * HOUR), prev_hour: -1 },
      {
        kind: 'user',
        subject: 'anon_x',
        hour: h(start + 5 * DAY + 23 * HOUR),
        prev_hour: h(start + 2 * DAY + 5 * HOUR),
      },
      { kind: 'user', subject: 'anon_x', hour: h(start + 6 * DAY), prev_hour: h(start + 5 * DAY + 23 * HOUR) },
      { kind: 'user', subject: 'anon_x', hour: h(start + 9 * DAY), prev_hour: h(start + 6 * DAY) },
    ]);
    await expectConsistent(appKey);
  });

  it('stays exact for random late traffic written by statements at once', async () => {
    const appKey = await newApp();
    let seed = 11;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    const events = Array.from({ length: 240 }, (_, i) =>
      at(appKey, `evt_${i}`, someHour - Math.floor(random() * 12 * DAY), {
        anonymousId: random() < 0.9 ? `anon_${Math.floor(random() * 6)}` : undefined,
        fingerprint: `TypeError:f${Math.floor(random() * 4)}`,
      }),
    );
    // Twelve statements of two batches, four at a time (on PostgreSQL they overlap; the embedded database runs one at a
    // time).
    for (let i = 0; i < events.length; i += 80) {
      const slice = events.slice(i, i + 80);
      await Promise.all(
        [0, 20, 40, 60].map((k) =>
          store(batch(appKey, slice.slice(k, k + 10)), batch(appKey, slice.slice(k + 10, k + 20))),
        ),
      );
    }
    await expectConsistent(appKey);
  });
});
