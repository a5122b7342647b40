// Apps: what a user registers to get an ingestion key.
import { z } from 'zod';
import { limits } from './limits';
import { isStorableText, UNSTORABLE_MESSAGE } from './text';

export const appTypes = ['web', 'node', 'ios', 'android', 'react-native', 'flutter', 'electron', 'other'] as const;
export type AppType = (typeof appTypes)[number];

export const appNameSchema = z.string().trim().min(1).max(limits.appNameChars).refine(isStorableText, UNSTORABLE_MESSAGE);
export const appTypeSchema = z.enum(appTypes);

/** `<type>_<id>`; the id part is random, so only the shape can be checked without a lookup. */
export const appKeyPattern = /^[a-z-]{2,16}_[A-Za-z0-9]{16,64}$/;

export interface App {
  appKey: string;
  name: string;
  type: AppType;
  createdAt: number;
  /** Where Sentry SDKs send this app's events (see sentry/dsn.ts). */
  dsn: string;
}
