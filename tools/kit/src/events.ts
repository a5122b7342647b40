// Realistic browser events, ~2 KB each, as pre-rendered JSON so the load generator spends little CPU per request.
// ~200 distinct problems (fingerprints), a few thousand anonymous users and sessions, every eventId unique.
import { rng } from './random';

const ERROR_TYPES = [
  'TypeError',
  'ReferenceError',
  'RangeError',
  'Error',
  'ChunkLoadError',
  'SyntaxError',
  'UnhandledRejection',
  'AbortError',
];
const COMPONENTS = [
  'CartDrawer',
  'CheckoutForm',
  'ProductGrid',
  'SearchBar',
  'UserMenu',
  'OrderHistory',
  'PaymentSheet',
  'ReviewList',
  'WishlistButton',
  'ShippingEstimator',
  'CouponField',
  'RecommendationRail',
  'StoreLocator',
  'AccountSettings',
  'NotificationBell',
  'ImageCarousel',
  'SizeGuide',
  'LiveChat',
  'FilterPanel',
  'MiniCart',
  'AddressBook',
  'GiftCardForm',
  'LoyaltyBadge',
  'ReturnWizard',
  'InventoryBadge',
];
const PROPS = [
  'id',
  'items',
  'price',
  'length',
  'map',
  'user',
  'token',
  'variant',
  'quantity',
  'address',
  'currency',
  'total',
];
const MESSAGES: ((kind: number, r: () => number) => string)[] = [
  (k) => `Cannot read properties of undefined (reading '${PROPS[k % PROPS.length]}')`,
  (k) => `Cannot read properties of null (reading '${PROPS[(k * 5) % PROPS.length]}')`,
  (k) => `${PROPS[(k * 3) % PROPS.length]}Store is not defined`,
  (_k, r) => `Invalid array length ${Math.floor(r() * 100000) + 4294967296}`,
  (_k, r) =>
    `Loading chunk ${Math.floor(r() * 900) + 100} failed. (error: https://shop.example/assets/chunk-${Math.floor(r() * 1e8).toString(16)}.js)`,
  (k) => `this.${PROPS[(k * 7) % PROPS.length]}.map is not a function`,
  (_k, r) => `Unexpected token '<', "<!DOCTYPE "... is not valid JSON at position ${Math.floor(r() * 40)}`,
  (_k, r) => `Request for order ${Math.floor(r() * 1e7)} timed out after ${Math.floor(r() * 20) + 10}000 ms`,
  () => 'Maximum call stack size exceeded',
  (_k, r) => `Failed to execute 'removeChild' on 'Node': node ${Math.floor(r() * 9000)} is not a child of this node.`,
  () => 'The operation was aborted.',
  (k) =>
    `Minified React error #${[185, 418, 423, 425, 130][k % 5]}; visit https://react.dev/errors/${[185, 418, 423, 425, 130][k % 5]} for the full message`,
];
const FILES = ['main', 'vendor', 'checkout', 'catalog', 'account', 'runtime'];
const RESOURCES = ['orders', 'carts', 'products', 'users', 'payments', 'reviews', 'shipments', 'coupons'];
const SUBRESOURCES = ['items', 'status', 'summary', 'refunds', 'history'];
const METHODS = ['GET', 'POST', 'PUT', 'DELETE'];
const STATUSES = [500, 502, 503, 504, 0, 429];
const USER_AGENTS = [
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (X11; Linux x86_64; rv:132.0) Gecko/20100101 Firefox/132.0',
  'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36',
];
const PAGES = [
  '/',
  '/cart',
  '/checkout',
  '/checkout/payment',
  '/products/42-linen-shirt',
  '/account/orders',
  '/search?q=shoes',
  '/wishlist',
];

const pick = <T>(items: readonly T[], r: () => number): T => items[Math.floor(r() * items.length)] as T;
const hex = (r: () => number, length: number) =>
  Array.from({ length }, () => Math.floor(r() * 16).toString(16)).join('');

function stackFor(kind: number, errorType: string, message: string, r: () => number): string {
  const component = COMPONENTS[kind % COMPONENTS.length] as string;
  const depth = 8 + (kind % 5);
  const frames: string[] = [];
  for (let i = 0; i < depth; i++) {
    // The top five frames (what the fingerprint reads) depend on the kind only; bundle hashes and positions vary.
    const fn =
      i === 0
        ? `${component}.handle${PROPS[(kind >> 3) % PROPS.length]}${kind}`
        : i < 5
          ? `${component}.render${i}`
          : pick(
              [
                'commitRoot',
                'performWorkOnRoot',
                'flushSyncCallbacks',
                'dispatchEvent',
                'batchedUpdates',
                'Object.next',
                'step',
                'fulfilled',
              ],
              r,
            );
    const file = i < 5 ? FILES[(kind + i) % FILES.length] : 'vendor';
    frames.push(
      `    at ${fn} (https://shop.example/assets/${file}-D${hex(r, 7)}.js:${1 + Math.floor(r() * 900)}:${1 + Math.floor(r() * 40000)})`,
    );
  }
  return `${errorType}: ${message}\n${frames.join('\n')}`;
}

function breadcrumbs(r: () => number, now: number) {
  const count = 4 + Math.floor(r() * 4);
  return Array.from({ length: count }, (_, i) => {
    const t = now - (count - i) * 1500;
    switch (Math.floor(r() * 4)) {
      case 0:
        return {
          timestamp: t,
          category: 'ui.click',
          level: 'info',
          message: `button.btn.btn-primary[data-test="${pick(PROPS, r)}-submit"]`,
        };
      case 1:
        return {
          timestamp: t,
          category: 'navigation',
          level: 'info',
          data: { from: pick(PAGES, r), to: pick(PAGES, r) },
        };
      case 2:
        return {
          timestamp: t,
          category: 'fetch',
          level: 'info',
          data: {
            method: 'GET',
            url: `https://api.shop.example/v1/${pick(RESOURCES, r)}?page=${Math.floor(r() * 9)}`,
            status_code: 200,
          },
        };
      default:
        return {
          timestamp: t,
          category: 'console',
          level: 'warning',
          message: `[${pick(COMPONENTS, r)}] slow render: ${Math.floor(r() * 400)} ms`,
        };
    }
  });
}

const TIERS = ['free', 'pro', 'enterprise'];
const FEATURES = ['new-checkout', 'one-click-pay', 'gift-wrap'];

/**
 * Custom tags as a shop's SDK sets them: the customer's tier, the page, and on a quarter of the problems a feature
 * flag, so that a has: search finds some issues and not others.
 */
function tagsFor(kind: number, page: string, r: () => number): Record<string, string> {
  return {
    tier: pick(TIERS, r),
    page: page.split('?')[0] as string,
    ...(kind % 4 === 0 ? { feature: pick(FEATURES, r) } : {}),
  };
}

/** One event's JSON without its leading "{" and without eventId, timestamp, sessionId and anonymousId (added per request). */
function template(kind: number, r: () => number, withTags: boolean): string {
  const now = Date.now();
  const page = pick(PAGES, r);
  const context = {
    platform: 'web',
    sdkVersion: '1.4.2',
    url: `https://shop.example${page}`,
    userAgent: pick(USER_AGENTS, r),
    release: 'shop-web@2026.11.3',
    environment: 'production',
    breadcrumbs: breadcrumbs(r, now),
    ...(withTags ? { tags: tagsFor(kind, page, r) } : {}),
  };
  let event: Record<string, unknown>;
  if (kind % 8 === 7) {
    // A failed network request: its issue is method + endpoint (ids removed) + status.
    const k = kind >> 3;
    // Every combination of resource, sub-resource, status and method once (960), then the API version changes.
    const url = `https://api.shop.example/v${1 + Math.floor(k / 960)}/${RESOURCES[k % RESOURCES.length]}/${Math.floor(r() * 1e6)}/${SUBRESOURCES[Math.floor(k / 8) % SUBRESOURCES.length]}?ref=${hex(r, 6)}`;
    const status = STATUSES[Math.floor(k / 40) % STATUSES.length] as number;
    const method = METHODS[Math.floor(k / 240) % METHODS.length] as string;
    event = {
      type: 'request',
      ...(status === 0 ? { errorType: 'NetworkError', message: 'Failed to fetch' } : {}),
      request: { method, url, status, durationMs: Math.round(r() * 30000) / 10 },
      ...context,
    };
  } else {
    const errorType = ERROR_TYPES[kind % ERROR_TYPES.length] as string;
    const message = (MESSAGES[kind % MESSAGES.length] as (typeof MESSAGES)[number])(kind, r);
    event = { type: 'error', errorType, message, stack: stackFor(kind, errorType, message, r), ...context };
  }
  return JSON.stringify(event).slice(1);
}

export interface EventSourceOptions {
  kinds?: number;
  variantsPerKind?: number;
  users?: number;
  seed?: number;
  batchSize?: number;
  /** Events carry custom tags (tagsFor); off by default, so the ingestion benches send what they always sent. */
  tags?: boolean;
}

/** Which part of the traffic a batch draws from: a range of problems and of users, and the events' time. */
export interface Slice {
  /** [from, to) of the kinds (problems): an app of its own has its own issues. */
  kinds?: readonly [number, number];
  /** [from, to) of the users. */
  users?: readonly [number, number];
  /** Each event's timestamp; default: within the last minute. */
  timestamp?: () => number;
}

export interface EventSource {
  /** A JSON batch body `{ appKey, events }` with `batchSize` events, every eventId new. */
  batch(appKey: string, slice?: Slice): string;
  /** Average size of one event's JSON in bytes. */
  averageEventBytes: number;
  batchSize: number;
  eventsMade(): number;
}

export function createEventSource(options: EventSourceOptions = {}): EventSource {
  const kinds = options.kinds ?? 200;
  const variants = options.variantsPerKind ?? 8;
  const users = options.users ?? 3_000;
  const batchSize = options.batchSize ?? 50;
  const r = rng(options.seed ?? 42);
  const templates: string[][] = Array.from({ length: kinds }, (_, kind) =>
    Array.from({ length: variants }, () => template(kind, r, options.tags ?? false)),
  );
  const anonymousIds = Array.from({ length: users }, (_, i) => `"anonymousId":"anon_${i.toString(36)}${hex(r, 12)}",`);
  const sessionIds = Array.from({ length: users * 2 }, () => `"sessionId":"session_${hex(r, 20)}",`);
  // Unique across runs too, so a database that was not dropped never turns fresh events into duplicates.
  const runTag = `${Date.now().toString(36)}${hex(Math.random, 6)}_`;
  let counter = 0;
  // Uneven popularity: a few problems make most events, as in real traffic.
  const pickIn = ([from, to]: readonly [number, number]) => from + Math.floor((to - from) * r() ** 2);
  const allKinds = [0, kinds] as const;
  const allUsers = [0, users] as const;

  const source = {
    batchSize,
    averageEventBytes: 0,
    eventsMade: () => counter,
    batch(appKey: string, slice: Slice = {}) {
      const now = Date.now();
      const kindRange = slice.kinds ?? allKinds;
      const [userFrom, userTo] = slice.users ?? allUsers;
      const parts: string[] = new Array(batchSize);
      for (let i = 0; i < batchSize; i++) {
        const variantsOfKind = templates[pickIn(kindRange)] as string[];
        const body = variantsOfKind[Math.floor(r() * variants)] as string;
        const user = userFrom + Math.floor(r() * (userTo - userFrom));
        const who =
          r() < 0.9 ? (anonymousIds[user] as string) + (sessionIds[user * 2 + (r() < 0.5 ? 0 : 1)] as string) : '';
        const timestamp = slice.timestamp ? slice.timestamp() : now - Math.floor(r() * 60_000);
        parts[i] = `{"eventId":"evt_${runTag}${(counter++).toString(36)}","timestamp":${timestamp},${who}${body}`;
      }
      return `{"appKey":${JSON.stringify(appKey)},"events":[${parts.join(',')}]}`;
    },
  };
  // Measured on sample batches that are never sent (their eventIds are simply skipped).
  let bytes = 0;
  for (let i = 0; i < 20; i++) bytes += Buffer.byteLength(source.batch('app_sample'));
  source.averageEventBytes = Math.round(bytes / 20 / batchSize);
  return source;
}
