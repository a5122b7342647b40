// Apps: what a user registers to get an ingestion key. Zod-free, so the dashboard can import the list of types
// (`@collector/domain/app`) without the schemas; those are in app-schemas.ts.
import { limits } from './limits';

export const appTypes = ['web', 'node', 'ios', 'android', 'react-native', 'flutter', 'electron', 'other'] as const;
export type AppType = (typeof appTypes)[number];

/** An app's name: 1 to 100 characters after trimming. */
export const appNameChars = { min: 1, max: limits.appNameChars } as const;

/** `<type>_<id>`; the id part is random, so only the shape can be checked without a lookup. */
export const appKeyPattern = /^[a-z-]{2,16}_[A-Za-z0-9]{16,64}$/;

export interface App {
  appKey: string;
  name: string;
  type: AppType;
  createdAt: number;
  /** Where Sentry SDKs send this app's events (see sentry/dsn.ts). */
  dsn: string;
  /** Unique within its organization, never all digits: Sentry's project slug. */
  slug: string;
  /** Its organization's slug. */
  org: string;
}
