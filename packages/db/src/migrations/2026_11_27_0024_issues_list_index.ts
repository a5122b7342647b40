// The issue list reads every issue of the caller's apps that matches its filters, to count them and to take a page
// (issues.ts, listIssues). The issues' rows are wide (message, culprit, search text) and, at fillfactor 70, about
// seven to a page: on 1,000,000 bench events, 5,047 issues took 757 pages, and reading them was a third of a list's
// time. This index holds what the list filters and sorts by, about ninety to a page, for index-only scans. Since the
// counter ledger, an issue's row is updated by the fold (at most once a fold, every ~0.5 s) instead of by every write
// statement, so the updates this index keeps from being HOT are few; the reason migration 0016 dropped the list's
// last index no longer holds. Frozen once landed.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`create index issues_list on issues (app_key)
    include (fingerprint, status, type, level, last_seen_at, first_seen_at, event_count, user_count)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index issues_list`.execute(db);
}
