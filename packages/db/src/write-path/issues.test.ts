// issues.ts against a real database: an issue's count, first and last seen over statements whose events arrive out of
// order, the message and error type of its earliest event, its distinct users, and the app's count of issues.
import { HOUR } from '@collector/domain';
import { describe, expect, it } from 'vitest';
import { batch, errorEvent, openWritePathDatabase, someHour } from './testing';

const { db, newAccount, store, appTotals } = await openWritePathDatabase('issues');
const { newApp } = await newAccount();

const issuesOf = (appKey: string) =>
  db.selectFrom('issues_live').selectAll().where('app_key', '=', appKey).orderBy('fingerprint').execute();

describe('write path: issues', () => {
  it('counts an issue over statements, with its first and last seen whatever order the events come in', async () => {
    const appKey = await newApp();
    await store(
      batch(appKey, [
        errorEvent(appKey, 'evt_2', { timestamp: someHour + 2 * HOUR, message: 'later', errorType: 'RangeError' }),
        errorEvent(appKey, 'evt_1', {
          timestamp: someHour + HOUR,
          message: 'earliest of the first statement',
          errorType: 'TypeError',
        }),
      ]),
    );
    await store(
      batch(appKey, [
        errorEvent(appKey, 'evt_0', { timestamp: someHour, message: 'late arrival' }),
        errorEvent(appKey, 'evt_3', { timestamp: someHour + 3 * HOUR }),
      ]),
    );
    expect(await issuesOf(appKey)).toMatchObject([
      {
        app_key: appKey,
        fingerprint: 'TypeError:cart',
        // Taken when the issue was created: its earliest event then. A late event does not rename the issue.
        message: 'earliest of the first statement',
        error_type: 'TypeError',
        event_count: 4,
        user_count: 0,
        first_seen_at: someHour,
        last_seen_at: someHour + 3 * HOUR,
      },
    ]);
  });

  it('names a failed request without a message by its method, URL and status', async () => {
    const appKey = await newApp();
    const request = { method: 'get', url: 'https://api.example.com/users/1?x=1', status: 500 };
    await store(
      batch(appKey, [
        errorEvent(appKey, 'evt_r', { type: 'request', fingerprint: 'request:users', message: undefined, request }),
      ]),
    );
    const [issue] = await issuesOf(appKey);
    expect(issue).toMatchObject({
      message: 'GET https://api.example.com/users/1 failed with 500',
      error_type: 'request',
    });
  });

  it('counts distinct users per issue, ignoring events without one and users seen again', async () => {
    const appKey = await newApp();
    const events = [
      errorEvent(appKey, 'evt_1', { anonymousId: 'anon_a' }),
      errorEvent(appKey, 'evt_2', { anonymousId: 'anon_a' }),
      errorEvent(appKey, 'evt_3', { anonymousId: 'anon_b' }),
      errorEvent(appKey, 'evt_4'),
      errorEvent(appKey, 'evt_5', { anonymousId: 'anon_a', fingerprint: 'TypeError:other' }),
    ];
    await store(batch(appKey, events.slice(0, 2)), batch(appKey, events.slice(2)));
    await store(
      batch(appKey, [
        errorEvent(appKey, 'evt_6', { anonymousId: 'anon_b' }),
        errorEvent(appKey, 'evt_7', { anonymousId: 'anon_c' }),
      ]),
    );
    expect((await issuesOf(appKey)).map((issue) => [issue.fingerprint, issue.event_count, issue.user_count])).toEqual([
      ['TypeError:cart', 6, 3],
      ['TypeError:other', 1, 1],
    ]);
  });

  it("adds only new issues to the app's count", async () => {
    const appKey = await newApp();
    await store(
      batch(appKey, [errorEvent(appKey, 'evt_1'), errorEvent(appKey, 'evt_2', { fingerprint: 'TypeError:b' })]),
    );
    await store(
      batch(appKey, [errorEvent(appKey, 'evt_3'), errorEvent(appKey, 'evt_4', { fingerprint: 'TypeError:c' })]),
    );
    expect((await appTotals(appKey)).issues).toBe(3);
  });

  it("counts an issue's tag values and records its facets once per value, for events that share them in one statement", async () => {
    const appKey = await newApp();
    const tagged = (eventId: string, plan: string, release: string) =>
      errorEvent(appKey, eventId, { tags: { plan }, level: 'error', release, environment: 'prod' });
    // One statement: two events alike, a third with another plan and release, and a copy of the first (not new).
    await store(
      batch(appKey, [
        tagged('tag_1', 'pro', '1.0'),
        tagged('tag_2', 'pro', '1.0'),
        tagged('tag_3', 'free', '1.1'),
        tagged('tag_1', 'pro', '1.0'),
      ]),
    );
    await store(batch(appKey, [tagged('tag_4', 'pro', '1.0'), tagged('tag_2', 'pro', '1.0')]));
    const counts = await db
      .selectFrom('issue_tags')
      .select(['key', 'value', 'events'])
      .where('app_key', '=', appKey)
      .orderBy('key')
      .orderBy('value')
      .execute();
    expect(counts.map(({ key, value, events }) => [key, value, Number(events)])).toEqual([
      ['level', 'error', 4],
      ['plan', 'free', 1],
      ['plan', 'pro', 3],
    ]);
    const facets = await db
      .selectFrom('issue_facets')
      .select(['facet', 'value'])
      .where('app_key', '=', appKey)
      .orderBy('facet')
      .orderBy('value')
      .execute();
    expect(facets.map(({ facet, value }) => `${facet}=${value}`)).toEqual([
      'environment=prod',
      'release=1.0',
      'release=1.1',
      'tag:level=error',
      'tag:plan=free',
      'tag:plan=pro',
    ]);
  });
});
