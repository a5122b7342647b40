// `pnpm lint:openapi`: the OWASP and OpenAPI lint of the collector's /api/openapi.json (ruleset: ../.spectral.yaml).
//
//   pnpm lint:openapi                           the document generated from the router, as the service serves it
//   pnpm lint:openapi --url http://localhost:3100   the one a running service serves
//
// Exits 1 on any error; warnings are printed and do not fail.
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const { values: flags } = parseArgs({ options: { url: { type: 'string' } }, strict: true });

const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const target = join(packageDir, 'generated', 'openapi.json');

async function loadDocument(): Promise<unknown> {
  if (flags.url) {
    const response = await fetch(new URL('/api/openapi.json', flags.url));
    if (!response.ok) throw new Error(`GET /api/openapi.json: ${response.status}`);
    return response.json();
  }
  // The same call app.ts makes to serve /api/openapi.json.
  const { createOpenApiDocument } = await import('@collector/api');
  return createOpenApiDocument({ baseUrl: '/', version: '0.1.0' });
}

const document = await loadDocument();
mkdirSync(dirname(target), { recursive: true });
// The overrides in .spectral.yaml point into this file by name (generated/openapi.json).
writeFileSync(target, `${JSON.stringify(document, null, 2)}\n`);
console.log(`linting ${flags.url ? `${flags.url}/api/openapi.json` : 'the generated /api/openapi.json'} with Spectral (spectral:oas + OWASP 2023)`);

const spectral = spawnSync(
  join(packageDir, 'node_modules', '.bin', 'spectral'),
  ['lint', '--ruleset', join(packageDir, '.spectral.yaml'), '--fail-severity', 'error', target],
  { stdio: 'inherit', cwd: packageDir },
);
if (spectral.error) throw spectral.error;
console.log(spectral.status === 0 ? 'OpenAPI lint: no errors' : 'OpenAPI lint: errors found');
process.exit(spectral.status ?? 1);
