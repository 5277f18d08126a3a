import zlib from 'node:zlib';
import ExcelJS, { type CellValue } from 'exceljs';

/** The spec's field names, in the order the English headings below list them. */
export const FIELDS = [
  'surname',
  'name',
  'date_born',
  'luogonascita',
  'nazionalita',
  'typedoc',
  'numberdoc',
  'scadenza',
  'issuingstate',
  'email',
  'phone',
  'is_carring_infant',
  'gender',
  'row_number_parent_id',
] as const;

export type Field = (typeof FIELDS)[number];

export const ENGLISH_HEADINGS: Record<Field, string> = {
  surname: 'Surname',
  name: 'First name',
  date_born: 'Date of birth',
  luogonascita: 'Country of birth',
  nazionalita: 'Nationality',
  typedoc: 'Document type',
  numberdoc: 'Document number',
  scadenza: 'Expiry date',
  issuingstate: 'Issuing country',
  email: 'E-mail',
  phone: 'Mobile',
  is_carring_infant: 'With infant',
  gender: 'Sex',
  row_number_parent_id: 'Parent row',
};

export const ITALIAN_HEADINGS: Record<Field, string> = {
  surname: 'Cognome',
  name: 'Nome',
  date_born: 'Data di nascita',
  luogonascita: 'Luogo di nascita',
  nazionalita: 'Nazionalità',
  typedoc: 'Tipo documento',
  numberdoc: 'Numero documento',
  scadenza: 'Data di scadenza',
  issuingstate: 'Stato di rilascio',
  email: 'E-mail',
  phone: 'Cellulare',
  is_carring_infant: 'Con infant',
  gender: 'Sesso',
  row_number_parent_id: 'Riga accompagnatore',
};

export type PassengerCells = Partial<Record<Field, CellValue>>;

/** A passenger whose every cell is valid; override cells to make it otherwise. */
export function passenger(overrides: PassengerCells = {}): PassengerCells {
  return {
    surname: 'Rossi',
    name: 'Mario',
    date_born: new Date(Date.UTC(1980, 4, 17)),
    luogonascita: 'Italy',
    nazionalita: 'IT',
    typedoc: 'P',
    numberdoc: 'YA1234567',
    scadenza: new Date(Date.UTC(2031, 4, 16)),
    issuingstate: 'ITA',
    email: 'mario.rossi@example.com',
    phone: '+39 333 123 4567',
    is_carring_infant: 'no',
    gender: 'M',
    row_number_parent_id: null,
    ...overrides,
  };
}

/** The record the default `passenger()` row parses to, for the flight `idvolo`. */
export function parsedPassenger(idvolo: number, overrides: Record<string, unknown> = {}) {
  return {
    id: null,
    idvolo,
    surname: 'ROSSI',
    name: 'MARIO',
    luogonascita: 'IT',
    nazionalita: 'IT',
    typedoc: 'P',
    numberdoc: 'YA1234567',
    date_born: '1980-05-17',
    scadenza: '2031-05-16',
    issuingstate: 'IT',
    email: 'mario.rossi@example.com',
    phone: '+393331234567',
    is_carring_infant: false,
    gender: 'M',
    parent_id: null,
    row_number_parent_id: null,
    row_number: 1,
    ...overrides,
  };
}

export interface SheetSpec {
  name?: string;
  state?: 'visible' | 'hidden' | 'veryHidden';
  /** Rows as written, from row 1 (use [] for a blank row). */
  rows: CellValue[][];
  /** Ranges such as "A1:F1". */
  merges?: string[];
  /** Number format given to Date cells; default yyyy-mm-dd. */
  dateFormat?: string;
  /** Number formats by column (0 = A), given to every cell of the column (a Date cell's too). */
  columnFormats?: Record<number, string>;
  /** Sheet rows hidden, and columns (1 = A) hidden. */
  hiddenRows?: number[];
  hiddenColumns?: number[];
  /** An autofilter over this range (exceljs writes it without criteria). */
  autoFilter?: string;
}

/** The list written as an Excel table with a totals row: a label under the first column, a count under another. */
export interface TableSpec {
  totalsLabel?: string;
  /** Index (0-based) of the column whose total is `count` (SUBTOTAL(103, …)). */
  countColumn?: number;
}

export interface WorkbookSpec {
  /** Column headings, left to right (use '' for a column without heading). */
  headings: string[];
  /** Data rows, cell values in heading order. */
  rows: CellValue[][];
  /** Rows above the header (titles, blanks). */
  titleRows?: CellValue[][];
  sheetName?: string;
  /** Sheets placed before the passenger sheet. */
  sheetsBefore?: SheetSpec[];
  /** Sheets placed after it. */
  sheetsAfter?: SheetSpec[];
  merges?: string[];
  dateFormat?: string;
  /** Number formats by column (0 = A), given to every cell of the column. */
  columnFormats?: Record<number, string>;
  date1904?: boolean;
  /** Sheet rows (counted from 1, titles and header included) and columns (1 = A) of the list hidden. */
  hiddenRows?: number[];
  hiddenColumns?: number[];
  autoFilter?: string;
  /** Write the header and rows as an Excel table with a totals row. */
  table?: TableSpec;
}

/** Cells for `fields` taken from a passenger object (missing fields become empty cells). */
export function cellsOf(row: PassengerCells, fields: readonly Field[] = FIELDS): CellValue[] {
  return fields.map((field) => row[field] ?? null);
}

function addSheet(workbook: ExcelJS.Workbook, spec: SheetSpec): void {
  const sheet = workbook.addWorksheet(spec.name ?? `Sheet${workbook.worksheets.length + 1}`, {
    state: spec.state ?? 'visible',
  });
  spec.rows.forEach((cells, index) => {
    const row = sheet.getRow(index + 1);
    cells.forEach((value, column) => {
      if (value === null || value === undefined) return;
      const cell = row.getCell(column + 1);
      cell.value = value;
      const numFmt = spec.columnFormats?.[column] ?? (value instanceof Date ? (spec.dateFormat ?? 'yyyy-mm-dd') : undefined);
      if (numFmt !== undefined) cell.numFmt = numFmt;
    });
    row.commit();
  });
  for (const range of spec.merges ?? []) sheet.mergeCells(range);
  for (const row of spec.hiddenRows ?? []) sheet.getRow(row).hidden = true;
  for (const column of spec.hiddenColumns ?? []) sheet.getColumn(column).hidden = true;
  if (spec.autoFilter) sheet.autoFilter = spec.autoFilter;
}

function addTableSheet(workbook: ExcelJS.Workbook, spec: WorkbookSpec & { table: TableSpec }): void {
  const sheet = workbook.addWorksheet(spec.sheetName ?? 'Passengers');
  const titles = spec.titleRows ?? [];
  titles.forEach((cells, index) => cells.forEach((value, column) => value !== null && (sheet.getRow(index + 1).getCell(column + 1).value = value)));
  sheet.addTable({
    name: 'PassengerTable',
    ref: `A${titles.length + 1}`,
    headerRow: true,
    totalsRow: true,
    columns: spec.headings.map((name, index) =>
      index === 0 ? { name, totalsRowLabel: spec.table.totalsLabel ?? 'Total' } : index === spec.table.countColumn ? { name, totalsRowFunction: 'count' as const } : { name },
    ),
    rows: spec.rows,
  });
  for (const row of spec.hiddenRows ?? []) sheet.getRow(row).hidden = true;
  for (const column of spec.hiddenColumns ?? []) sheet.getColumn(column).hidden = true;
}

/** An .xlsx written by exceljs (shared strings, styles, as Excel would hold them). */
export async function buildWorkbook(spec: WorkbookSpec): Promise<Buffer> {
  const workbook = new ExcelJS.Workbook();
  if (spec.date1904) workbook.properties.date1904 = true;
  for (const sheet of spec.sheetsBefore ?? []) addSheet(workbook, sheet);
  if (spec.table) {
    addTableSheet(workbook, { ...spec, table: spec.table });
    return Buffer.from(await workbook.xlsx.writeBuffer());
  }
  addSheet(workbook, {
    name: spec.sheetName ?? 'Passengers',
    rows: [...(spec.titleRows ?? []), spec.headings, ...spec.rows],
    merges: spec.merges,
    dateFormat: spec.dateFormat,
    columnFormats: spec.columnFormats,
    hiddenRows: spec.hiddenRows,
    hiddenColumns: spec.hiddenColumns,
    autoFilter: spec.autoFilter,
  });
  for (const sheet of spec.sheetsAfter ?? []) addSheet(workbook, sheet);
  return Buffer.from(await workbook.xlsx.writeBuffer());
}

/**
 * The common case: English headings for `fields` and one row per passenger; `formats` gives the
 * cells of a field's column a number format (`{ numberdoc: '000000000' }`).
 */
export function buildPassengerWorkbook(
  passengers: PassengerCells[],
  options: Omit<WorkbookSpec, 'headings' | 'rows'> & { fields?: readonly Field[]; headings?: Record<Field, string>; formats?: Partial<Record<Field, string>> } = {},
): Promise<Buffer> {
  const fields = options.fields ?? FIELDS;
  const names = options.headings ?? ENGLISH_HEADINGS;
  const columnFormats: Record<number, string> = {};
  for (const [field, format] of Object.entries(options.formats ?? {})) columnFormats[fields.indexOf(field as Field)] = format;
  return buildWorkbook({
    ...options,
    columnFormats,
    headings: fields.map((field) => names[field]),
    rows: passengers.map((row) => cellsOf(row, fields)),
  });
}

// ---------------------------------------------------------------------------------------------
// A small zip reader and writer, independent of the code under test, to take workbooks apart and
// build damaged or hostile ones.

export interface ZipPart {
  name: string;
  /** 0 stored, 8 deflated. */
  method: 0 | 8;
  compressed: Buffer;
  /** Uncompressed size as the headers will declare it. */
  size: number;
  crc: number;
}

export function storedOrDeflated(name: string, data: Buffer, method: 0 | 8 = 8): ZipPart {
  return {
    name,
    method,
    compressed: method === 8 ? zlib.deflateRawSync(data) : data,
    size: data.length,
    crc: zlib.crc32(data),
  };
}

/** A part of `size` zero bytes, deflated chunk by chunk so it never sits in memory whole. */
export async function zerosPart(name: string, size: number): Promise<ZipPart> {
  const chunk = Buffer.alloc(1024 * 1024);
  const deflate = zlib.createDeflateRaw({ level: 9 });
  const output: Buffer[] = [];
  deflate.on('data', (data: Buffer) => output.push(data));
  const done = new Promise((resolve) => deflate.on('end', resolve));
  let crc = 0;
  for (let left = size; left > 0; left -= chunk.length) {
    const piece = left >= chunk.length ? chunk : chunk.subarray(0, left);
    crc = zlib.crc32(piece, crc);
    if (!deflate.write(piece)) await new Promise((resolve) => deflate.once('drain', resolve));
  }
  deflate.end();
  await done;
  return { name, method: 8, compressed: Buffer.concat(output), size, crc };
}

/** Parts of a zip, in file order, still compressed. */
export function readZip(zip: Buffer): ZipPart[] {
  let eocd = zip.length - 22;
  while (zip.readUInt32LE(eocd) !== 0x06054b50) eocd -= 1;
  const count = zip.readUInt16LE(eocd + 10);
  let at = zip.readUInt32LE(eocd + 16);
  const parts: ZipPart[] = [];
  for (let i = 0; i < count; i += 1) {
    const nameLength = zip.readUInt16LE(at + 28);
    const local = zip.readUInt32LE(at + 42);
    const compressedSize = zip.readUInt32LE(at + 20);
    const data = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
    parts.push({
      name: zip.toString('utf8', at + 46, at + 46 + nameLength),
      method: zip.readUInt16LE(at + 10) as 0 | 8,
      compressed: zip.subarray(data, data + compressedSize),
      size: zip.readUInt32LE(at + 24),
      crc: zip.readUInt32LE(at + 16),
    });
    at += 46 + nameLength + zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32);
  }
  return parts;
}

export function partText(part: ZipPart): string {
  return (part.method === 8 ? zlib.inflateRawSync(part.compressed) : part.compressed).toString('utf8');
}

export function writeZip(parts: ZipPart[], options: { flags?: number } = {}): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const part of parts) {
    const name = Buffer.from(part.name, 'utf8');
    const header = Buffer.alloc(30);
    header.writeUInt32LE(0x04034b50, 0);
    header.writeUInt16LE(20, 4);
    header.writeUInt16LE(options.flags ?? 0, 6);
    header.writeUInt16LE(part.method, 8);
    header.writeUInt32LE(part.crc >>> 0, 14);
    header.writeUInt32LE(part.compressed.length, 18);
    header.writeUInt32LE(part.size, 22);
    header.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(options.flags ?? 0, 8);
    central.writeUInt16LE(part.method, 10);
    central.writeUInt32LE(part.crc >>> 0, 16);
    central.writeUInt32LE(part.compressed.length, 20);
    central.writeUInt32LE(part.size, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(header, name, part.compressed);
    centrals.push(central, name);
    offset += 30 + name.length + part.compressed.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(parts.length, 8);
  end.writeUInt16LE(parts.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

/** The workbook with one part replaced (or added). */
export function withPart(xlsx: Buffer, replacement: ZipPart): Buffer {
  const parts = readZip(xlsx).filter((part) => part.name !== replacement.name);
  return writeZip([...parts, replacement]);
}

// ---------------------------------------------------------------------------------------------
// SpreadsheetML written by hand, the way writers other than exceljs do it (ClosedXML's `x:`
// prefixes, strict namespaces, odd part names, cells without `r=`…), to test the reader on them.

const TRANSITIONAL = {
  main: 'http://schemas.openxmlformats.org/spreadsheetml/2006/main',
  r: 'http://schemas.openxmlformats.org/officeDocument/2006/relationships',
  types: 'http://schemas.openxmlformats.org/officeDocument/2006/relationships/',
};
const STRICT = {
  main: 'http://purl.oclc.org/ooxml/spreadsheetml/main',
  r: 'http://purl.oclc.org/ooxml/officeDocument/relationships',
  types: 'http://purl.oclc.org/ooxml/officeDocument/relationships/',
};

export const xmlEscape = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

export interface RawSheet {
  name: string;
  /** The rows, as `<row>` elements written with `p` (the element prefix, '' or 'x:'). */
  rows: string;
  state?: 'hidden' | 'veryHidden';
  /** The zip item name; default xl/worksheets/sheetN.xml. */
  part?: string;
  /** XML after </sheetData>, e.g. `<mergeCells>…`. */
  tail?: string;
}

export interface RawWorkbookSpec {
  sheets: RawSheet[];
  /** Shared string items (`<si>` contents, already XML). */
  sharedStrings?: string[];
  /** Where the shared strings live; default xl/sharedStrings.xml. */
  sharedStringsPart?: string;
  /** Name the shared strings part in the relationships but leave it out of the zip. */
  sharedStringsMissing?: boolean;
  /** Where the workbook lives (found through _rels/.rels); default xl/workbook.xml. */
  workbookPart?: string;
  /** Element prefix bound to the main namespace, e.g. 'x' (ClosedXML, Open XML SDK). */
  prefix?: string;
  strict?: boolean;
  /** Relationship targets as absolute part names (`/xl/worksheets/…`). */
  absoluteTargets?: boolean;
  /** Extra XML inside <workbook> before <sheets>, e.g. `<workbookPr date1904="true"/>` (written with the prefix). */
  workbookPr?: string;
  /**
   * What the styles part holds inside `<styleSheet>` (written with the prefix), or false for a
   * workbook without one. Default: cell format 0 General, 1 a date (built-in 14), as `dates: 'serial'` writes `s="1"`.
   */
  styles?: string | false;
  /** Where the styles part lives; default xl/styles.xml. */
  stylesPart?: string;
  /** Store the parts without compression. */
  stored?: boolean;
}

/** The zip of a workbook written by hand from `spec`. */
export function rawWorkbook(spec: RawWorkbookSpec): Buffer {
  const ns = spec.strict ? STRICT : TRANSITIONAL;
  const p = spec.prefix ? `${spec.prefix}:` : '';
  const xmlnsMain = spec.prefix ? `xmlns:${spec.prefix}="${ns.main}"` : `xmlns="${ns.main}"`;
  const workbookPart = spec.workbookPart ?? 'xl/workbook.xml';
  const folder = workbookPart.slice(0, workbookPart.lastIndexOf('/') + 1);
  const target = (part: string) => (spec.absoluteTargets ? `/${part}` : part.startsWith(folder) ? part.slice(folder.length) : `/${part}`);
  const decl = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n';
  const parts: { name: string; text: string }[] = [];
  const rels: string[] = [];
  const sheetsXml = spec.sheets
    .map((sheet, index) => {
      const part = sheet.part ?? `${folder}worksheets/sheet${index + 1}.xml`;
      rels.push(`<Relationship Id="rId${index + 1}" Type="${ns.types}worksheet" Target="${target(part)}"/>`);
      parts.push({
        name: part,
        text: `${decl}<${p}worksheet ${xmlnsMain} xmlns:r="${ns.r}"><${p}sheetData>${sheet.rows}</${p}sheetData>${sheet.tail ?? ''}</${p}worksheet>`,
      });
      const state = sheet.state ? ` state="${sheet.state}"` : '';
      return `<${p}sheet name="${xmlEscape(sheet.name)}" sheetId="${index + 1}"${state} r:id="rId${index + 1}"/>`;
    })
    .join('');
  if (spec.sharedStrings || spec.sharedStringsMissing) {
    const part = spec.sharedStringsPart ?? `${folder}sharedStrings.xml`;
    rels.push(`<Relationship Id="rIdS" Type="${ns.types}sharedStrings" Target="${target(part)}"/>`);
    if (!spec.sharedStringsMissing) {
      const items = (spec.sharedStrings ?? []).map((item) => `<${p}si>${item}</${p}si>`).join('');
      parts.push({ name: part, text: `${decl}<${p}sst ${xmlnsMain} count="${spec.sharedStrings?.length ?? 0}">${items}</${p}sst>` });
    }
  }
  if (spec.styles !== false) {
    const part = spec.stylesPart ?? `${folder}styles.xml`;
    rels.push(`<Relationship Id="rIdY" Type="${ns.types}styles" Target="${target(part)}"/>`);
    const styles = spec.styles ?? `<${p}cellXfs count="2"><${p}xf numFmtId="0"/><${p}xf numFmtId="14"/></${p}cellXfs>`;
    parts.push({ name: part, text: `${decl}<${p}styleSheet ${xmlnsMain}>${styles}</${p}styleSheet>` });
  }
  parts.push({
    name: workbookPart,
    text: `${decl}<${p}workbook ${xmlnsMain} xmlns:r="${ns.r}">${spec.workbookPr ?? ''}<${p}sheets>${sheetsXml}</${p}sheets></${p}workbook>`,
  });
  const relsPart = `${folder}_rels/${workbookPart.slice(folder.length)}.rels`;
  const relsXmlns = 'http://schemas.openxmlformats.org/package/2006/relationships';
  parts.push({ name: relsPart, text: `${decl}<Relationships xmlns="${relsXmlns}">${rels.join('')}</Relationships>` });
  parts.push({
    name: '_rels/.rels',
    text: `${decl}<Relationships xmlns="${relsXmlns}"><Relationship Id="rId1" Type="${ns.types}officeDocument" Target="${spec.absoluteTargets ? '/' : ''}${workbookPart}"/></Relationships>`,
  });
  parts.push({
    name: '[Content_Types].xml',
    text: `${decl}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="xml" ContentType="application/xml"/><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/></Types>`,
  });
  return writeZip(parts.reverse().map(({ name, text }) => storedOrDeflated(name, Buffer.from(text, 'utf8'), spec.stored ? 0 : 8)));
}

export type RawCell = string | number | boolean | Date | null | { xml: string };

export interface RawRowOptions {
  /** Element prefix ('' or 'x:'). */
  p?: string;
  /** Write `r=` on the row and its cells (default true). */
  refs?: boolean;
  /** How Date cells are written: ISO 8601 `t="d"` (default) or a 1900-system serial number in cell format 1 (`s="1"`, a date in rawWorkbook's styles). */
  dates?: 'iso' | 'serial';
}

const letters = (column: number) => {
  let out = '';
  for (let n = column; n > 0; n = Math.floor((n - 1) / 26)) out = String.fromCharCode(65 + ((n - 1) % 26)) + out;
  return out;
};

/** One `<row>`: strings as inline strings, numbers, booleans, dates; `{ xml }` is written inside `<c>` as is. */
export function rawRow(rowNumber: number, cells: readonly RawCell[], options: RawRowOptions = {}): string {
  const p = options.p ?? '';
  const refs = options.refs ?? true;
  const body = cells
    .map((value, index) => {
      if (value === null || value === undefined) return '';
      const r = refs ? ` r="${letters(index + 1)}${rowNumber}"` : '';
      if (typeof value === 'object' && 'xml' in value) return `<${p}c${r}${value.xml}</${p}c>`;
      if (typeof value === 'string') return `<${p}c${r} t="inlineStr"><${p}is><${p}t>${xmlEscape(value)}</${p}t></${p}is></${p}c>`;
      if (typeof value === 'number') return `<${p}c${r}><${p}v>${value}</${p}v></${p}c>`;
      if (typeof value === 'boolean') return `<${p}c${r} t="b"><${p}v>${value ? 1 : 0}</${p}v></${p}c>`;
      if (options.dates === 'serial') {
        return `<${p}c${r} s="1"><${p}v>${(value.getTime() - Date.UTC(1899, 11, 30)) / 86_400_000}</${p}v></${p}c>`;
      }
      return `<${p}c${r} t="d"><${p}v>${value.toISOString().slice(0, 19)}</${p}v></${p}c>`;
    })
    .join('');
  return `<${p}row${refs ? ` r="${rowNumber}"` : ''}>${body}</${p}row>`;
}

/** Header and passenger rows for `rawWorkbook`, English headings, from row `first`. */
export function rawPassengerRows(passengers: PassengerCells[], options: RawRowOptions & { first?: number; fields?: readonly Field[] } = {}): string {
  const fields = options.fields ?? FIELDS;
  const first = options.first ?? 1;
  const header = rawRow(first, fields.map((field) => ENGLISH_HEADINGS[field]), options);
  const rows = passengers.map((row, index) => rawRow(first + index + 1, cellsOf(row, fields) as RawCell[], options));
  return header + rows.join('');
}
