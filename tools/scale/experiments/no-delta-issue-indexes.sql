-- The ledger's delta tables without their index by issue: with the one repeated body, every insert of an issue's
-- deltas lands on the same leaf of it (docs/scaling.md). The reads that use them are not run by the scale load.
drop index issue_contexts_deltas_issue, issue_days_deltas_issue, issue_deltas_issue, issue_tags_deltas_issue;
