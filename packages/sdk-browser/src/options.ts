// init()'s options, and the defaults and bounds they get.
import { MAX_BREADCRUMBS } from './breadcrumbs';
import { type CollectorEvent, fieldLimits } from './event';

export interface InitOptions {
  /** The app's ingestion key (`web_...`), from POST /api/apps or the dashboard. */
  appKey: string;
  /** Where the collector is served, e.g. https://collector.example.com; events go to <endpoint>/api/events/batch. */
  endpoint: string;
  release?: string;
  environment?: string;
  /** Share of events sent, 0 to 1 (default 1): 0.25 sends one in four. */
  sampleRate?: number;
  /** Sees every event last; return it (changed or not) to send it, null or false to drop it. If it throws, the event is dropped. */
  beforeSend?: (event: CollectorEvent) => CollectorEvent | null | undefined | false;
  /** Breadcrumbs kept and sent with each event, 0 to 100 (default 100). */
  maxBreadcrumbs?: number;
  /**
   * Which failed fetch/XMLHttpRequest calls become `request` events. Default true: network failures and statuses
   * 500-599. An array lists the statuses instead (numbers or [from, to] ranges; network failures still count);
   * false captures none (they still leave breadcrumbs).
   */
  captureFailedRequests?: boolean | Array<number | [number, number]>;
  /** How long an event may wait to share a request with others (default 5000 ms); 50 queued events go at once. */
  flushIntervalMs?: number;
  /** Events held at most while the collector is slow or unreachable (default 100); newer ones are dropped beyond it. */
  maxQueueSize?: number;
}

export interface ResolvedOptions {
  appKey: string;
  /** Absolute URL of POST /api/events/batch. */
  ingestUrl: string;
  release: string | undefined;
  environment: string | undefined;
  sampleRate: number;
  beforeSend: InitOptions['beforeSend'];
  maxBreadcrumbs: number;
  /** Whether a status (0: no answer) makes a request event. */
  isFailedRequest: (status: number) => boolean;
  flushIntervalMs: number | undefined;
  maxQueueSize: number | undefined;
}

const optionalText = (value: unknown, max: number) =>
  typeof value === 'string' && value ? value.slice(0, max) : undefined;

function failedRequestRule(option: InitOptions['captureFailedRequests']): (status: number) => boolean {
  if (option === false) return () => false;
  const ranges: Array<[number, number]> = Array.isArray(option)
    ? option.map((entry) =>
        Array.isArray(entry) ? [Number(entry[0]), Number(entry[1])] : [Number(entry), Number(entry)],
      )
    : [[500, 599]];
  return (status) => status === 0 || ranges.some(([from, to]) => status >= from && status <= to);
}

/** Options with defaults applied, or a reason why init cannot start. Relative endpoints resolve against the page. */
export function resolveOptions(options: InitOptions, pageUrl: string | undefined): ResolvedOptions | string {
  if (typeof options !== 'object' || options === null) return 'init needs { appKey, endpoint }';
  const { appKey, endpoint } = options;
  if (typeof appKey !== 'string' || !appKey) return 'init: appKey is required';
  if (typeof endpoint !== 'string' || !endpoint) return 'init: endpoint is required';
  let ingestUrl: string;
  try {
    ingestUrl = new URL(`${endpoint.replace(/\/+$/, '')}/api/events/batch`, pageUrl).href;
  } catch {
    return `init: endpoint ${endpoint} is not a URL`;
  }
  const sampleRate =
    typeof options.sampleRate === 'number' && options.sampleRate >= 0 && options.sampleRate <= 1
      ? options.sampleRate
      : 1;
  const maxBreadcrumbs =
    typeof options.maxBreadcrumbs === 'number' && options.maxBreadcrumbs >= 0
      ? Math.min(MAX_BREADCRUMBS, options.maxBreadcrumbs)
      : MAX_BREADCRUMBS;
  return {
    appKey,
    ingestUrl,
    release: optionalText(options.release, fieldLimits.release),
    environment: optionalText(options.environment, fieldLimits.environment),
    sampleRate,
    beforeSend: typeof options.beforeSend === 'function' ? options.beforeSend : undefined,
    maxBreadcrumbs,
    isFailedRequest: failedRequestRule(options.captureFailedRequests),
    flushIntervalMs: typeof options.flushIntervalMs === 'number' ? options.flushIntervalMs : undefined,
    maxQueueSize: typeof options.maxQueueSize === 'number' ? options.maxQueueSize : undefined,
  };
}
