import { Readable } from 'node:stream';
import zlib from 'node:zlib';
import { endOfDirectoryStub, localFileHeader, readZipDirectory, ZipFormatError, type ZipEntry } from './zip-directory';
import { PassengerSheetError, sheetError } from './sheet-error';
import { MergedRangeScanner, type MergedRange } from './merged-cells';

/** A worksheet to read, in workbook tab order. */
export interface SheetPart {
  name: string;
  entry: ZipEntry;
}

/**
 * One pass over the workbook for exceljs: a zip stream holding only what the reader needs, shared
 * strings first (so exceljs never spools worksheets to temporary files) and the visible worksheets
 * renamed `xl/worksheets/sheetN.xml` in tab order. The parts are inflated here, once, as stored
 * entries: every byte is counted against the size the directory declared and the CRC is checked
 * before the last byte is handed on, so a lying header can never make exceljs see more.
 */
export interface XlsxPass {
  stream: Readable;
  /** Why the pass failed (the stream then carries NUL bytes that make exceljs fail or stop). */
  failure(): PassengerSheetError | undefined;
  /** The merged ranges of sheet `index`, known once that sheet has streamed past. */
  mergedRanges(index: number): MergedRange[];
  /** Stops the pass and frees its inflater (safe to call at any time). */
  close(): void;
}

/** An .xlsx whose directory has been checked: a zip, a workbook, within the declared-size limit. */
export interface XlsxPackage {
  /** Visible worksheets in tab order. */
  sheets: SheetPart[];
  /** Dates count from 1904 (old Mac workbooks). */
  date1904: boolean;
  /** Starts a pass over the parts (each pass inflates afresh). */
  open(): XlsxPass;
}

export interface PackageLimits {
  uploadMaxUncompressedBytes: number;
}

const OLE2 = Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);
const ZIP_LOCAL = Buffer.from('PK\x03\x04', 'latin1');
const ZIP_EMPTY = Buffer.from('PK\x05\x06', 'latin1');

function describeNonZip(bytes: Buffer): string {
  if (bytes.subarray(0, 8).equals(OLE2)) {
    return 'The file is an Excel 97-2003 workbook (.xls) or a password-protected file, not an .xlsx';
  }
  const head = bytes.subarray(0, 8).toString('latin1');
  if (head.startsWith('%PDF')) return 'The file is a PDF document, not a spreadsheet';
  if (/^\s*<(\?xml|html|!doctype)/i.test(bytes.subarray(0, 64).toString('latin1'))) {
    return 'The file is an XML or HTML document, not an .xlsx workbook';
  }
  if (!bytes.subarray(0, 4096).includes(0)) return 'The file is plain text (CSV or similar), not an .xlsx workbook';
  return 'The file is not an .xlsx workbook';
}

function describeNonWorkbook(names: Set<string>): string {
  if (names.has('mimetype') && names.has('content.xml')) {
    return 'The file is an OpenDocument spreadsheet (.ods), not an .xlsx workbook';
  }
  if (names.has('word/document.xml')) return 'The file is a Word document, not an .xlsx workbook';
  return 'The file is a zip archive but not an .xlsx workbook (it has no xl/workbook.xml)';
}

/** Inflate in large steps (fewer calls), hand exceljs small ones (smaller batches of parsed rows). */
const INFLATE_CHUNK = 64 * 1024;
const HANDOFF_CHUNK = 16 * 1024;

const unsupportedDamaged = (reason: string) => sheetError.unsupported(`The file is a damaged .xlsx workbook: ${reason}`);

/**
 * Inflates one part chunk by chunk, refusing to go past its declared size. The CRC is checked
 * before the chunk that completes the part is yielded, so a consumer never sees a bad part whole.
 */
async function* inflatePart(bytes: Buffer, entry: ZipEntry): AsyncGenerator<Buffer> {
  if (entry.flags & 0x1) throw sheetError.unsupported('The workbook is encrypted (password protected)');
  const data = bytes.subarray(entry.dataOffset, entry.dataOffset + entry.compressedSize);
  let source: AsyncIterable<Buffer> | Iterable<Buffer>;
  let inflater: zlib.InflateRaw | undefined;
  if (entry.method === 0) source = [data];
  else if (entry.method === 8) {
    inflater = zlib.createInflateRaw({ chunkSize: INFLATE_CHUNK });
    inflater.end(data);
    source = inflater;
  } else throw sheetError.unsupported(`The workbook uses a zip compression method (${entry.method}) that is not supported`);
  let total = 0;
  let crc = 0;
  try {
    for await (const chunk of source) {
      total += chunk.length;
      if (total > entry.uncompressedSize) {
        throw sheetError.tooLarge(
          `The workbook part ${entry.name} expands beyond the ${entry.uncompressedSize} bytes its zip header declares; it looks like a zip bomb and was not read`,
        );
      }
      crc = zlib.crc32(chunk, crc);
      if (total === entry.uncompressedSize && crc >>> 0 !== entry.crc32 >>> 0) {
        throw unsupportedDamaged(`${entry.name} does not match its checksum`);
      }
      // Small pieces keep exceljs's per-chunk batches of parsed rows small (and short-lived).
      for (let at = 0; at < chunk.length; at += HANDOFF_CHUNK) yield chunk.subarray(at, at + HANDOFF_CHUNK);
    }
  } catch (error) {
    if (error instanceof PassengerSheetError) throw error;
    throw unsupportedDamaged(`${entry.name} cannot be decompressed`);
  } finally {
    inflater?.destroy();
  }
  if (total !== entry.uncompressedSize) throw unsupportedDamaged(`${entry.name} is shorter than declared`);
}

async function readPartText(bytes: Buffer, entry: ZipEntry): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of inflatePart(bytes, entry)) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}

function attributes(tag: string): Map<string, string> {
  const found = new Map<string, string>();
  for (const match of tag.matchAll(/([\w:.-]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/g)) {
    const name = match[1];
    found.set(name.includes(':') && name.endsWith(':id') ? 'r:id' : name, match[2] ?? match[3]);
  }
  return found;
}

function resolvePartName(target: string): string {
  const path = target.startsWith('/') ? target.slice(1) : `xl/${target}`;
  const parts: string[] = [];
  for (const segment of path.split('/')) {
    if (segment === '..') parts.pop();
    else if (segment !== '.' && segment !== '') parts.push(segment);
  }
  return parts.join('/');
}

interface WorkbookLayout {
  sheets: { name: string; path: string }[];
  sharedStrings?: string;
  date1904: boolean;
}

/** Tab order, visibility and part names from xl/workbook.xml and its relationships. */
function readWorkbookLayout(workbookXml: string, relsXml: string): WorkbookLayout {
  const targets = new Map<string, string>();
  let sharedStrings: string | undefined;
  for (const [tag] of relsXml.matchAll(/<(?:\w+:)?Relationship\b[^>]*>/g)) {
    const attrs = attributes(tag);
    const id = attrs.get('Id');
    const target = attrs.get('Target');
    if (!id || !target || attrs.get('TargetMode') === 'External') continue;
    targets.set(id, resolvePartName(target));
    if (attrs.get('Type')?.endsWith('/sharedStrings')) sharedStrings = resolvePartName(target);
  }
  const sheets: WorkbookLayout['sheets'] = [];
  for (const [tag] of workbookXml.matchAll(/<(?:\w+:)?sheet\b[^>]*>/g)) {
    const attrs = attributes(tag);
    const path = targets.get(attrs.get('r:id') ?? '');
    const state = attrs.get('state');
    if (path && state !== 'hidden' && state !== 'veryHidden') sheets.push({ name: attrs.get('name') ?? path, path });
  }
  const workbookPr = /<(?:\w+:)?workbookPr\b[^>]*>/.exec(workbookXml)?.[0];
  const date1904 = workbookPr ? /^(1|true)$/.test(attributes(workbookPr).get('date1904') ?? '') : false;
  return { sheets, sharedStrings, date1904 };
}

const STUB_RELS =
  '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"/>';
const STUB_WORKBOOK =
  '<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheets/></workbook>';
const STUB_SHARED_STRINGS =
  '<?xml version="1.0" encoding="UTF-8"?><sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" count="0" uniqueCount="0"/>';

function storedPart(name: string, text: string): Buffer[] {
  const data = Buffer.from(text, 'utf8');
  return [localFileHeader(name, 0, zlib.crc32(data), data.length, data.length), data];
}

type StreamedPart = { name: string; text: string } | { name: string; entry: ZipEntry; scanner?: MergedRangeScanner };

/** NUL is not allowed anywhere in XML: exceljs's parser stops at the first one. */
const POISON = Buffer.alloc(HANDOFF_CHUNK);

/**
 * The zip stream of one pass. It is always a whole zip stream: exceljs waits for ever on an entry
 * that ends early, so on a failure the entry is filled up to its declared size with NUL bytes
 * (exceljs fails at the first) and the stream ends there; the caller asks `failure()` for the reason.
 */
async function* passBytes(bytes: Buffer, parts: StreamedPart[], fail: (error: PassengerSheetError) => void) {
  yield* storedPart('xl/_rels/workbook.xml.rels', STUB_RELS);
  yield* storedPart('xl/workbook.xml', STUB_WORKBOOK);
  for (const part of parts) {
    if ('text' in part) {
      yield* storedPart(part.name, part.text);
      continue;
    }
    const { name, entry, scanner } = part;
    yield localFileHeader(name, 0, entry.crc32, entry.uncompressedSize, entry.uncompressedSize);
    let handedOn = 0;
    try {
      for await (const chunk of inflatePart(bytes, entry)) {
        scanner?.push(chunk);
        handedOn += chunk.length;
        yield chunk;
      }
    } catch (error) {
      fail(error as PassengerSheetError);
      for (let left = entry.uncompressedSize - handedOn; left > 0; left -= POISON.length) {
        yield POISON.subarray(0, Math.min(left, POISON.length));
      }
      break;
    }
  }
  yield endOfDirectoryStub();
}

/**
 * Checks that `bytes` are an .xlsx workbook within the size limit and prepares it for streaming.
 * Throws PassengerSheetError: 400 empty file, 415 not an .xlsx or damaged, 413 too large when
 * decompressed (judged from the directory first, then by counting while inflating).
 */
export async function openXlsxPackage(bytes: Buffer, limits: PackageLimits): Promise<XlsxPackage> {
  if (bytes.length === 0) throw sheetError.badRequest('The uploaded file is empty');
  const head = bytes.subarray(0, 4);
  if (!head.equals(ZIP_LOCAL) && !head.equals(ZIP_EMPTY)) throw sheetError.unsupported(describeNonZip(bytes));
  let entries: ZipEntry[];
  try {
    entries = readZipDirectory(bytes);
  } catch (error) {
    if (error instanceof ZipFormatError) throw unsupportedDamaged(error.message);
    throw error;
  }
  const declared = entries.reduce((sum, entry) => sum + entry.uncompressedSize, 0);
  if (declared > limits.uploadMaxUncompressedBytes) {
    throw sheetError.tooLarge(
      `The workbook expands to ${declared} bytes when decompressed, over the limit of ${limits.uploadMaxUncompressedBytes} bytes`,
    );
  }
  const byName = new Map(entries.map((entry) => [entry.name, entry]));
  const workbook = byName.get('xl/workbook.xml');
  const rels = byName.get('xl/_rels/workbook.xml.rels');
  if (!workbook) throw sheetError.unsupported(describeNonWorkbook(new Set(byName.keys())));
  if (!rels) throw unsupportedDamaged('xl/_rels/workbook.xml.rels is missing');
  const layout = readWorkbookLayout(await readPartText(bytes, workbook), await readPartText(bytes, rels));

  const sheets: SheetPart[] = [];
  for (const { name, path } of layout.sheets) {
    const entry = byName.get(path);
    if (!entry) throw unsupportedDamaged(`worksheet ${path} is missing`);
    sheets.push({ name, entry });
  }
  const sharedStrings = layout.sharedStrings ? byName.get(layout.sharedStrings) : undefined;
  if (layout.sharedStrings && !sharedStrings) throw unsupportedDamaged(`${layout.sharedStrings} is missing`);
  for (const { entry } of [...sheets, ...(sharedStrings ? [{ entry: sharedStrings }] : [])]) {
    if (entry.flags & 0x1) throw sheetError.unsupported('The workbook is encrypted (password protected)');
    if (entry.method !== 0 && entry.method !== 8) {
      throw sheetError.unsupported(`The workbook uses a zip compression method (${entry.method}) that is not supported`);
    }
  }

  return {
    sheets,
    date1904: layout.date1904,
    open() {
      let failure: PassengerSheetError | undefined;
      const scanners = sheets.map(() => new MergedRangeScanner());
      const parts: StreamedPart[] = [
        sharedStrings
          ? { name: 'xl/sharedStrings.xml', entry: sharedStrings }
          : { name: 'xl/sharedStrings.xml', text: STUB_SHARED_STRINGS },
        ...sheets.map((sheet, index) => ({
          name: `xl/worksheets/sheet${index + 1}.xml`,
          entry: sheet.entry,
          scanner: scanners[index],
        })),
      ];
      const stream = Readable.from(
        passBytes(bytes, parts, (error) => {
          failure ??= error;
        }),
        { objectMode: false },
      );
      return {
        stream,
        failure: () => failure,
        mergedRanges: (index) => scanners[index]?.ranges() ?? [],
        close: () => stream.destroy(),
      };
    },
  };
}
