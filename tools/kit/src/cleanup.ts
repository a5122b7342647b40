// What a tool must undo before it exits (servers, databases, folders, clusters), even when interrupted.

export type Cleanup = () => Promise<void> | void;

export interface Cleanups {
  /** Steps to run at the end, last-added first. */
  cleanups: Cleanup[];
  /** Runs the steps, each even when another fails. */
  cleanup: () => Promise<void>;
  /** Runs `main`, then the cleanup, and exits: 0 when `main` answered true, 1 when false or it threw. */
  exitAfter: (main: () => Promise<boolean>) => Promise<never>;
}

/** SIGINT and SIGTERM run the cleanup too, saying `onSignal`, then exit 130. */
export function cleanupOnExit(onSignal: string): Cleanups {
  const cleanups: Cleanup[] = [];
  async function cleanup() {
    while (cleanups.length > 0) {
      try {
        await cleanups.pop()?.();
      } catch (error) {
        console.error('cleanup:', (error as Error).message);
      }
    }
  }
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      console.error(`\n${signal}: ${onSignal}`);
      void cleanup().then(() => process.exit(130));
    });
  }
  async function exitAfter(main: () => Promise<boolean>): Promise<never> {
    let passed = false;
    try {
      passed = await main();
    } catch (error) {
      console.error(error);
    } finally {
      await cleanup();
    }
    process.exit(passed ? 0 : 1);
  }
  return { cleanups, cleanup, exitAfter };
}
