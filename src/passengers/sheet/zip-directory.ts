import yauzl from 'yauzl';

/**
 * Reads a zip archive's central directory with yauzl, so sizes can be judged before anything is
 * inflated. yauzl finds the end of the directory, follows zip64 records and extra fields, and reads
 * one entry at a time, a turn of the event loop each; here the entry count is capped before the
 * first entry is read, and a part's local header is looked at only when the part is read.
 *
 * Options, and why:
 * - `decodeStrings: false`: with it on, yauzl refuses the whole archive for one entry name it
 *   calls unsafe (a leading `/`, `..`, a backslash with `strictFileNames`), and decodes names
 *   without the UTF-8 flag as CP437. Nothing here is extracted to disk, some writers put a leading
 *   `/` or `\` in part names (xlsx-package.ts looks parts up without them), and part names are
 *   read as UTF-8, as OPC and OpenDocument write them.
 * - `validateEntrySizes: false`: it would only matter to yauzl's own read streams, which are not
 *   used (zip-part.ts says why).
 */

export interface ZipEntry {
  name: string;
  flags: number;
  /** 0 stored, 8 deflated. */
  method: number;
  crc32: number;
  compressedSize: number;
  uncompressedSize: number;
  /** Where the entry's compressed data starts, after its local header (read and checked on the first call). */
  dataStart(): Promise<number>;
  /** What the archive is, for messages about a damaged part (default an .xlsx workbook). */
  container?: string;
}

/** The bytes are not a readable zip archive; the message says why. */
export class ZipFormatError extends Error {
  override name = 'ZipFormatError';
}

/** The archive uses PKWARE strong encryption, which yauzl refuses while reading the directory. */
export class ZipEncryptedError extends Error {
  override name = 'ZipEncryptedError';
}

/** More parts than any passenger list needs; refusing early bounds the work on a hostile directory. */
export const MAX_ZIP_ENTRIES = 10_000;

/** yauzl's messages (index.js of yauzl 3.4) in the words of ours; anything else is passed on as it is. */
const YAUZL_MESSAGES: [RegExp, string][] = [
  [/^End of central directory record signature not found/, 'the end of the zip directory is missing (the file is truncated or damaged)'],
  [/^Invalid comment length/, 'the end of the zip directory is damaged (bytes follow it, or its comment length is wrong)'],
  [/^multi-disk zip files are not supported/, 'multi-part zip archives are not supported'],
  [/^invalid zip64 end of central directory record signature/, 'the zip64 end of directory record is missing'],
  [/^zip64 extended information extra field does not include/, 'a zip64 extra field is too short'],
  [/^unexpected EOF/, 'the zip directory points outside the file'],
  [/^invalid central directory file header signature|^extra field length exceeds/, 'the zip directory is damaged'],
];

function directoryError(error: unknown): Error {
  if (!(error instanceof Error)) return new ZipFormatError(`the zip directory cannot be read (${String(error)})`);
  if (error.message === 'strong encryption is not supported') return new ZipEncryptedError(error.message);
  const known = YAUZL_MESSAGES.find(([pattern]) => pattern.test(error.message));
  return new ZipFormatError(known ? known[1] : `the zip directory cannot be read (${error.message})`);
}

function localHeaderError(error: unknown, name: string): ZipFormatError {
  const message = error instanceof Error ? error.message : String(error);
  if (/^invalid local file header signature|^unexpected EOF/.test(message)) return new ZipFormatError(`the local header of "${name}" is missing`);
  if (/^file data overflows file bounds/.test(message)) return new ZipFormatError(`the data of "${name}" runs past the end of the file`);
  return new ZipFormatError(`the local header of "${name}" cannot be read (${message})`);
}

function entryOf(zipfile: yauzl.ZipFile, entry: yauzl.Entry): ZipEntry {
  // With decodeStrings off, yauzl leaves the name as its bytes (its typings say string).
  const name = entry.fileNameRaw.toString('utf8');
  let start: Promise<number> | undefined;
  return {
    name,
    flags: entry.generalPurposeBitFlag,
    method: entry.compressionMethod,
    crc32: entry.crc32,
    compressedSize: entry.compressedSize,
    uncompressedSize: entry.uncompressedSize,
    dataStart() {
      start ??= zipfile.readLocalFileHeaderPromise(entry, { minimal: true }).then(
        (header) => header.fileDataStart,
        (error: unknown) => {
          throw localHeaderError(error, name);
        },
      );
      return start;
    },
  };
}

/**
 * The entries of the archive, in directory order. Rejects with ZipFormatError for anything
 * unreadable (ZipEncryptedError for strong encryption), and for more than MAX_ZIP_ENTRIES entries
 * before reading any. `checkpoint` is called after each entry (yauzl takes turns of the event loop
 * between entries, so a directory of thousands stops at an abort or the wall-time cap).
 */
export async function readZipDirectory(bytes: Buffer, checkpoint: () => void = () => {}): Promise<ZipEntry[]> {
  let zipfile: yauzl.ZipFile;
  try {
    zipfile = await yauzl.fromBufferPromise(bytes, { decodeStrings: false, validateEntrySizes: false });
  } catch (error) {
    throw directoryError(error);
  }
  if (zipfile.entryCount > MAX_ZIP_ENTRIES) {
    throw new ZipFormatError(`the archive holds ${zipfile.entryCount} parts, more than ${MAX_ZIP_ENTRIES}`);
  }
  const entries: ZipEntry[] = [];
  const directory = zipfile.eachEntry();
  for (;;) {
    let next: IteratorResult<yauzl.Entry>;
    try {
      next = await directory.next();
    } catch (error) {
      throw directoryError(error);
    }
    if (next.done) break;
    entries.push(entryOf(zipfile, next.value));
    checkpoint();
  }
  return entries;
}
