import type { CellValue } from 'exceljs';
import { cellsOf, ENGLISH_HEADINGS, FIELDS, storedOrDeflated, writeZip, xmlEscape, type Field, type PassengerCells, type ZipPart } from './passenger-workbook';

/**
 * Passenger lists as CSV text and as OpenDocument spreadsheets, written here (independent of the
 * code under test) the way the common writers store them, to test the readers and to build
 * hostile files.
 */

export type CsvEncoding = 'utf-8' | 'utf-8-bom' | 'utf-16le-bom' | 'utf-16le' | 'utf-16be-bom' | 'windows-1252';

export interface CsvOptions {
  delimiter?: ',' | ';' | '\t';
  encoding?: CsvEncoding;
  /** Line ending; Excel writes CRLF. */
  newline?: string;
  fields?: readonly Field[];
  headings?: Record<Field, string>;
  /** Rows above the header, each a list of cells. */
  titleRows?: string[][];
  /** How a Date cell is written: as a European Excel shows it (default), or ISO. */
  dates?: 'DD/MM/YYYY' | 'DD.MM.YYYY' | 'YYYY-MM-DD';
}

function pad(n: number): string {
  return String(n).padStart(2, '0');
}

function csvText(value: CellValue, dates: CsvOptions['dates']): string {
  if (value === null || value === undefined) return '';
  if (value instanceof Date) {
    const [y, m, d] = [value.getUTCFullYear(), pad(value.getUTCMonth() + 1), pad(value.getUTCDate())];
    if (dates === 'YYYY-MM-DD') return `${y}-${m}-${d}`;
    return dates === 'DD.MM.YYYY' ? `${d}.${m}.${y}` : `${d}/${m}/${y}`;
  }
  if (typeof value === 'boolean') return value ? 'TRUE' : 'FALSE';
  return String(value);
}

/** A cell as Excel quotes it: only when it holds the separator, a quote or a line break. */
export function csvField(text: string, delimiter: string): string {
  return text.includes(delimiter) || /["\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function encodeText(text: string, encoding: CsvEncoding): Buffer {
  switch (encoding) {
    case 'utf-8':
      return Buffer.from(text, 'utf8');
    case 'utf-8-bom':
      return Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text, 'utf8')]);
    case 'utf-16le':
      return Buffer.from(text, 'utf16le');
    case 'utf-16le-bom':
      return Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
    case 'utf-16be-bom': {
      const le = Buffer.from(text, 'utf16le');
      return Buffer.concat([Buffer.from([0xfe, 0xff]), le.swap16()]);
    }
    case 'windows-1252':
      // The letters of the lists here (à-ÿ, À-ß) have the same code in ISO-8859-1 and Windows-1252.
      if ([...text].some((char) => char.charCodeAt(0) > 0xff)) throw new Error('the text has characters that this helper cannot write as Windows-1252');
      return Buffer.from(text, 'latin1');
  }
}

/** Rows of cells as CSV text. */
export function csvOf(rows: readonly (readonly string[])[], delimiter = ',', newline = '\r\n'): string {
  return rows.map((row) => row.map((cell) => csvField(cell, delimiter)).join(delimiter)).join(newline) + newline;
}

/** The common case as CSV: a header of English headings and one row per passenger. */
export function buildPassengerCsv(passengers: PassengerCells[], options: CsvOptions = {}): Buffer {
  const fields = options.fields ?? FIELDS;
  const names = options.headings ?? ENGLISH_HEADINGS;
  const rows = [
    ...(options.titleRows ?? []),
    fields.map((field) => names[field]),
    ...passengers.map((row) => cellsOf(row, fields).map((value) => csvText(value, options.dates))),
  ];
  return encodeText(csvOf(rows, options.delimiter ?? ',', options.newline ?? '\r\n'), options.encoding ?? 'utf-8');
}

// ---------------------------------------------------------------------------------------------
// OpenDocument spreadsheets

const ODS_NAMESPACES = [
  'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0"',
  'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0"',
  'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"',
  'xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0"',
  'xmlns:calcext="urn:org:documentfoundation:names:experimental:calc:xmlns:calcext:1.0"',
].join(' ');

/** One `table:table-cell` for a value: strings, numbers, booleans, dates as LibreOffice writes them; `{ xml }` as is. */
export function odsCell(value: CellValue | { xml: string }): string {
  if (value === null || value === undefined) return '<table:table-cell/>';
  if (typeof value === 'object' && 'xml' in value) return value.xml;
  if (value instanceof Date) {
    const day = value.toISOString().slice(0, 10);
    return `<table:table-cell office:value-type="date" office:date-value="${day}" calcext:value-type="date"><text:p>${day}</text:p></table:table-cell>`;
  }
  if (typeof value === 'number') {
    return `<table:table-cell office:value-type="float" office:value="${value}" calcext:value-type="float"><text:p>${value}</text:p></table:table-cell>`;
  }
  if (typeof value === 'boolean') {
    return `<table:table-cell office:value-type="boolean" office:boolean-value="${value}" calcext:value-type="boolean"><text:p>${value ? 'TRUE' : 'FALSE'}</text:p></table:table-cell>`;
  }
  return `<table:table-cell office:value-type="string" calcext:value-type="string"><text:p>${xmlEscape(String(value))}</text:p></table:table-cell>`;
}

export function odsRow(cells: readonly (CellValue | { xml: string })[], attributes = ''): string {
  return `<table:table-row${attributes}>${cells.map(odsCell).join('')}</table:table-row>`;
}

export interface OdsTable {
  name: string;
  /** The rows, as `table:table-row` elements. */
  rows: string;
  hidden?: boolean;
}

/** content.xml of an .ods holding `tables`. */
export function odsContent(tables: readonly OdsTable[]): string {
  const styles = tables.some((t) => t.hidden)
    ? '<office:automatic-styles><style:style style:name="taHidden" style:family="table"><style:table-properties table:display="false"/></style:style></office:automatic-styles>'
    : '<office:automatic-styles/>';
  const body = tables
    .map((t) => `<table:table table:name="${xmlEscape(t.name)}"${t.hidden ? ' table:style-name="taHidden"' : ''}>${t.rows}</table:table>`)
    .join('');
  return `<?xml version="1.0" encoding="UTF-8"?><office:document-content ${ODS_NAMESPACES} office:version="1.3">${styles}<office:body><office:spreadsheet>${body}</office:spreadsheet></office:body></office:document-content>`;
}

const MANIFEST = `<?xml version="1.0" encoding="UTF-8"?><manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.3"><manifest:file-entry manifest:full-path="/" manifest:media-type="application/vnd.oasis.opendocument.spreadsheet"/><manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/></manifest:manifest>`;

/** The zip of an .ods: `mimetype` stored first, as the format requires, then the manifest and content.xml. */
export function odsPackage(content: string | ZipPart, options: { manifest?: string; mimetype?: string } = {}): Buffer {
  const contentPart = typeof content === 'string' ? storedOrDeflated('content.xml', Buffer.from(content, 'utf8')) : content;
  return writeZip([
    storedOrDeflated('mimetype', Buffer.from(options.mimetype ?? 'application/vnd.oasis.opendocument.spreadsheet'), 0),
    storedOrDeflated('META-INF/manifest.xml', Buffer.from(options.manifest ?? MANIFEST)),
    contentPart,
  ]);
}

/** The common case as an .ods: one sheet, English headings, one row per passenger. */
export function buildPassengerOds(passengers: PassengerCells[], options: { fields?: readonly Field[]; sheetName?: string; before?: OdsTable[] } = {}): Buffer {
  const fields = options.fields ?? FIELDS;
  const rows = [odsRow(fields.map((field) => ENGLISH_HEADINGS[field])), ...passengers.map((row) => odsRow(cellsOf(row, fields)))].join('');
  return odsPackage(odsContent([...(options.before ?? []), { name: options.sheetName ?? 'Passengers', rows }]));
}
