// The overview over a time window, through the HTTP API: answers from the rollups must equal what counting the events
// themselves gives, at every edge (windows not aligned to hours or days, from inclusive, to exclusive), with events
// that arrive late and out of order, from concurrent requests, and with users seen in several apps.
// Seeded random numbers (the tools' own), so that a failure can be replayed.
import { rng } from '@collector/tool-kit';
import { describe, expect, it } from 'vitest';
import { createApp, makeEvent, PASSWORD, sendBatch, signUp, startTestServer, type TestServer } from './harness';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const server = await startTestServer();

interface Sent {
  appKey: string;
  type: 'error' | 'request';
  timestamp: number;
  anonymousId?: string | undefined;
  fingerprint: string;
}

/** What the overview must say, counted from the events themselves. */
function expected(events: readonly Sent[], appKeys: readonly string[], from?: number, to?: number) {
  const inWindow = events.filter(
    (event) =>
      appKeys.includes(event.appKey) &&
      (from === undefined || event.timestamp >= from) &&
      (to === undefined || event.timestamp < to),
  );
  return {
    events: inWindow.length,
    errors: inWindow.filter((event) => event.type === 'error').length,
    failedRequests: inWindow.filter((event) => event.type === 'request').length,
    affectedUsers: new Set(inWindow.flatMap((event) => (event.anonymousId ? [event.anonymousId] : []))).size,
    issues: new Set(inWindow.map((event) => `${event.appKey}:${event.fingerprint}`)).size,
  };
}

/** An event as the tests below write it: a request when its fingerprint says so, an error otherwise. */
const at = (appKey: string, timestamp: number, anonymousId: string | undefined, fingerprint: string): Sent => ({
  appKey,
  type: fingerprint.startsWith('request') ? 'request' : 'error',
  timestamp,
  anonymousId,
  fingerprint,
});

function toEvent(sent: Sent) {
  return makeEvent({
    type: sent.type,
    timestamp: sent.timestamp,
    anonymousId: sent.anonymousId,
    fingerprint: sent.fingerprint,
    ...(sent.type === 'request' ? { request: { method: 'GET', url: '/api/cart', status: 500 } } : {}),
  });
}

/** Sends the events as one batch; returns the batch as sent, to send again. */
async function send(appKey: string, events: Sent[], target: TestServer = server) {
  const batch = events.map(toEvent);
  const reply = await sendBatch(target, appKey, batch);
  expect(reply.status).toBe(200);
  expect(reply.body.accepted).toBe(events.length);
  return batch;
}

async function overview(
  token: string,
  query: { appKey?: string; from?: number; to?: number },
  target: TestServer = server,
) {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) if (value !== undefined) params.set(key, String(value));
  const reply = await target.call('GET', `/api/overview?${params}`, { token });
  expect(reply.status).toBe(200);
  return reply.body.totals;
}

describe('overview over a window', () => {
  it('counts at the exact edges of windows that do not start or end on an hour or a day', async () => {
    const { token } = await signUp(server);
    const { appKey } = await createApp(server, token);
    // Days ago, at 10:20:30.400 UTC, so that hours and days have edges to cross.
    const base = Math.floor((Date.now() - 5 * DAY) / DAY) * DAY + 10 * HOUR + 20 * 60_000 + 30_400;
    const events: Sent[] = [
      { appKey, type: 'error', timestamp: base, anonymousId: 'anon_a', fingerprint: 'TypeError:one' },
      { appKey, type: 'error', timestamp: base + 1, anonymousId: 'anon_b', fingerprint: 'TypeError:one' },
      { appKey, type: 'request', timestamp: base + 40 * 60_000, anonymousId: 'anon_a', fingerprint: 'request:two' },
      { appKey, type: 'error', timestamp: base + 2 * HOUR, anonymousId: 'anon_c', fingerprint: 'TypeError:three' },
      { appKey, type: 'error', timestamp: base + DAY - 1, anonymousId: 'anon_a', fingerprint: 'TypeError:one' },
      { appKey, type: 'error', timestamp: base + DAY, anonymousId: undefined, fingerprint: 'TypeError:four' },
      {
        appKey,
        type: 'error',
        timestamp: base + 2 * DAY + 5 * HOUR,
        anonymousId: 'anon_b',
        fingerprint: 'TypeError:three',
      },
    ];
    await send(appKey, events);
    const windows: [number | undefined, number | undefined][] = [
      [base, base + 1],
      [base + 1, base + 2],
      [base, base + 40 * 60_000],
      [base, base + 40 * 60_000 + 1],
      [base + 1, base + DAY - 1],
      [base + 1, base + DAY],
      [base - 10 * HOUR - 20 * 60_000 - 30_400, base + DAY + 1],
      [base + 2, base + 3 * DAY],
      [base + 40 * 60_000, base + 2 * DAY + 5 * HOUR],
      [base + 40 * 60_000, base + 2 * DAY + 5 * HOUR + 1],
      [base + HOUR, base + 2 * HOUR],
      [base + 2 * HOUR, base + 2 * HOUR],
      [base, undefined],
      [undefined, base + DAY],
      [base + DAY, undefined],
    ];
    for (const [from, to] of windows) {
      expect({ from, to, totals: await overview(token, { appKey, from, to }) }).toEqual({
        from,
        to,
        totals: expected(events, [appKey], from, to),
      });
    }
  });

  it('follows events that arrive late, before hours already counted', async () => {
    const { token } = await signUp(server);
    const { appKey } = await createApp(server, token);
    const start = Math.floor((Date.now() - 20 * DAY) / DAY) * DAY;
    const events: Sent[] = [];
    // The newest first: each later request brings hours that come before hours already stored.
    for (let day = 18; day >= 0; day -= 3) {
      const batch: Sent[] = ['anon_x', 'anon_y'].map((anonymousId, i) => ({
        appKey,
        type: 'error',
        timestamp: start + day * DAY + (7 + i) * HOUR + 1234,
        anonymousId,
        fingerprint: `TypeError:day${day % 2}`,
      }));
      events.push(...batch);
      await send(appKey, batch);
    }
    for (const [from, to] of [
      [start + 3 * DAY + 8 * HOUR, start + 12 * DAY + 7 * HOUR + 1234],
      [start + 3 * DAY + 7 * HOUR + 1235, start + 9 * DAY + 7 * HOUR + 1234],
      [start + 6 * DAY, start + 7 * DAY],
      [start + 6 * DAY + 7 * HOUR + 1234, start + 6 * DAY + 7 * HOUR + 1235],
      // Edges inside days with events: the hours of the partial days are read link by link.
      [start + 5 * DAY + 12 * HOUR, start + 12 * DAY + 9 * HOUR],
      [start + 9 * DAY + 7 * HOUR + 1235, start + 15 * DAY + 8 * HOUR + 1234],
      [start + 9 * DAY + 8 * HOUR, start + 9 * DAY + 9 * HOUR],
      [start, start + 19 * DAY],
    ] as const) {
      expect(await overview(token, { appKey, from, to })).toEqual(expected(events, [appKey], from, to));
    }
  });

  it('counts a user seen in several apps once over all of them, and once per app', async () => {
    const { token } = await signUp(server);
    const shop = await createApp(server, token, { name: 'Shop' });
    const blog = await createApp(server, token, { name: 'Blog' });
    const t = Math.floor((Date.now() - 3 * DAY) / HOUR) * HOUR + 15 * 60_000;
    const events: Sent[] = [
      { appKey: shop.appKey, type: 'error', timestamp: t, anonymousId: 'anon_both', fingerprint: 'TypeError:a' },
      {
        appKey: blog.appKey,
        type: 'error',
        timestamp: t + 3 * HOUR,
        anonymousId: 'anon_both',
        fingerprint: 'TypeError:a',
      },
      { appKey: blog.appKey, type: 'error', timestamp: t + DAY, anonymousId: 'anon_both', fingerprint: 'TypeError:b' },
      {
        appKey: shop.appKey,
        type: 'error',
        timestamp: t + DAY + 1,
        anonymousId: 'anon_shop',
        fingerprint: 'TypeError:a',
      },
    ];
    await send(
      shop.appKey,
      events.filter((event) => event.appKey === shop.appKey),
    );
    await send(
      blog.appKey,
      events.filter((event) => event.appKey === blog.appKey),
    );
    const apps = [shop.appKey, blog.appKey];
    for (const [from, to] of [
      [t, t + 1],
      [t, t + 3 * HOUR + 1],
      [t + 1, t + 3 * HOUR + 1],
      [t - 1, t + 2 * DAY],
      [t + 3 * HOUR, t + DAY + 2],
      [t + 30 * 60_000, t + DAY + 1],
    ] as const) {
      expect(await overview(token, { from, to })).toEqual(expected(events, apps, from, to));
      for (const appKey of apps)
        expect(await overview(token, { appKey, from, to })).toEqual(expected(events, [appKey], from, to));
    }
    expect(await overview(token, {})).toEqual(expected(events, apps));
  });

  it("counts a window that ends now from its last hour's active hours, and from its events once one lies after the end", async () => {
    // The dashboard's window ends now: the last hour then holds no event at or after its end, and is read as a whole
    // hour (migration 0026). An event a few seconds ahead of the clock (within the allowed skew) sends it back to the
    // events. Subjects of every kind of history: late in the first hour, in whole hours between, seen before the
    // window only, in two apps.
    const now = Math.floor((Date.now() - DAY) / HOUR) * HOUR + 40 * 60_000;
    const timed = await startTestServer({ clock: () => now });
    try {
      const { token } = await signUp(timed);
      const shop = await createApp(timed, token, { name: 'Shop' });
      const blog = await createApp(timed, token, { name: 'Blog' });
      const from = now - 7 * DAY;
      const events: Sent[] = [
        // Before the window: hours the last hour's links point back to.
        at(shop.appKey, from - 2 * HOUR, 'anon_before', 'TypeError:old'),
        at(shop.appKey, from - 5 * 60_000, 'anon_first', 'TypeError:old'),
        // The first hour, before and after the window's start.
        at(shop.appKey, from + 5 * 60_000, 'anon_first', 'TypeError:late'),
        at(blog.appKey, from + 10 * 60_000, 'anon_both', 'TypeError:late'),
        // Whole hours between.
        at(shop.appKey, from + 3 * HOUR, 'anon_middle', 'request:middle'),
        at(blog.appKey, now - 2 * HOUR, 'anon_both', 'TypeError:late'),
        // The last hour, before now.
        at(shop.appKey, now - 30 * 60_000, 'anon_first', 'TypeError:late'),
        at(shop.appKey, now - 20 * 60_000, 'anon_before', 'TypeError:old'),
        at(shop.appKey, now - 10 * 60_000, 'anon_middle', 'TypeError:new'),
        at(shop.appKey, now - 5 * 60_000, 'anon_both', 'request:middle'),
        at(blog.appKey, now - 60_000, 'anon_both', 'TypeError:new'),
        at(blog.appKey, now - 1, undefined, 'TypeError:new'),
      ];
      const apps = [shop.appKey, blog.appKey];
      for (const appKey of apps)
        await send(
          appKey,
          events.filter((event) => event.appKey === appKey),
          timed,
        );
      const check = async () => {
        for (const [start, end] of [
          [from, now],
          [from + 6 * 60_000, now],
          [from - HOUR, now + 1],
          [now - 50 * 60_000, now],
        ] as const) {
          expect(await overview(token, { from: start, to: end }, timed)).toEqual(expected(events, apps, start, end));
          for (const appKey of apps)
            expect(await overview(token, { appKey, from: start, to: end }, timed)).toEqual(
              expected(events, [appKey], start, end),
            );
        }
      };
      await check();
      // Ahead of the clock, inside the last hour: the window ending now must leave it out.
      const ahead = at(shop.appKey, now + 30_000, 'anon_ahead', 'TypeError:ahead');
      await send(shop.appKey, [ahead], timed);
      events.push(ahead);
      await check();
    } finally {
      await timed.stop();
    }
  });

  it("counts a window that starts on the hour from its first hour's active hours, as the dashboard asks", async () => {
    // The dashboard's windows start and end on whole hours or days: the first hour then holds no event before the
    // window's start and is read as a whole hour (migration 0026). Subjects of the first hour whose next active hour is
    // the last, a whole hour between, or none; a window starting ten minutes into the hour reads its events instead.
    const { token } = await signUp(server);
    const shop = await createApp(server, token, { name: 'Shop' });
    const blog = await createApp(server, token, { name: 'Blog' });
    const from = Math.floor((Date.now() - 6 * DAY) / DAY) * DAY + 7 * HOUR;
    const to = from + 3 * DAY;
    const events: Sent[] = [
      at(shop.appKey, from - HOUR, 'anon_before', 'TypeError:old'),
      at(shop.appKey, from + 5 * 60_000, 'anon_first', 'TypeError:first'),
      at(shop.appKey, from + 20 * 60_000, 'anon_twice', 'TypeError:first'),
      at(blog.appKey, from + 30 * 60_000, 'anon_twice', 'request:first'),
      at(shop.appKey, from + 50 * 60_000, 'anon_gone', 'TypeError:gone'),
      at(shop.appKey, from + 2 * HOUR, 'anon_twice', 'TypeError:first'),
      at(blog.appKey, to - 30 * 60_000, 'anon_first', 'TypeError:first'),
      at(shop.appKey, to - 20 * 60_000, 'anon_first', 'TypeError:first'),
      at(shop.appKey, to - 10 * 60_000, 'anon_before', 'TypeError:old'),
      at(shop.appKey, to + 10 * 60_000, 'anon_after', 'TypeError:after'),
    ];
    const apps = [shop.appKey, blog.appKey];
    for (const appKey of apps)
      await send(
        appKey,
        events.filter((event) => event.appKey === appKey),
      );
    for (const [start, end] of [
      [from, to],
      [from, to - 5 * 60_000],
      [from, to - HOUR],
      [from, to + HOUR],
      [from - HOUR, to],
      [from + HOUR, to],
      [from + 10 * 60_000, to],
      [from, from + 2 * HOUR],
    ] as const) {
      expect({ start, end, totals: await overview(token, { from: start, to: end }) }).toEqual({
        start,
        end,
        totals: expected(events, apps, start, end),
      });
      for (const appKey of apps)
        expect({ appKey, start, end, totals: await overview(token, { appKey, from: start, to: end }) }).toEqual({
          appKey,
          start,
          end,
          totals: expected(events, [appKey], start, end),
        });
    }
  });

  it('equals counting the events, for random windows over a month of random traffic sent at once', async () => {
    const random = rng(20261121);
    const { token } = await signUp(server);
    const apps = [
      await createApp(server, token, { name: 'A' }),
      await createApp(server, token, { name: 'B' }),
      await createApp(server, token, { name: 'C' }),
    ].map((app) => app.appKey);
    const now = Date.now();
    const oldest = now - 29 * DAY;
    const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)] as T;
    // Users: mostly one app's own, a few shared by all apps, some events without one.
    const users = (appKey: string) => [
      ...Array.from({ length: 12 }, (_, i) => `anon_${appKey.slice(-6)}_${i}`),
      'anon_shared_1',
      'anon_shared_2',
    ];
    const events: Sent[] = Array.from({ length: 700 }, () => {
      const appKey = pick(apps);
      // Clustered in time, as real traffic is: hours and days with several events, many without.
      const timestamp = Math.min(now - 1000, oldest + Math.floor(random() ** 1.5 * 29 * DAY));
      return {
        appKey,
        type: random() < 0.8 ? 'error' : 'request',
        timestamp,
        anonymousId: random() < 0.9 ? pick(users(appKey)) : undefined,
        fingerprint: `TypeError:f${Math.floor(random() ** 2 * 15)}`,
      } satisfies Sent;
    });
    // Sent in random order, many requests in flight at once: statements run concurrently and hours arrive out of order.
    const shuffled = events
      .map((event) => ({ event, key: random() }))
      .sort((a, b) => a.key - b.key)
      .map(({ event }) => event);
    const batches: Sent[][] = [];
    for (const appKey of apps) {
      const mine = shuffled.filter((event) => event.appKey === appKey);
      for (let i = 0; i < mine.length; i += 7) batches.push(mine.slice(i, i + 7));
    }
    const bodies: { appKey: string; batch: unknown[] }[] = [];
    for (let i = 0; i < batches.length; i += 12) {
      const sent = await Promise.all(batches.slice(i, i + 12).map((batch) => send(batch[0]?.appKey as string, batch)));
      for (const [j, batch] of sent.entries()) bodies.push({ appKey: batches[i + j]?.[0]?.appKey as string, batch });
    }
    // Retries (the same eventIds again, at once) change nothing.
    const retries = await Promise.all(bodies.slice(0, 12).map(({ appKey, batch }) => sendBatch(server, appKey, batch)));
    for (const [i, retry] of retries.entries())
      expect(retry.body).toMatchObject({ accepted: bodies[i]?.batch.length, duplicates: bodies[i]?.batch.length });

    const instants = events.map((event) => event.timestamp);
    const someTime = () => {
      const roll = random();
      if (roll < 0.3) return pick(instants) + pick([-1, 0, 1]);
      if (roll < 0.45) return Math.floor((oldest + random() * 30 * DAY) / HOUR) * HOUR;
      if (roll < 0.55) return Math.floor((oldest + random() * 30 * DAY) / DAY) * DAY;
      return Math.floor(oldest - DAY + random() * 31 * DAY);
    };
    const checked: string[] = [];
    for (let i = 0; i < 120; i++) {
      let from: number | undefined = someTime();
      let to: number | undefined = random() < 0.3 ? from + Math.floor(random() * 3 * HOUR) : someTime();
      if (to < from) [from, to] = [to, from];
      if (random() < 0.1) from = undefined;
      // biome-ignore lint/suspicious/noDuplicateElseIf: two draws of random(), not one condition twice
      else if (random() < 0.1) to = undefined;
      for (const appKey of [undefined, ...apps]) {
        const totals = await overview(token, { appKey, from, to });
        checked.push(`${appKey ?? 'all'} ${from} ${to}`);
        expect({ appKey, from, to, totals }).toEqual({
          appKey,
          from,
          to,
          totals: expected(events, appKey ? [appKey] : apps, from, to),
        });
      }
    }
    expect(checked).toHaveLength(480);
    expect(await overview(token, {})).toEqual(expected(events, apps));
  });

  it('stays exact over months, once the write path has trimmed the hour lists it keeps per user and issue', async () => {
    // A server whose clock we move: events are only taken up to 30 days old, so months of history need months to pass.
    let now = Date.now() - 120 * DAY;
    const timed = await startTestServer({ clock: () => now });
    const { token, email } = await signUp(timed);
    const { appKey } = await createApp(timed, token);
    const random = rng(7);
    const events: Sent[] = [];
    const users = ['anon_p', 'anon_q', 'anon_r', 'anon_s'];
    // Three spells 45 days apart; in each, 25 days of traffic, sent newest first so that hours arrive out of order.
    for (let spell = 0; spell < 3; spell++) {
      const spellEvents: Sent[] = Array.from({ length: 60 }, () => ({
        appKey,
        type: 'error',
        timestamp: now - Math.floor(random() * 25 * DAY),
        anonymousId: users[Math.floor(random() * users.length)],
        fingerprint: `TypeError:k${Math.floor(random() * 4)}`,
      }));
      spellEvents.sort((a, b) => b.timestamp - a.timestamp);
      for (let i = 0; i < spellEvents.length; i += 10) await send(appKey, spellEvents.slice(i, i + 10), timed);
      events.push(...spellEvents);
      now += 45 * DAY;
    }
    const login = await timed.call('POST', '/api/auth/login', { body: { email, password: PASSWORD } });
    const fresh = login.body.token as string;
    const instants = events.map((event) => event.timestamp);
    const first = Math.min(...instants);
    const last = Math.max(...instants);
    for (let i = 0; i < 60; i++) {
      const a =
        random() < 0.5
          ? (instants[Math.floor(random() * instants.length)] as number)
          : first + Math.floor(random() * (last - first));
      const b =
        random() < 0.5
          ? (instants[Math.floor(random() * instants.length)] as number) + 1
          : first + Math.floor(random() * (last - first));
      const [from, to] = a < b ? [a, b] : [b, a];
      expect({ from, to, totals: await overview(fresh, { appKey, from, to }, timed) }).toEqual({
        from,
        to,
        totals: expected(events, [appKey], from, to),
      });
    }
  });
});

describe('issues over all apps, page by page', () => {
  it('pages through ties of lastSeenAt across apps without gaps or repeats, in the order of the whole list', async () => {
    const { token } = await signUp(server);
    const apps = [];
    for (const name of ['One', 'Two', 'Three']) apps.push((await createApp(server, token, { name })).appKey);
    const t = Date.now() - 60 * 60_000;
    // Four lastSeenAt values shared by every app: each page boundary falls inside a tie sooner or later.
    for (const [i, appKey] of apps.entries()) {
      await sendBatch(
        server,
        appKey,
        Array.from({ length: 9 }, (_, k) =>
          makeEvent({ fingerprint: `TypeError:i${(k * 7 + i) % 9}`, timestamp: t + (k % 4) * 1000 }),
        ),
      );
    }
    const whole = await server.call('GET', '/api/issues?limit=100', { token });
    expect(whole.body.issues).toHaveLength(27);
    expect(whole.body.nextCursor).toBeNull();
    const order = whole.body.issues.map((issue: { id: string }) => issue.id);
    const lastSeen = whole.body.issues.map((issue: { lastSeenAt: number }) => issue.lastSeenAt);
    expect([...lastSeen].sort((a, b) => b - a)).toEqual(lastSeen);
    for (const limit of [1, 2, 4, 5, 26]) {
      const paged: string[] = [];
      let cursor: string | null = null;
      do {
        const page: { body: { issues: { id: string }[]; nextCursor: string | null } } = await server.call(
          'GET',
          `/api/issues?limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
          { token },
        );
        paged.push(...page.body.issues.map((issue) => issue.id));
        cursor = page.body.nextCursor;
      } while (cursor);
      expect({ limit, paged }).toEqual({ limit, paged: order });
    }
  });
});
