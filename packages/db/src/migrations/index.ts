// Migrations are listed here rather than read from a folder, so they work the same under tsx, vitest and a bundler.
import type { Migration } from 'kysely';
import * as initial from './2026_11_21_0001_initial';
import * as appHourly from './2026_11_21_0002_app_hourly';
import * as activityHours from './2026_11_21_0003_activity_hours';
import * as ownerUsers from './2026_11_21_0004_owner_users';
import * as eventsWindowIndex from './2026_11_21_0005_events_window_index';
import * as overviewWindow from './2026_11_21_0006_overview_window';
import * as activityByHour from './2026_11_21_0007_activity_by_hour';
import * as activityKindNames from './2026_11_23_0008_activity_kind_names';
import * as appDsn from './2026_11_23_0009_app_dsn';
import * as triage from './2026_11_23_0010_triage';
import * as retention from './2026_11_23_0011_retention';
import * as alerts from './2026_11_23_0012_alerts';
import * as rateLeases from './2026_11_23_0013_rate_leases';
import * as deletedEventMinutes from './2026_11_23_0014_deleted_event_minutes';
import * as payloadLz4 from './2026_11_23_0015_payload_lz4';
import * as issuesHotUpdates from './2026_11_23_0016_issues_hot_updates';
import * as counterLedger from './2026_11_25_0017_counter_ledger';
import * as organizations from './2026_11_25_0018_organizations';
import * as orgUsers from './2026_11_25_0019_org_users';
import * as eventData from './2026_11_25_0020_event_data';
import * as feedback from './2026_11_25_0021_feedback';
import * as releasesArtifacts from './2026_11_26_0022_releases_artifacts';
import * as fingerprintAliases from './2026_11_26_0023_fingerprint_aliases';
import * as issuesListIndex from './2026_11_27_0024_issues_list_index';
import * as eventAppChecks from './2026_11_27_0025_event_app_checks';
import * as overviewLastHour from './2026_11_27_0026_overview_last_hour';
import * as appReleases from './2026_11_27_0027_app_releases';
import * as issueUsersPending from './2026_11_28_0028_issue_users_pending';

export const migrations: Record<string, Migration> = {
  '2026_11_21_0001_initial': initial,
  '2026_11_21_0002_app_hourly': appHourly,
  '2026_11_21_0003_activity_hours': activityHours,
  '2026_11_21_0004_owner_users': ownerUsers,
  '2026_11_21_0005_events_window_index': eventsWindowIndex,
  '2026_11_21_0006_overview_window': overviewWindow,
  '2026_11_21_0007_activity_by_hour': activityByHour,
  '2026_11_23_0008_activity_kind_names': activityKindNames,
  '2026_11_23_0009_app_dsn': appDsn,
  '2026_11_23_0010_triage': triage,
  '2026_11_23_0011_retention': retention,
  '2026_11_23_0012_alerts': alerts,
  '2026_11_23_0013_rate_leases': rateLeases,
  '2026_11_23_0014_deleted_event_minutes': deletedEventMinutes,
  '2026_11_23_0015_payload_lz4': payloadLz4,
  '2026_11_23_0016_issues_hot_updates': issuesHotUpdates,
  '2026_11_25_0017_counter_ledger': counterLedger,
  '2026_11_25_0018_organizations': organizations,
  '2026_11_25_0019_org_users': orgUsers,
  '2026_11_25_0020_event_data': eventData,
  '2026_11_25_0021_feedback': feedback,
  '2026_11_26_0022_releases_artifacts': releasesArtifacts,
  '2026_11_26_0023_fingerprint_aliases': fingerprintAliases,
  '2026_11_27_0024_issues_list_index': issuesListIndex,
  '2026_11_27_0025_event_app_checks': eventAppChecks,
  '2026_11_27_0026_overview_last_hour': overviewLastHour,
  '2026_11_27_0027_app_releases': appReleases,
  '2026_11_28_0028_issue_users_pending': issueUsersPending,
};
