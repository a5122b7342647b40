// Builds the browser SDK into dist/: collector.esm.js for bundlers and <script type="module">, and collector.min.js,
// one IIFE file for a plain <script> tag that defines the global `Collector`. Prints sizes; fails over the budget.
// Run with `pnpm --filter @collector/sdk-browser build`; the browser test calls buildSdk() itself.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build, type Metafile, stop } from 'esbuild';

export const GLOBAL_NAME = 'Collector';
/** 10 KB, minified and gzipped, for the IIFE a page downloads. */
export const SIZE_BUDGET_GZIP_BYTES = 10 * 1024;
export const IIFE_FILE = 'collector.min.js';
export const ESM_FILE = 'collector.esm.js';

const packageDir = fileURLToPath(new URL('..', import.meta.url));
export const defaultOutdir = path.join(packageDir, 'dist');

export interface BuiltFile {
  path: string;
  bytes: number;
  gzipBytes: number;
}

export interface BuildResult {
  iife: BuiltFile;
  esm: BuiltFile;
}

// The domain root pulls in zod (tens of KB); only its zod-free subpaths (fingerprint, limits, retry-after) may reach
// the bundle.
const FORBIDDEN_INPUTS = [/[/\\]zod[/\\]/, /domain[/\\]src[/\\]index\.ts$/];

function checkInputs(metafile: Metafile): void {
  const forbidden = Object.keys(metafile.inputs).filter((input) =>
    FORBIDDEN_INPUTS.some((pattern) => pattern.test(input)),
  );
  if (forbidden.length > 0) throw new Error(`the SDK bundle must not include ${forbidden.join(', ')}`);
}

async function bundle(format: 'iife' | 'esm', outfile: string): Promise<BuiltFile> {
  const result = await build({
    entryPoints: [path.join(packageDir, 'src/index.ts')],
    outfile,
    bundle: true,
    format,
    ...(format === 'iife' ? { globalName: GLOBAL_NAME } : {}),
    platform: 'browser',
    // Browsers of 2020 on (Chrome 80, Firefox 74, Safari 14): optional chaining and ?? need no rewriting.
    target: ['es2020'],
    minify: true,
    sourcemap: true,
    metafile: true,
    write: false,
    logLevel: 'silent',
  });
  checkInputs(result.metafile);
  let code: Uint8Array | undefined;
  for (const file of result.outputFiles) {
    await writeFile(file.path, file.contents);
    if (file.path === outfile) code = file.contents;
  }
  if (!code) throw new Error(`esbuild wrote no ${outfile}`);
  return { path: outfile, bytes: code.byteLength, gzipBytes: gzipSync(code, { level: 9 }).byteLength };
}

/** Builds of this process in flight: esbuild's one service process serves them all. */
let building = 0;

/** Builds both files into `outdir` (default packages/sdk-browser/dist) and checks the IIFE against the budget. */
export async function buildSdk(options: { outdir?: string } = {}): Promise<BuildResult> {
  building += 1;
  try {
    const outdir = options.outdir ?? defaultOutdir;
    await mkdir(outdir, { recursive: true });
    const [iife, esm] = await Promise.all([
      bundle('iife', path.join(outdir, IIFE_FILE)),
      bundle('esm', path.join(outdir, ESM_FILE)),
    ]);
    if (iife.gzipBytes > SIZE_BUDGET_GZIP_BYTES) {
      throw new Error(`${IIFE_FILE} is ${iife.gzipBytes} B gzipped, over the budget of ${SIZE_BUDGET_GZIP_BYTES} B`);
    }
    return { iife, esm };
  } finally {
    building -= 1;
  }
}

/**
 * Stops esbuild's service process (~20 MB RSS), which otherwise lives as long as the process that built: for a
 * long-running caller (the collector builds the SDK once at start). Not while another build of this process runs (it
 * would never finish); a later build starts a new one.
 */
export async function stopBuilder(): Promise<void> {
  if (building === 0) await stop();
}

export function describeBuild(result: BuildResult): string {
  const line = (file: BuiltFile) =>
    `${path.relative(process.cwd(), file.path).padEnd(40)} ${String(file.bytes).padStart(7)} B minified  ${String(file.gzipBytes).padStart(6)} B gzipped`;
  return `${line(result.iife)}  (budget ${SIZE_BUDGET_GZIP_BYTES} B)\n${line(result.esm)}`;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  buildSdk().then(
    (result) => console.log(describeBuild(result)),
    (error: unknown) => {
      console.error(error instanceof Error ? error.message : error);
      process.exitCode = 1;
    },
  );
}
