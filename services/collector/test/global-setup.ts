// One database set-up for the whole run (packages/db/test/database.ts): TEST_DATABASE_URL migrated once, or one
// embedded PostgreSQL cluster whose migrated template each test file copies.
import { setUpTestDatabases } from '@collector/db/testing';
import type { TestProject } from 'vitest/node';

export default async function setup(project: TestProject) {
  return setUpTestDatabases((cluster) => project.provide('embeddedCluster', cluster));
}
