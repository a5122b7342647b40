// Starts the real service on an ephemeral port against a real database, and speaks HTTP to it.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { RateLimitConfig, SymbolicationOptions } from '@collector/api';
import { type DatabaseTimeouts, openDatabase, sql } from '@collector/db';
import { testBackend, testDatabaseUrl } from '@collector/db/testing';
import type { Browser } from 'playwright-core';
import { afterAll, expect, onTestFinished } from 'vitest';
import type { AlertOptions } from '../src/alerts/worker';
import { createLogger, type Logger } from '../src/logger';
import type { RetentionJobOptions } from '../src/retention-job';
import { type RunningServer, startServer } from '../src/server';
import { launchChromium } from './chromium';

export const backend = testBackend;
const root = fileURLToPath(new URL('../../..', import.meta.url));

const unlimited: Partial<RateLimitConfig> = {
  ingestPerSecond: 0,
  authPerEmail: { ratePerSecond: 1000, burst: 1000 },
  authPerAddress: { ratePerSecond: 1000, burst: 1000 },
  actionsPerUser: { ratePerSecond: 1000, burst: 1000 },
  actionsPerAddress: { ratePerSecond: 1000, burst: 1000 },
};

export interface TestServer extends RunningServer {
  call(method: string, path: string, options?: CallOptions): Promise<Reply>;
}

interface CallOptions {
  token?: string;
  body?: unknown;
  /** Sent as is, instead of JSON-encoding `body`. */
  rawBody?: string | Uint8Array;
  headers?: Record<string, string>;
}

export interface Reply {
  status: number;
  headers: Headers;
  // Replies are asserted on field by field; `any` keeps the tests readable.
  body: any;
}

/** Where a server keeps its data: a PostgreSQL URL, or an embedded database's folder. */
export interface TestDatabase {
  url: string;
}

/**
 * Runs `cleanup` when the test that called it ends, or after the file when called outside a test: vitest ignores an
 * afterAll registered inside a test (the retention tests' databases were left on the server that way). Cleanups of one
 * test run in reverse order, so a server started after its database stops before the database is dropped.
 */
function afterTestOrFile(cleanup: () => Promise<void>): void {
  try {
    onTestFinished(cleanup);
  } catch {
    afterAll(cleanup);
  }
}

/**
 * A database of this test file's own, that outlives a server (to restart one on it): a new PostgreSQL database beside
 * TEST_DATABASE_URL's, or a temporary folder for the embedded one. Needed by anything that changes the whole database,
 * such as a retention run, which would delete other test files' events in the shared one.
 */
export async function freshDatabase(): Promise<TestDatabase> {
  const shared = process.env.TEST_DATABASE_URL;
  // The embedded test cluster gives every call a fresh copy of its migrated template.
  if (!shared) return { url: await testDatabaseUrl() };
  const url = new URL(shared);
  const name = `${url.pathname.slice(1)}_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
  const admin = await openDatabase({ url: shared, maxConnections: 1 });
  try {
    await sql`create database ${sql.id(name)}`.execute(admin.db);
  } finally {
    await admin.close();
  }
  const drop = async () => {
    const cleanup = await openDatabase({ url: shared, maxConnections: 1 });
    try {
      await sql`drop database if exists ${sql.id(name)} with (force)`.execute(cleanup.db);
    } finally {
      await cleanup.close();
    }
  };
  afterTestOrFile(drop);
  url.pathname = `/${name}`;
  return { url: url.href };
}

/**
 * How long a test server's requests may wait on PostgreSQL: longer than the service's (DEFAULT_TIMEOUTS), which a
 * CI machine running many test files at once on two cores can exceed (a query past 3.5 s turned a sign-up into a
 * 503 once). A test of those timeouts passes the service's own.
 */
const TEST_DATABASE_TIMEOUTS: DatabaseTimeouts = {
  connectMs: 10_000,
  statementMs: 15_000,
  queryMs: 20_000,
  pingMs: 5_000,
};

export interface TestServerOptions {
  rateLimits?: Partial<RateLimitConfig>;
  /** Default TEST_DATABASE_TIMEOUTS. */
  databaseTimeouts?: DatabaseTimeouts;
  clock?: () => number;
  alerts?: Partial<AlertOptions>;
  /** Schedules the retention job (it runs at start); none unless given. */
  retention?: RetentionJobOptions;
  /** Default: the shared test database (TEST_DATABASE_URL), or a fresh one in the embedded test cluster. */
  database?: TestDatabase;
  /** INGEST_MAX_IN_FLIGHT_BYTES; default the service's. */
  ingestMaxInFlightBytes?: number;
  /** Default: a silent one (TEST_LOG_LEVEL to see its lines). */
  logger?: Logger;
  /** REGISTRATION; default open. */
  registration?: 'open' | 'invite' | 'closed';
  /** PUBLIC_URL; default the server's own address. */
  publicUrl?: string;
  /** STORE_IP; default true. */
  storeIp?: boolean;
  /** SYMBOLICATION_*; default the service's. */
  symbolication?: Partial<SymbolicationOptions>;
}

/** A server for this test file, stopped after it (or before, by `stop`). Rate limits are off unless given. */
export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const server = await startServer({
    port: 0,
    host: '127.0.0.1',
    databaseUrl: options.database?.url ?? (await testDatabaseUrl()),
    databaseBackend: testBackend,
    databaseTimeouts: options.databaseTimeouts ?? TEST_DATABASE_TIMEOUTS,
    rateLimits: { ...unlimited, ...options.rateLimits },
    clock: options.clock,
    alerts: options.alerts,
    retention: options.retention,
    ingestMaxInFlightBytes: options.ingestMaxInFlightBytes,
    registration: options.registration,
    publicUrl: options.publicUrl,
    storeIp: options.storeIp,
    symbolication: options.symbolication,
    logger: options.logger ?? createLogger(process.env.TEST_LOG_LEVEL ?? 'silent'),
  });
  let stopped: Promise<void> | undefined;
  const stop = () => {
    stopped ??= server.stop();
    return stopped;
  };
  afterTestOrFile(stop);
  const call = async (method: string, path: string, callOptions: CallOptions = {}): Promise<Reply> => {
    const headers: Record<string, string> = { ...callOptions.headers };
    if (callOptions.token) headers.authorization = `Bearer ${callOptions.token}`;
    let body: string | Uint8Array | undefined = callOptions.rawBody;
    if (body === undefined && callOptions.body !== undefined) {
      body = JSON.stringify(callOptions.body);
      headers['content-type'] ??= 'application/json';
    }
    const response = await fetch(`${server.url.replace('localhost', '127.0.0.1')}${path}`, { method, headers, body });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // Left as text: the assertion on it will say what came back.
    }
    return { status: response.status, headers: response.headers, body: parsed };
  };
  return { ...server, stop, call };
}

export const uniqueEmail = () => `user-${randomUUID()}@example.com`;
export const PASSWORD = 'a long enough passphrase';

export async function signUp(server: TestServer, email = uniqueEmail()) {
  const reply = await server.call('POST', '/api/auth/register', { body: { email, password: PASSWORD } });
  if (reply.status !== 201) throw new Error(`register failed: ${reply.status} ${JSON.stringify(reply.body)}`);
  return {
    token: reply.body.token as string,
    user: reply.body.user as { id: string; email: string; createdAt: number },
    email,
  };
}

export async function createApp(server: TestServer, token: string, app: { name?: string; type?: string } = {}) {
  const reply = await server.call('POST', '/api/apps', {
    token,
    body: { name: app.name ?? 'Shop', type: app.type ?? 'web' },
  });
  if (reply.status !== 201) throw new Error(`create app failed: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body.app as {
    appKey: string;
    name: string;
    type: string;
    createdAt: number;
    dsn: string;
    slug: string;
    org: string;
  };
}

let sequence = 0;

/** A realistic browser error event; every call gets a new eventId. */
export function makeEvent(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  sequence += 1;
  return {
    eventId: `evt_${randomUUID()}`,
    type: 'error',
    timestamp: Date.now() - 1000,
    platform: 'web',
    sessionId: 'session_tab1',
    anonymousId: `anon_${sequence % 3}`,
    sdkVersion: '1.4.2',
    errorType: 'TypeError',
    message: "Cannot read properties of undefined (reading 'id')",
    stack:
      "TypeError: Cannot read properties of undefined (reading 'id')\n    at renderCart (https://shop.example/assets/app.3f9a2c1b.js:10:20)\n    at onClick (https://shop.example/assets/app.3f9a2c1b.js:42:7)",
    breadcrumbs: [{ timestamp: Date.now() - 2000, category: 'ui.click', message: 'button#checkout', level: 'info' }],
    ...overrides,
  };
}

/** `count` events from makeEvent, each with the same overrides. */
export const makeEvents = (count: number, overrides: Record<string, unknown> = {}) =>
  Array.from({ length: count }, () => makeEvent(overrides));

export async function sendBatch(server: TestServer, appKey: string, events: unknown[]) {
  return server.call('POST', '/api/events/batch', { body: { appKey, events } });
}

/** A 400 VALIDATION_FAILED whose details name `path`. */
export function expectValidationFailed(reply: Reply, path: string): void {
  expect(reply.status, JSON.stringify(reply.body)).toBe(400);
  expect(reply.body.error.code).toBe('VALIDATION_FAILED');
  expect(reply.body.error.details.map((detail: { path: string }) => detail.path)).toContain(path);
}

/** A browser's CORS preflight from https://shop.example for a POST sending `requestHeaders`. */
export function corsPreflight(server: TestServer, path: string, requestHeaders: string): Promise<Reply> {
  return server.call('OPTIONS', path, {
    headers: {
      origin: 'https://shop.example',
      'access-control-request-method': 'POST',
      'access-control-request-headers': requestHeaders,
    },
  });
}

/** A batch's body sent as it is, as JSON: compressed beforehand when `contentEncoding` says so. */
export function sendRawBatch(
  server: TestServer,
  rawBody: string | Uint8Array,
  contentEncoding?: string,
): Promise<Reply> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (contentEncoding) headers['content-encoding'] = contentEncoding;
  return server.call('POST', '/api/events/batch', { rawBody, headers });
}

/** The body of the first ```<lang> block in a README section. */
export function readmeBlock(section: string, lang: string): string {
  const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');
  const start = readme.indexOf(`\n## ${section}\n`);
  if (start < 0) throw new Error(`README has no section "${section}"`);
  const end = readme.indexOf('\n## ', start + 1);
  const block = new RegExp(`\`\`\`${lang}\\n([\\s\\S]*?)\`\`\``).exec(readme.slice(start, end < 0 ? undefined : end));
  if (!block?.[1]) throw new Error(`README section "${section}" has no \`\`\`${lang} block`);
  return block[1];
}

export interface ServiceProcess {
  child: ChildProcess;
  url: string;
  output: string[];
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Resolves when a line of output matches. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<string>;
}

/**
 * The real service as `pnpm start` runs it, in a child process, with `env` over a clean environment. Waits for
 * "listening" unless told not to (a start that must fail).
 */
export async function startService(
  env: Record<string, string>,
  options: { waitForListening?: boolean; account?: { uid: number; gid: number } } = {},
): Promise<ServiceProcess> {
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(
      ([key]) =>
        !['DATABASE_URL', 'DATA_DIR', 'PORT', 'HOST', 'LOG_LEVEL', 'INGEST_RATE_LIMIT', 'INGEST_RATE_BURST'].includes(
          key,
        ),
    ),
  );
  const child = spawn(process.execPath, ['--import', 'tsx', 'services/collector/src/main.ts'], {
    cwd: root,
    env: { ...inherited, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', INGEST_RATE_LIMIT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    ...options.account,
  });
  const output: string[] = [];
  const waiters: { pattern: RegExp; resolve: (line: string) => void }[] = [];
  const onData = (chunk: Buffer) => {
    for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) {
      output.push(line);
      for (const waiter of waiters.filter((each) => each.pattern.test(line))) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(line);
      }
    }
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);
  // A child that could not be started (its node not executable for the account, say) emits 'error' and no 'exit'.
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
    child.once('error', (error) => {
      output.push(`could not start: ${error.message}`);
      resolve({ code: null, signal: null });
    });
  });
  const waitFor = (pattern: RegExp, timeoutMs = 30_000) => {
    const seen = output.find((line) => pattern.test(line));
    if (seen) return Promise.resolve(seen);
    return new Promise<string>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no ${pattern} within ${timeoutMs} ms:\n${output.join('\n')}`)),
        timeoutMs,
      );
      waiters.push({
        pattern,
        resolve: (line) => {
          clearTimeout(timer);
          resolve(line);
        },
      });
      void exit.then(() => reject(new Error(`the service exited before ${pattern}:\n${output.join('\n')}`)));
    });
  };
  if (options.waitForListening === false) return { child, url: '', output, exit, waitFor };
  const listening = await waitFor(/listening on http:\/\//, 60_000);
  const url = /listening on (http:\/\/[^\s"]+)/.exec(listening)?.[1] as string;
  return { child, url, output, exit, waitFor };
}

/** Where the dashboard tests' screenshots land (git-ignored). */
export const dashboardArtifacts = fileURLToPath(new URL('./artifacts/dashboard-ui/', import.meta.url));

/**
 * A browser for the dashboard as the service serves it: the dashboard is built first, but only when its dist is
 * missing or older than its sources (a second or so with rolldown), and the screenshots' folder made.
 */
export async function launchDashboardBrowser(): Promise<Browser> {
  const ensureBuilt = fileURLToPath(new URL('../../dashboard/scripts/ensure-built.mjs', import.meta.url));
  await promisify(execFile)(process.execPath, [ensureBuilt], { timeout: 120_000 });
  mkdirSync(dashboardArtifacts, { recursive: true });
  return launchChromium();
}
