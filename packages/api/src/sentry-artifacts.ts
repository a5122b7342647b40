// Source-map uploads as sentry-cli (2.x and 3.x) and the bundler plugins make them: the chunk-upload options, chunks
// (owned by the organization that uploads them, named by their SHA-1), and the assembly of an artifact bundle from its
// chunks (artifact-bundle.ts reads it). A bundle's state lives in artifact_bundles, so any collector process answers
// the polls of `assemble`; the assembling runs in the background of the process that got the last chunk.
import { createHash, randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';
import {
  claimArtifactBundle,
  completeArtifactBundle,
  type Db,
  dropStaleArtifactBundle,
  failArtifactBundle,
  findArtifactBundle,
  findOrgApp,
  heldUploadChunks,
  readUploadChunk,
  storeUploadChunk,
} from '@collector/db';
import { z } from 'zod';
import { BundleError, readArtifactBundle } from './artifact-bundle';
import { authorizeOrg, type Principal } from './auth/authorize';
import { contractError } from './errors';

const MiB = 1024 * 1024;

/** What the upload options advertise and the upload and assemble endpoints enforce. */
export const uploadLimits = {
  /** Sentry's own chunk size. */
  chunkSize: 8 * MiB,
  chunksPerRequest: 4,
  /** A request's body: the chunks it carries, compressed or not, and the multipart framing. */
  maxRequestSize: 32 * MiB + 64 * 1024,
  /** The largest bundle (the ZIP); its contents are capped again unpacked (artifact-bundle.ts). */
  maxFileSize: 100 * MiB,
  concurrency: 2,
  /** An assembly that has been running this long died with its process: the next `assemble` starts it again. */
  staleAssemblyMs: 10 * 60 * 1000,
} as const;

const maxChunksPerBundle = Math.ceil(uploadLimits.maxFileSize / uploadLimits.chunkSize);

interface SentryCaller {
  db: Db;
  principal: Principal;
  publicUrl: () => string;
}

const SHA1 = /^[0-9a-f]{40}$/;
const sha1 = (data: Buffer) => createHash('sha1').update(data).digest('hex');
const gunzipAsync = promisify(gunzip);

const invalid = (path: string, message: string) => contractError('VALIDATION_FAILED', { details: [{ path, message }] });

/**
 * `GET /api/0/organizations/{org}/chunk-upload/`. `accept` says what sentry-cli may send: `release_files` is what
 * makes 2.x upload source maps by chunks at all (else it posts file by file to an API the collector does not serve),
 * `artifact_bundles` makes it assemble them as a standalone bundle here (with a project; older 2.x releases without
 * one assemble through the release's path, served too, while 2.58 insists on --project), and `artifact_bundles_v2` makes it ask `assemble` first and send
 * only the missing chunks. 3.x uploads artifact bundles whatever it is told. Nothing else (debug files, ProGuard...)
 * is advertised, since nothing else is assembled.
 */
export async function sentryChunkUploadOptions(caller: SentryCaller, slug: string) {
  const org = await authorizeOrg(caller, slug, 'releases.manage');
  const base = caller.publicUrl().replace(/\/+$/, '');
  return {
    url: `${base}/api/0/organizations/${org.slug}/chunk-upload/`,
    chunkSize: uploadLimits.chunkSize,
    chunksPerRequest: uploadLimits.chunksPerRequest,
    maxFileSize: uploadLimits.maxFileSize,
    maxRequestSize: uploadLimits.maxRequestSize,
    concurrency: uploadLimits.concurrency,
    hashAlgorithm: 'sha1',
    compression: ['gzip'],
    accept: ['release_files', 'artifact_bundles', 'artifact_bundles_v2'],
  };
}

/**
 * `POST` to the upload url: a multipart body (already read, within maxRequestSize) with one part per chunk, `file_gzip`
 * (gzip) or `file`, each part's filename the SHA-1 of its uncompressed bytes. Chunks are checked and stored one at a
 * time, so a request holds its body and one chunk; a gzip part stops inflating past the chunk size (a bomb costs what
 * the chunk size is). Nothing is stored unless every part is right.
 */
export async function sentryUploadChunks(
  caller: SentryCaller,
  slug: string,
  contentType: string,
  /** Reads the body: called once the caller may upload, so that no one else makes the server read 32 MiB. */
  readBody: () => Promise<Buffer>,
  now: number,
) {
  const org = await authorizeOrg(caller, slug, 'releases.manage');
  if (!/^multipart\/form-data\b/i.test(contentType)) throw invalid('body', 'a multipart/form-data body is expected');
  const body = await readBody();
  let form: FormData;
  try {
    // Node's own multipart parser (undici, through fetch's Response), on a body already capped in size.
    // A view typed on ArrayBuffer (a read body is never shared memory): the DOM's BodyInit, which the dashboard
    // type-checks this package against, takes no Buffer.
    const bytes = new Uint8Array(body.buffer as ArrayBuffer, body.byteOffset, body.byteLength);
    form = await new Response(bytes, { headers: { 'content-type': contentType } }).formData();
  } catch {
    throw invalid('body', 'the multipart body does not parse');
  }
  const chunks: { checksum: string; data: Buffer }[] = [];
  let parts = 0;
  for (const [field, value] of form.entries()) {
    parts++;
    if (parts > uploadLimits.chunksPerRequest)
      throw invalid('body', `at most ${uploadLimits.chunksPerRequest} chunks a request`);
    if (field !== 'file' && field !== 'file_gzip') throw invalid(field, 'parts are named file or file_gzip');
    if (typeof value === 'string') throw invalid(field, 'a part must be a file named by its SHA-1');
    const checksum = value.name.toLowerCase();
    if (!SHA1.test(checksum)) throw invalid(field, 'the part is not named by a SHA-1 (40 hex digits)');
    const raw = Buffer.from(await value.arrayBuffer());
    let data: Buffer;
    if (field === 'file_gzip') {
      try {
        data = await gunzipAsync(raw, { maxOutputLength: uploadLimits.chunkSize });
      } catch (error) {
        const tooLarge = (error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE' || error instanceof RangeError;
        throw invalid(
          checksum,
          tooLarge ? `the chunk unpacks to more than ${uploadLimits.chunkSize} bytes` : 'the chunk is not valid gzip',
        );
      }
    } else data = raw;
    if (data.length > uploadLimits.chunkSize)
      throw invalid(checksum, `the chunk is larger than ${uploadLimits.chunkSize} bytes`);
    if (sha1(data) !== checksum) throw invalid(checksum, "the chunk's bytes do not have this SHA-1");
    chunks.push({ checksum, data });
  }
  // Checked first, stored after: a request with one bad chunk stores none.
  for (const chunk of chunks) await storeUploadChunk(caller.db, org.id, chunk.checksum, chunk.data, now);
  return {};
}

const assembleBody = z.object({
  checksum: z.string().regex(SHA1, 'a SHA-1 (40 lowercase hex digits)'),
  chunks: z
    .array(z.string().regex(SHA1, 'a SHA-1 (40 lowercase hex digits)'))
    .min(1)
    .max(maxChunksPerBundle, `at most ${maxChunksPerBundle} chunks (${uploadLimits.maxFileSize} bytes)`),
  projects: z.array(z.string().min(1).max(100)).max(100).optional(),
  version: z.string().min(1).max(200).nullish(),
  dist: z.string().min(1).max(64).nullish(),
});

/** Sentry's answer to `assemble`. */
interface AssembleAnswer {
  state: 'ok' | 'created' | 'assembling' | 'not_found' | 'error';
  missingChunks: string[];
  detail: string | null;
}

/**
 * `POST /api/0/organizations/{org}/artifactbundle/assemble/` (and, for sentry-cli 2.x without a project, the release's
 * `assemble`, with the release in the path). A bundle already held (its checksum, in this organization) is `ok` at once:
 * sentry-cli 2.x with artifact_bundles_v2 and 3.x ask this before uploading, and upload nothing more. Otherwise the
 * chunks the organization does not hold are `missingChunks` (state not_found); with all of them held, the assembly
 * starts in the background and polls see `assembling` until it is `ok` or `error`.
 *
 * Releases: the bundle keeps its release and dist (the request's, else its manifest's); no releases row is made, as
 * Sentry links a bundle to a release name without creating the release.
 */
export async function sentryAssembleBundle(
  caller: SentryCaller,
  slug: string,
  input: unknown,
  now: number,
  options: { release?: string } = {},
): Promise<AssembleAnswer> {
  const org = await authorizeOrg(caller, slug, 'releases.manage');
  const parsed = assembleBody.safeParse(input);
  if (!parsed.success)
    throw contractError('VALIDATION_FAILED', {
      details: parsed.error.issues.map((issue) => ({ path: issue.path.join('.'), message: issue.message })),
    });
  const body = parsed.data;
  for (const project of body.projects ?? []) {
    if (!(await findOrgApp(caller.db, org.id, project))) throw invalid('projects', `no project ${project} here`);
  }
  const existing = await findArtifactBundle(caller.db, org.id, body.checksum);
  if (existing?.state === 'assembling' && existing.created_at < now - uploadLimits.staleAssemblyMs) {
    await dropStaleArtifactBundle(caller.db, existing.id, now - uploadLimits.staleAssemblyMs);
  } else if (existing) {
    return {
      state: existing.state === 'created' ? 'created' : existing.state,
      missingChunks: [],
      detail: existing.detail,
    };
  }
  const held = await heldUploadChunks(caller.db, org.id, [...new Set(body.chunks)]);
  const missingChunks = [...new Set(body.chunks.filter((chunk) => !held.has(chunk)))];
  if (missingChunks.length > 0) return { state: 'not_found', missingChunks, detail: null };
  const id = randomUUID();
  const release = options.release ?? body.version ?? null;
  const dist = body.dist ?? null;
  const claimed = await claimArtifactBundle(
    caller.db,
    { id, orgId: org.id, checksum: body.checksum, chunks: body.chunks, release, dist },
    now,
  );
  if (!claimed) {
    // Another request claimed it between the look-up and the claim: its state is the answer.
    const other = await findArtifactBundle(caller.db, org.id, body.checksum);
    return { state: other?.state ?? 'assembling', missingChunks: [], detail: other?.detail ?? null };
  }
  assemblies.run(() =>
    assemble(caller.db, { id, orgId: org.id, chunks: body.chunks, checksum: body.checksum, release, dist }),
  );
  return { state: 'assembling', missingChunks: [], detail: null };
}

/** One assembly at a time per process: each holds a whole bundle (up to maxFileSize) and its unpacked files. */
class AssemblyQueue {
  private tail: Promise<void> = Promise.resolve();

  run(task: () => Promise<void>): void {
    // assemble() catches its own failures: the chain never breaks.
    this.tail = this.tail.then(task);
  }

  /** Resolves once every assembly queued so far has ended. */
  idle(): Promise<void> {
    return this.tail;
  }
}

const assemblies = new AssemblyQueue();

/**
 * Waits for the assemblies under way, so that a graceful stop does not close the database under one and leave its
 * bundle `assembling` until a client polls again past the stale limit.
 */
export function assembliesDone(): Promise<void> {
  return assemblies.idle();
}

async function assemble(
  db: Db,
  bundle: {
    id: string;
    orgId: string;
    chunks: string[];
    checksum: string;
    release: string | null;
    dist: string | null;
  },
): Promise<void> {
  try {
    const parts: Buffer[] = [];
    const hash = createHash('sha1');
    let size = 0;
    for (const checksum of bundle.chunks) {
      const data = await readUploadChunk(db, bundle.orgId, checksum);
      // Not the bundle's fault (the hourly clean-up took it): forgetting the attempt makes the next poll answer
      // not_found with this chunk in missingChunks, so the client sends it again.
      if (!data) throw new Error(`chunk ${checksum} is gone`);
      size += data.length;
      if (size > uploadLimits.maxFileSize)
        throw new BundleError(`the bundle is larger than ${uploadLimits.maxFileSize} bytes`);
      hash.update(data);
      parts.push(data);
    }
    if (hash.digest('hex') !== bundle.checksum)
      throw new BundleError("the chunks put together do not have the bundle's checksum");
    const read = await readArtifactBundle(Buffer.concat(parts, size));
    await completeArtifactBundle(
      db,
      {
        id: bundle.id,
        orgId: bundle.orgId,
        size,
        chunks: bundle.chunks,
        release: bundle.release ?? read.release,
        dist: bundle.dist ?? read.dist,
      },
      read.files,
    );
  } catch (error) {
    if (error instanceof BundleError) {
      await failArtifactBundle(db, bundle.id, error.message.slice(0, 1000)).catch(() => undefined);
      return;
    }
    // Not the bundle's fault (the database): forget the attempt, so that the client's next poll starts it again.
    await dropStaleArtifactBundle(db, bundle.id, Number.MAX_SAFE_INTEGER).catch(() => undefined);
  }
}
