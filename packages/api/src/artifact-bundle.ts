// Reading an artifact bundle as sentry-cli builds it: a ZIP holding `manifest.json` and the files it lists
// (`files/_/_/app.min.js`...). Archives come from clients, so every size is capped before it is read, and anything a
// well-made bundle never holds (paths leaving the archive, links, the same name twice, a map that does not parse) makes
// the whole bundle an error with a detail that says why, never an exception that escapes.

import type { NewArtifactFile } from '@collector/db';
import { isStorableText } from '@collector/domain';
import { AnyMap } from '@jridgewell/trace-mapping';
import yauzl from 'yauzl';

const bundleLimits = {
  /** Entries in one archive: sentry-cli bundles a build's files, a few hundred at most in practice. */
  maxEntries: 10_000,
  /** All files unpacked together. */
  maxUnpackedBytes: 100 * 1024 * 1024,
  /** One file unpacked (a large app's map is a few MiB). */
  maxFileBytes: 50 * 1024 * 1024,
  /** Past this many bytes, a file that unpacks to more than `maxRatio` times its packed size is a bomb. */
  ratioFloorBytes: 1024 * 1024,
  maxRatio: 200,
  maxUrlLength: 2048,
  maxTypeLength: 64,
  maxHeaderLength: 2048,
} as const;

/** Why a bundle is refused: its detail is what `assemble` answers. */
export class BundleError extends Error {}

export interface ReadBundle {
  release: string | null;
  dist: string | null;
  files: NewArtifactFile[];
}

const UUID = /^([0-9a-f]{8})-?([0-9a-f]{4})-?([0-9a-f]{4})-?([0-9a-f]{4})-?([0-9a-f]{12})$/i;
/** A unix file type in the high 16 bits of externalFileAttributes: S_IFLNK. */
const S_IFMT = 0o170000;
const S_IFLNK = 0o120000;

/** A debug ID as the index keeps it (lowercase, hyphenated), or null when the header holds no UUID. */
function normalizeDebugId(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const parts = UUID.exec(value.trim());
  return parts ? parts.slice(1).join('-').toLowerCase() : null;
}

function openZip(buffer: Buffer): Promise<yauzl.ZipFile> {
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(
      buffer,
      // Entries one at a time (nothing is read that is not asked for); sizes checked against what the headers say;
      // names decoded, which makes yauzl refuse absolute names, `..` segments and backslashes.
      { lazyEntries: true, validateEntrySizes: true, decodeStrings: true, strictFileNames: true },
      (error, zipfile) =>
        error || !zipfile ? reject(new BundleError(`not a ZIP archive: ${error?.message}`)) : resolve(zipfile),
    );
  });
}

function readEntry(zipfile: yauzl.ZipFile, entry: yauzl.Entry): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    zipfile.openReadStream(entry, (error, stream) => {
      if (error || !stream) return reject(new BundleError(`${entry.fileName}: ${error?.message ?? 'unreadable'}`));
      const parts: Buffer[] = [];
      stream.on('data', (part: Buffer) => parts.push(part));
      stream.on('error', (streamError) => reject(new BundleError(`${entry.fileName}: ${streamError.message}`)));
      stream.on('end', () => resolve(Buffer.concat(parts)));
    });
  });
}

/** Every file entry's bytes by name, within the caps; throws BundleError. */
async function unpack(buffer: Buffer): Promise<Map<string, Buffer>> {
  const zipfile = await openZip(buffer);
  try {
    // The central directory's count is known before any entry is read: a 100k-entry archive ends here at once.
    if (zipfile.entryCount > bundleLimits.maxEntries)
      throw new BundleError(`the archive holds ${zipfile.entryCount} entries; at most ${bundleLimits.maxEntries}`);
    const files = new Map<string, Buffer>();
    let unpacked = 0;
    const next = () =>
      new Promise<yauzl.Entry | null>((resolve, reject) => {
        const onEntry = (entry: yauzl.Entry) => {
          cleanup();
          resolve(entry);
        };
        const onEnd = () => {
          cleanup();
          resolve(null);
        };
        const onError = (error: Error) => {
          cleanup();
          reject(error instanceof BundleError ? error : new BundleError(error.message));
        };
        const cleanup = () => {
          zipfile.off('entry', onEntry);
          zipfile.off('end', onEnd);
          zipfile.off('error', onError);
        };
        zipfile.on('entry', onEntry);
        zipfile.on('end', onEnd);
        zipfile.on('error', onError);
        zipfile.readEntry();
      });
    // Every entry's header first, so that the caps refuse an archive before a byte of it is unpacked.
    const entries: yauzl.Entry[] = [];
    const names = new Set<string>();
    for (let entry = await next(); entry; entry = await next()) {
      const name = entry.fileName;
      if (name.endsWith('/')) continue;
      if (!isStorableText(name)) throw new BundleError('an entry name holds characters that cannot be stored');
      if (((entry.externalFileAttributes >>> 16) & S_IFMT) === S_IFLNK)
        throw new BundleError(`${name}: symbolic links are not allowed`);
      if (entry.isEncrypted()) throw new BundleError(`${name}: encrypted entries are not allowed`);
      if (names.has(name)) throw new BundleError(`${name}: the archive holds this name twice`);
      names.add(name);
      if (entry.uncompressedSize > bundleLimits.maxFileBytes)
        throw new BundleError(
          `${name}: ${entry.uncompressedSize} bytes unpacked; at most ${bundleLimits.maxFileBytes}`,
        );
      if (
        entry.uncompressedSize > bundleLimits.ratioFloorBytes &&
        entry.uncompressedSize > bundleLimits.maxRatio * Math.max(entry.compressedSize, 1)
      )
        throw new BundleError(`${name}: compressed more than ${bundleLimits.maxRatio} to 1 (a zip bomb?)`);
      unpacked += entry.uncompressedSize;
      if (unpacked > bundleLimits.maxUnpackedBytes)
        throw new BundleError(`the archive unpacks to more than ${bundleLimits.maxUnpackedBytes} bytes`);
      entries.push(entry);
    }
    // validateEntrySizes stops a stream that gives more (or fewer) bytes than its entry declares.
    for (const entry of entries) files.set(entry.fileName, await readEntry(zipfile, entry));
    return files;
  } finally {
    zipfile.close();
  }
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function optionalString(value: unknown, limit: number, what: string): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string' || value.length > limit)
    throw new BundleError(`${what}: a string of at most ${limit} characters`);
  // PostgreSQL's text refuses NUL (and lone surrogates break JSON): the bundle's fault, said as such.
  if (!isStorableText(value)) throw new BundleError(`${what}: holds characters that cannot be stored`);
  return value;
}

/** A source map must be one: JSON, version 3, with mappings (or an index map's sections) that decode. */
function checkSourceMap(path: string, content: Buffer): void {
  let map: unknown;
  try {
    map = JSON.parse(content.toString('utf8'));
  } catch {
    throw new BundleError(`${path}: the source map is not JSON`);
  }
  if (!isRecord(map) || map.version !== 3 || (typeof map.mappings !== 'string' && !Array.isArray(map.sections)))
    throw new BundleError(`${path}: not a source map (version 3 with mappings)`);
  try {
    // AnyMap reads flat and indexed maps; it throws on mappings it cannot decode.
    new AnyMap(map as never);
  } catch (error) {
    throw new BundleError(`${path}: the source map does not parse: ${(error as Error).message}`);
  }
}

/** Reads and checks a bundle; throws BundleError with what is wrong with it. */
export async function readArtifactBundle(buffer: Buffer): Promise<ReadBundle> {
  const entries = await unpack(buffer);
  const manifestBytes = entries.get('manifest.json');
  if (!manifestBytes) throw new BundleError('the archive holds no manifest.json');
  let manifest: unknown;
  try {
    manifest = JSON.parse(manifestBytes.toString('utf8'));
  } catch {
    throw new BundleError('manifest.json is not JSON');
  }
  if (!isRecord(manifest) || !isRecord(manifest.files)) throw new BundleError('manifest.json has no `files` object');
  const files: NewArtifactFile[] = [];
  for (const [path, described] of Object.entries(manifest.files)) {
    if (!isRecord(described)) throw new BundleError(`manifest.json: files["${path.slice(0, 200)}"] is not an object`);
    const content = entries.get(path);
    if (!content) throw new BundleError(`manifest.json lists ${path.slice(0, 200)}, which the archive does not hold`);
    const url = optionalString(described.url, bundleLimits.maxUrlLength, `${path}: url`);
    if (!url) throw new BundleError(`${path}: the manifest gives no url`);
    const type = optionalString(described.type, bundleLimits.maxTypeLength, `${path}: type`) ?? 'source';
    const headers: Record<string, unknown> = {};
    if (described.headers !== undefined) {
      if (!isRecord(described.headers)) throw new BundleError(`${path}: headers is not an object`);
      // Header names are case-insensitive, as in HTTP.
      for (const [name, value] of Object.entries(described.headers)) headers[name.toLowerCase()] = value;
    }
    const debugId = normalizeDebugId(optionalString(headers['debug-id'] ?? headers.debug_id, 64, `${path}: debug-id`));
    const sourcemap = optionalString(
      headers.sourcemap ?? headers['x-sourcemap'],
      bundleLimits.maxHeaderLength,
      `${path}: sourcemap`,
    );
    if (type === 'source_map') checkSourceMap(path, content);
    files.push({ path, url, type, debugId, sourcemap, content });
  }
  return {
    release: optionalString(manifest.release, 200, 'manifest.json: release'),
    dist: optionalString(manifest.dist, 64, 'manifest.json: dist'),
    files,
  };
}
