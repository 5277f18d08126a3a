/**
 * Reads a zip archive's central directory straight from the bytes, so sizes can be judged before
 * anything is inflated. Only what an .xlsx needs: one disk, stored or deflated parts, zip64 sizes.
 */

export interface ZipEntry {
  name: string;
  flags: number;
  /** 0 stored, 8 deflated. */
  method: number;
  crc32: number;
  compressedSize: number;
  uncompressedSize: number;
  /** Where the entry's compressed data starts, after its local header. */
  dataOffset: number;
  /** What the archive is, for messages about a damaged part (default an .xlsx workbook). */
  container?: string;
}

/** The bytes are not a readable zip archive; the message says why. */
export class ZipFormatError extends Error {
  override name = 'ZipFormatError';
}

const EOCD_SIGNATURE = 0x06054b50;
const ZIP64_LOCATOR_SIGNATURE = 0x07064b50;
const ZIP64_EOCD_SIGNATURE = 0x06064b50;
const CENTRAL_SIGNATURE = 0x02014b50;
const LOCAL_SIGNATURE = 0x04034b50;
const EOCD_SIZE = 22;
const MAX_COMMENT = 0xffff;
const U16_MAX = 0xffff;
const U32_MAX = 0xffffffff;

/** More parts than any passenger list needs; refusing early bounds the work on a hostile directory. */
export const MAX_ZIP_ENTRIES = 10_000;

function findEndOfCentralDirectory(bytes: Buffer): number {
  const lowest = Math.max(0, bytes.length - EOCD_SIZE - MAX_COMMENT);
  for (let at = bytes.length - EOCD_SIZE; at >= lowest; at -= 1) {
    if (bytes.readUInt32LE(at) === EOCD_SIGNATURE && at + EOCD_SIZE + bytes.readUInt16LE(at + 20) <= bytes.length) {
      return at;
    }
  }
  throw new ZipFormatError('the end of the zip directory is missing (the file is truncated or damaged)');
}

function safeNumber(value: bigint): number {
  if (value > BigInt(Number.MAX_SAFE_INTEGER)) throw new ZipFormatError('a zip64 size is out of range');
  return Number(value);
}

interface Directory {
  count: number;
  offset: number;
  size: number;
}

function readDirectoryLocation(bytes: Buffer, eocd: number): Directory {
  if (bytes.readUInt16LE(eocd + 4) !== 0 || bytes.readUInt16LE(eocd + 6) !== 0) {
    throw new ZipFormatError('multi-part zip archives are not supported');
  }
  let count = bytes.readUInt16LE(eocd + 10);
  let size = bytes.readUInt32LE(eocd + 12);
  let offset = bytes.readUInt32LE(eocd + 16);
  if (count === U16_MAX || size === U32_MAX || offset === U32_MAX) {
    const locator = eocd - 20;
    if (locator < 0 || bytes.readUInt32LE(locator) !== ZIP64_LOCATOR_SIGNATURE) {
      throw new ZipFormatError('the zip64 directory locator is missing');
    }
    const record = safeNumber(bytes.readBigUInt64LE(locator + 8));
    if (record + 56 > locator || bytes.readUInt32LE(record) !== ZIP64_EOCD_SIGNATURE) {
      throw new ZipFormatError('the zip64 end of directory record is missing');
    }
    count = safeNumber(bytes.readBigUInt64LE(record + 32));
    size = safeNumber(bytes.readBigUInt64LE(record + 40));
    offset = safeNumber(bytes.readBigUInt64LE(record + 48));
  }
  if (offset + size > eocd) throw new ZipFormatError('the zip directory points outside the file');
  if (count > MAX_ZIP_ENTRIES) throw new ZipFormatError(`the archive holds ${count} parts, more than ${MAX_ZIP_ENTRIES}`);
  return { count, offset, size };
}

/** Replaces 0xFFFFFFFF sizes and offset with the values of the zip64 extra field (id 1). */
function applyZip64Extra(extra: Buffer, sizes: { uncompressed: number; compressed: number; offset: number }): void {
  for (let at = 0; at + 4 <= extra.length; ) {
    const id = extra.readUInt16LE(at);
    const length = extra.readUInt16LE(at + 2);
    if (id === 1) {
      let field = at + 4;
      for (const key of ['uncompressed', 'compressed', 'offset'] as const) {
        if (sizes[key] !== U32_MAX) continue;
        if (field + 8 > at + 4 + length) throw new ZipFormatError('a zip64 extra field is too short');
        sizes[key] = safeNumber(extra.readBigUInt64LE(field));
        field += 8;
      }
      return;
    }
    at += 4 + length;
  }
}

/** The entries of the archive, in directory order. Throws ZipFormatError for anything unreadable. */
export function readZipDirectory(bytes: Buffer): ZipEntry[] {
  if (bytes.length < EOCD_SIZE) throw new ZipFormatError('the file is too short to be a zip archive');
  const directory = readDirectoryLocation(bytes, findEndOfCentralDirectory(bytes));
  const entries: ZipEntry[] = [];
  const end = directory.offset + directory.size;
  let at = directory.offset;
  for (let index = 0; index < directory.count; index += 1) {
    if (at + 46 > end || bytes.readUInt32LE(at) !== CENTRAL_SIGNATURE) {
      throw new ZipFormatError('the zip directory is damaged');
    }
    const nameLength = bytes.readUInt16LE(at + 28);
    const extraLength = bytes.readUInt16LE(at + 30);
    const commentLength = bytes.readUInt16LE(at + 32);
    const next = at + 46 + nameLength + extraLength + commentLength;
    if (next > end) throw new ZipFormatError('the zip directory is damaged');
    const sizes = {
      compressed: bytes.readUInt32LE(at + 20),
      uncompressed: bytes.readUInt32LE(at + 24),
      offset: bytes.readUInt32LE(at + 42),
    };
    applyZip64Extra(bytes.subarray(at + 46 + nameLength, at + 46 + nameLength + extraLength), sizes);
    const name = bytes.toString('utf8', at + 46, at + 46 + nameLength);
    entries.push({
      name,
      flags: bytes.readUInt16LE(at + 8),
      method: bytes.readUInt16LE(at + 10),
      crc32: bytes.readUInt32LE(at + 16),
      compressedSize: sizes.compressed,
      uncompressedSize: sizes.uncompressed,
      dataOffset: localDataOffset(bytes, sizes.offset, sizes.compressed, directory.offset, name),
    });
    at = next;
  }
  return entries;
}

function localDataOffset(bytes: Buffer, header: number, compressedSize: number, limit: number, name: string): number {
  if (header + 30 > limit || bytes.readUInt32LE(header) !== LOCAL_SIGNATURE) {
    throw new ZipFormatError(`the local header of "${name}" is missing`);
  }
  const data = header + 30 + bytes.readUInt16LE(header + 26) + bytes.readUInt16LE(header + 28);
  if (data + compressedSize > limit) throw new ZipFormatError(`the data of "${name}" runs past the zip directory`);
  return data;
}
