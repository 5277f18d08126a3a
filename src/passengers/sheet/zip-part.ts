import { setImmediate as nextTurn } from 'node:timers/promises';
import zlib from 'node:zlib';
import { PassengerSheetError, sheetError } from './sheet-error';
import { ZipFormatError, type ZipEntry } from './zip-directory';

/** Inflate in large steps (fewer calls); each step is then parsed before the next is asked for. */
const INFLATE_CHUNK = 64 * 1024;
/** Past its declared size, a part may run on this far (or as far again as declared) before it is called a bomb. */
const OVERRUN_ALLOWANCE = 1024 * 1024;

/** The document a zip holds, as messages name it. */
export const XLSX_CONTAINER = '.xlsx workbook';

export const damagedFile = (reason: string, container = XLSX_CONTAINER) => sheetError.unsupported(`The file is a damaged ${container}: ${reason}`);

/** Unsupported storage of a part: encryption or a compression method other than stored or deflate. */
export function checkReadable(entry: ZipEntry): void {
  if (entry.flags & 0x1) throw sheetError.unsupported('The workbook is encrypted (password protected)');
  if (entry.method !== 0 && entry.method !== 8) {
    throw sheetError.unsupported(`The workbook uses a zip compression method (${entry.method}) that is not supported`);
  }
}

/**
 * Where a part that inflates past its declared size ends. A damaged part (stale sizes or CRC, a
 * corrupt deflate stream) ends or fails soon after; a bomb keeps expanding. The rest is inflated
 * without being kept, up to a bounded allowance, to tell the two apart.
 */
async function judgeOverrun(inflater: AsyncIterable<Buffer>, entry: ZipEntry, total: number): Promise<never> {
  const allowance = Math.max(OVERRUN_ALLOWANCE, entry.uncompressedSize);
  try {
    for await (const chunk of inflater) {
      total += chunk.length;
      if (total > entry.uncompressedSize + allowance) {
        throw sheetError.tooLarge(
          `The workbook part ${entry.name} expands beyond the ${entry.uncompressedSize} bytes its zip header declares; it looks like a zip bomb and was not read`,
        );
      }
    }
  } catch (error) {
    if (error instanceof PassengerSheetError) throw error;
  }
  throw damagedFile(`${entry.name} is longer than its zip header declares (${entry.uncompressedSize} bytes) and does not match its checksum`, entry.container);
}

async function compressedData(bytes: Buffer, entry: ZipEntry): Promise<Buffer> {
  try {
    const start = await entry.dataStart();
    return bytes.subarray(start, start + entry.compressedSize);
  } catch (error) {
    if (error instanceof ZipFormatError) throw damagedFile(error.message, entry.container);
    throw error;
  }
}

/**
 * Inflates one part chunk by chunk, refusing to go past its declared size, and checks its CRC
 * before the chunk that completes it is yielded, so a consumer never takes a damaged part whole.
 * Between chunks the event loop turns (zlib works in the thread pool; stored parts wait a turn),
 * so other requests go on and an abort signal can fire. Breaking out of the loop stops inflating.
 *
 * Hand-written on purpose, beside yauzl's directory (zip-directory.ts), rather than yauzl's
 * `openReadStream`, which would give up three guarantees (yauzl 3.4, index.js):
 * - damaged or hostile: with `validateEntrySizes` its stream fails at the first byte past the
 *   declared size, so a part with a stale size (415, damaged) cannot be told from a bomb (413);
 *   without it there is no bound at all, and the counting below is needed anyway;
 * - the checksum: yauzl never checks CRC-32 (its README, "No CRC-32 Checking"), so a corrupt part
 *   that inflates to its declared size would be read as it is;
 * - stopping: its `destroy()` replaces the inflate stream's own `_destroy`, so the zlib handle of
 *   a part left half-read (a bomb, an abort, a handler done early) is not closed until garbage
 *   collection (its source: "TODO: the inflateFilter may cause a memory leak", thejoshwolfe/yauzl
 *   issue 27); and its
 *   inflater takes zlib's default 16 KiB steps, which cannot be set.
 * The bytes are in memory already, so reading them needs no stream of yauzl's either.
 */
export async function* inflatePart(bytes: Buffer, entry: ZipEntry): AsyncGenerator<Buffer> {
  checkReadable(entry);
  const data = await compressedData(bytes, entry);
  if (entry.method === 0) {
    if (data.length !== entry.uncompressedSize) throw damagedFile(`${entry.name} is not as long as its zip header declares`, entry.container);
    let crc = 0;
    for (let at = 0; at < data.length; at += INFLATE_CHUNK) {
      const chunk = data.subarray(at, at + INFLATE_CHUNK);
      crc = zlib.crc32(chunk, crc);
      if (at + chunk.length === data.length && crc >>> 0 !== entry.crc32 >>> 0) {
        throw damagedFile(`${entry.name} does not match its checksum`, entry.container);
      }
      if (at > 0) await nextTurn();
      yield chunk;
    }
    if (data.length === 0 && entry.crc32 !== 0) throw damagedFile(`${entry.name} does not match its checksum`, entry.container);
    return;
  }
  const inflater = zlib.createInflateRaw({ chunkSize: INFLATE_CHUNK });
  inflater.end(data);
  let total = 0;
  let crc = 0;
  try {
    const chunks = inflater[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
    for (;;) {
      let next: IteratorResult<Buffer>;
      try {
        next = await chunks.next();
      } catch {
        throw damagedFile(`${entry.name} cannot be decompressed`, entry.container);
      }
      if (next.done) break;
      const chunk = next.value;
      total += chunk.length;
      if (total > entry.uncompressedSize) await judgeOverrun({ [Symbol.asyncIterator]: () => chunks }, entry, total);
      crc = zlib.crc32(chunk, crc);
      if (total === entry.uncompressedSize && crc >>> 0 !== entry.crc32 >>> 0) {
        throw damagedFile(`${entry.name} does not match its checksum`, entry.container);
      }
      yield chunk;
    }
  } finally {
    inflater.destroy();
  }
  if (total !== entry.uncompressedSize) throw damagedFile(`${entry.name} is shorter than declared`, entry.container);
}
