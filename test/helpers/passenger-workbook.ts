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
  merges?: string[];
  dateFormat?: string;
  date1904?: boolean;
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
      if (value instanceof Date) cell.numFmt = spec.dateFormat ?? 'yyyy-mm-dd';
    });
    row.commit();
  });
  for (const range of spec.merges ?? []) sheet.mergeCells(range);
}

/** An .xlsx written by exceljs (shared strings, styles, as Excel would hold them). */
export async function buildWorkbook(spec: WorkbookSpec): Promise<Buffer> {
  const workbook = new ExcelJS.Workbook();
  if (spec.date1904) workbook.properties.date1904 = true;
  for (const sheet of spec.sheetsBefore ?? []) addSheet(workbook, sheet);
  addSheet(workbook, {
    name: spec.sheetName ?? 'Passengers',
    rows: [...(spec.titleRows ?? []), spec.headings, ...spec.rows],
    merges: spec.merges,
    dateFormat: spec.dateFormat,
  });
  return Buffer.from(await workbook.xlsx.writeBuffer());
}

/** The common case: English headings for `fields` and one row per passenger. */
export function buildPassengerWorkbook(
  passengers: PassengerCells[],
  options: Omit<WorkbookSpec, 'headings' | 'rows'> & { fields?: readonly Field[]; headings?: Record<Field, string> } = {},
): Promise<Buffer> {
  const fields = options.fields ?? FIELDS;
  const names = options.headings ?? ENGLISH_HEADINGS;
  return buildWorkbook({
    ...options,
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
