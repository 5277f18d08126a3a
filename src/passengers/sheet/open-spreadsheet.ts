import { openCsvSource } from './csv-source';
import { ODS_MIMETYPE, openOdsSource } from './ods-source';
import type { ReadBudget } from './read-budget';
import { sheetError } from './sheet-error';
import type { SpreadsheetSource } from './spreadsheet-source';
import { openXlsxSource } from './xlsx-source';
import { readZipDirectory, ZipEncryptedError, ZipFormatError, type ZipEntry } from './zip-directory';
import { damagedFile, inflatePart } from './zip-part';

export interface OpenLimits {
  uploadMaxUncompressedBytes: number;
}

export interface OpenOptions {
  limits: OpenLimits;
  budget: ReadBudget;
  /** The uploaded file's name: a CSV's one sheet is named after it. */
  fileName?: string;
}

const OLE2 = Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);
const ZIP_LOCAL = Buffer.from('PK\x03\x04', 'latin1');
const ZIP_EMPTY = Buffer.from('PK\x05\x06', 'latin1');
/** The mimetype item of an OpenDocument package is a few dozen bytes; more is not one. */
const MAX_MIMETYPE_BYTES = 256;

const CONVERT_XLS =
  'open it in Excel or LibreOffice, use "Save as" and choose "Excel Workbook (.xlsx)", "ODF Spreadsheet (.ods)" or "CSV UTF-8"';

/** Files that are plainly no spreadsheet, told from their first bytes; undefined for anything else. */
function describeNonSpreadsheet(bytes: Buffer): string | undefined {
  if (bytes.subarray(0, 8).equals(OLE2)) {
    return `The file is an Excel 97-2003 workbook (.xls) or a password-protected file, which cannot be read; ${CONVERT_XLS}`;
  }
  if (bytes.subarray(0, 5).toString('latin1') === '%PDF-') return 'The file is a PDF document, not a spreadsheet';
  if (/^(\xef\xbb\xbf)?\s*<(\?xml|html|!doctype)/i.test(bytes.subarray(0, 64).toString('latin1'))) {
    return 'The file is an XML or HTML document, not a spreadsheet (a flat .fods or an "XML Spreadsheet 2003" is not read)';
  }
  return undefined;
}

async function readMimetype(bytes: Buffer, entry: ZipEntry): Promise<string> {
  if (entry.uncompressedSize > MAX_MIMETYPE_BYTES) return '';
  const chunks: Buffer[] = [];
  for await (const chunk of inflatePart(bytes, entry)) chunks.push(chunk);
  return Buffer.concat(chunks).toString('latin1').trim();
}

async function openZip(bytes: Buffer, options: OpenOptions): Promise<SpreadsheetSource> {
  let entries: ZipEntry[];
  try {
    entries = await readZipDirectory(bytes, () => options.budget.checkpoint());
  } catch (error) {
    if (error instanceof ZipEncryptedError) throw sheetError.unsupported('The workbook is encrypted (password protected)');
    if (error instanceof ZipFormatError) throw damagedFile(error.message);
    throw error;
  }
  const declared = entries.reduce((sum, entry) => sum + entry.uncompressedSize, 0);
  const max = options.limits.uploadMaxUncompressedBytes;
  if (declared > max) {
    throw sheetError.tooLarge(`The workbook expands to ${declared} bytes when decompressed, over the limit of ${max} bytes`);
  }
  const mimetypeEntry = entries.find((entry) => entry.name === 'mimetype');
  const mimetype = mimetypeEntry ? await readMimetype(bytes, mimetypeEntry) : '';
  if (mimetype === ODS_MIMETYPE || mimetype === `${ODS_MIMETYPE}-template`) return openOdsSource(bytes, entries, options.budget);
  if (mimetype.startsWith('application/vnd.oasis.opendocument.')) {
    throw sheetError.unsupported(`The file is an OpenDocument ${mimetype.slice('application/vnd.oasis.opendocument.'.length)} document, not a spreadsheet`);
  }
  return openXlsxSource(bytes, entries, options.budget);
}

/**
 * Opens an uploaded file as a spreadsheet, its format told from its bytes (the file name and the
 * declared type are not trusted: browsers send CSV as anything, and a renamed file is read for
 * what it is): a zip whose `mimetype` item names an OpenDocument spreadsheet is an .ods, any other
 * zip an .xlsx; an Excel 97-2003 file, a PDF and XML or HTML are refused with 415; anything else
 * is read as CSV text. Throws PassengerSheetError 400 for an empty file, 413 for a zip that would
 * expand past the limit (judged from its directory), 415 for what cannot be read.
 */
export async function openSpreadsheet(bytes: Buffer, options: OpenOptions): Promise<SpreadsheetSource> {
  if (bytes.length === 0) throw sheetError.badRequest('The uploaded file is empty');
  const head = bytes.subarray(0, 4);
  if (head.equals(ZIP_LOCAL) || head.equals(ZIP_EMPTY)) return openZip(bytes, options);
  const refused = describeNonSpreadsheet(bytes);
  if (refused) throw sheetError.unsupported(refused);
  return openCsvSource(bytes, options.budget, options.fileName);
}
