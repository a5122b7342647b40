// Migrations are listed here rather than read from a folder, so they work the same under tsx, vitest and a bundler.
import type { Migration } from 'kysely';
import * as initial from './2026_11_21_0001_initial';
import * as appHourly from './2026_11_21_0002_app_hourly';

export const migrations: Record<string, Migration> = {
  '2026_11_21_0001_initial': initial,
  '2026_11_21_0002_app_hourly': appHourly,
};
