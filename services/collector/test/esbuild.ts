// esbuild for the tests that build an app: its command line, a process per build. Not its JS API: the API's long-lived
// service process twice left a build unanswered for good under CI's load (symbolication.test.ts: no esbuild process
// was left, and the promise never settled), and the test waited out its 30 s.
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** esbuild's own executable, as its package installs it. */
const executable = join(dirname(createRequire(import.meta.url).resolve('esbuild/package.json')), 'bin', 'esbuild');

/** Runs esbuild with `args` (its CLI's flags), `stdin` as its input if given; resolves to what it wrote to stdout. */
export function esbuild(args: readonly string[], options: { cwd?: string; stdin?: string } = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      executable,
      [...args, '--log-level=error'],
      { cwd: options.cwd, timeout: 30_000, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) =>
        error ? reject(new Error(`esbuild failed: ${error.message}\n${stderr}`)) : resolve(stdout),
    );
    child.stdin?.end(options.stdin ?? '');
  });
}
