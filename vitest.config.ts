import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['packages/*/src/**/*.test.ts', 'services/*/test/**/*.test.ts'],
    globalSetup: ['services/collector/test/global-setup.ts'],
    // Each HTTP test file starts its own server and database; argon2 hashing makes auth tests CPU-bound.
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
