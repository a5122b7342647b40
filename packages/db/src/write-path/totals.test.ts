// totals.ts against a real database: events, errors and failed requests per app and UTC hour and per app, equal to
// counting the stored events, and unmoved by copies.
import { HOUR } from '@collector/domain';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { batch, errorEvent, openWritePathDatabase, someHour } from './testing';

const { db, newAccount, store } = await openWritePathDatabase('totals');
const { newApp } = await newAccount();

describe('write path: hourly and app totals', () => {
  it('counts per hour and per app what the events table holds, copies excluded', async () => {
    const appKey = await newApp();
    const request = { method: 'GET', url: '/api/cart', status: 500 };
    const events = Array.from({ length: 30 }, (_, i) =>
      errorEvent(appKey, `evt_${i}`, {
        timestamp: someHour + (i % 4) * HOUR + i * 1000 - (i % 5 === 0 ? HOUR : 0),
        ...(i % 3 === 0 ? { type: 'request' as const, request } : {}),
      }),
    );
    await store(batch(appKey, events.slice(0, 12)), batch(appKey, events.slice(8, 20)));
    await store(batch(appKey, events.slice(15)));

    const hourly = await db
      .selectFrom('app_hourly')
      .select(['hour_start', 'events', 'errors', 'failed_requests'])
      .where('app_key', '=', appKey)
      .orderBy('hour_start')
      .execute();
    const { rows: counted } = await sql<{
      hour_start: number;
      events: number;
      errors: number;
      failed_requests: number;
    }>`
      select (timestamp / ${HOUR}::int8) * ${HOUR}::int8 as hour_start, count(*)::int8 as events,
        count(*) filter (where type = 'error')::int8 as errors, count(*) filter (where type = 'request')::int8 as failed_requests
      from events where app_key = ${appKey} group by 1 order by 1`.execute(db);
    expect(hourly).toEqual(counted);
    expect(hourly.map((hour) => hour.hour_start)).toEqual([-1, 0, 1, 2, 3].map((k) => someHour + k * HOUR));

    const totals = await db
      .selectFrom('app_totals')
      .select(['events', 'errors', 'failed_requests'])
      .where('app_key', '=', appKey)
      .executeTakeFirstOrThrow();
    expect(totals).toEqual({ events: 30, errors: 20, failed_requests: 10 });
  });

  it('moves only the counters of the apps whose events the statement holds', async () => {
    const [one, two, idle] = [await newApp(), await newApp(), await newApp()];
    await store(
      batch(one, [errorEvent(one, 'evt_1'), errorEvent(one, 'evt_2')]),
      batch(two, [errorEvent(two, 'evt_1')]),
    );
    const totals = await db
      .selectFrom('app_totals')
      .select(['app_key', 'events'])
      .where('app_key', 'in', [one, two, idle])
      .execute();
    expect(Object.fromEntries(totals.map((row) => [row.app_key, row.events]))).toEqual({
      [one]: 2,
      [two]: 1,
      [idle]: 0,
    });
  });
});
