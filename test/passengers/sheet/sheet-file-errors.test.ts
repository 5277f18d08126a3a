import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { parsePassengerSheet, type PassengerSheetOptions } from '../../../src/passengers/sheet/parse-passenger-sheet';
import { PassengerSheetError } from '../../../src/passengers/sheet/sheet-error';
import { heapGrowth } from '../../helpers/heap-growth';
import {
  buildPassengerWorkbook,
  buildWorkbook,
  cellsOf,
  ENGLISH_HEADINGS,
  FIELDS,
  passenger,
  readZip,
  storedOrDeflated,
  withPart,
  writeZip,
  zerosPart,
  type Field,
} from '../../helpers/passenger-workbook';

const LIMITS = { uploadMaxBytes: 5 * 1024 * 1024, uploadMaxRows: 2000, uploadMaxColumns: 64, uploadMaxUncompressedBytes: 50 * 1024 * 1024 };
const FIXTURES = path.join(__dirname, '../../fixtures/passengers');
const SPREADSHEET_EXPECTED = 'A passenger list is read from an .xlsx or .ods workbook or a CSV file';

async function refusal(input: Buffer | Readable, options: Partial<PassengerSheetOptions> = {}): Promise<PassengerSheetError> {
  const error = await parsePassengerSheet(input, { flightId: 1, limits: LIMITS, ...options }).then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  if (!(error instanceof PassengerSheetError)) throw new Error(`expected a PassengerSheetError, got ${String(error)}`);
  return error;
}

const fixture = (name: string) => readFileSync(path.join(FIXTURES, name));
const sheetPartOf = (xlsx: Buffer) => readZip(xlsx).find((part) => part.name === 'xl/worksheets/sheet1.xml')!;

describe('parsePassengerSheet: files that are not an .xlsx, .ods or CSV (415)', () => {
  it.each([
    [
      'an Excel 97-2003 .xls',
      'rich-features.xls',
      'The file is an Excel 97-2003 workbook (.xls) or a password-protected file, which cannot be read; open it in Excel or LibreOffice, use "Save as" and choose "Excel Workbook (.xlsx)", "ODF Spreadsheet (.ods)" or "CSV UTF-8"',
    ],
    ['a PDF renamed to .xlsx', 'renamed-pdf.xlsx', 'The file is a PDF document, not a spreadsheet'],
    ['a flat OpenDocument file', 'sources/rich-features.fods', 'The file is an XML or HTML document, not a spreadsheet (a flat .fods or an "XML Spreadsheet 2003" is not read)'],
  ])('refuses %s, saying which formats are read', async (_what, file, reason) => {
    const error = await refusal(fixture(file));
    expect(error.status).toBe(415);
    expect(error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
    expect(error.message).toBe(`${reason}. ${SPREADSHEET_EXPECTED}: in Excel or LibreOffice use "Save as" and choose "Excel Workbook (.xlsx)".`);
  });

  it('refuses a zip archive that holds no workbook', async () => {
    const zip = writeZip([storedOrDeflated('readme.txt', Buffer.from('hello'))]);
    const error = await refusal(zip);
    expect(error.status).toBe(415);
    expect(error.message).toMatch(/^The file is a zip archive but not an .xlsx workbook \(it has no xl\/workbook.xml\)/);
  });

  it('refuses a truncated workbook', async () => {
    const xlsx = await buildPassengerWorkbook([passenger()]);
    const error = await refusal(xlsx.subarray(0, Math.floor(xlsx.length * 0.6)));
    expect(error.status).toBe(415);
    expect(error.message).toMatch(/^The file is a damaged .xlsx workbook: the end of the zip directory is missing/);
  });

  it('refuses a workbook with bytes after the end of its zip directory', async () => {
    const xlsx = await buildPassengerWorkbook([passenger()]);
    const error = await refusal(Buffer.concat([xlsx, Buffer.from('junk')]));
    expect(error.status).toBe(415);
    expect(error.message).toMatch(/^The file is a damaged .xlsx workbook: the end of the zip directory is damaged/);
  });

  it('refuses a workbook whose worksheet data is corrupt', async () => {
    const xlsx = await buildPassengerWorkbook([passenger()]);
    const sheet = sheetPartOf(xlsx);
    const garbled = Buffer.from(sheet.compressed);
    for (let i = 10; i < garbled.length - 10; i += 7) garbled[i] ^= 0x5a;
    const error = await refusal(withPart(xlsx, { ...sheet, compressed: garbled }));
    expect(error.status).toBe(415);
    expect(error.message).toMatch(/^The file is a damaged .xlsx workbook: xl\/worksheets\/sheet1.xml (cannot be decompressed|does not match its checksum)/);
  });

  it('stops at once when a large worksheet is corrupt near its start', async () => {
    const xlsx = await buildPassengerWorkbook(Array.from({ length: 3000 }, (_, i) => passenger({ numberdoc: `YA${i}` })));
    const sheet = sheetPartOf(xlsx);
    expect(sheet.size).toBeGreaterThan(500_000);
    const garbled = Buffer.from(sheet.compressed);
    for (let i = 40; i < 80; i += 1) garbled[i] ^= 0xff;
    const started = Date.now();
    const error = await refusal(withPart(xlsx, { ...sheet, compressed: garbled }));
    expect(error.status).toBe(415);
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('refuses a part whose checksum does not match', async () => {
    const xlsx = await buildPassengerWorkbook([passenger()]);
    const sheet = sheetPartOf(xlsx);
    const error = await refusal(withPart(xlsx, { ...sheet, crc: sheet.crc ^ 1 }));
    expect(error.status).toBe(415);
    expect(error.message).toMatch(/xl\/worksheets\/sheet1.xml does not match its checksum/);
  });

  it('refuses an encrypted archive', async () => {
    const xlsx = await buildPassengerWorkbook([passenger()]);
    const error = await refusal(writeZip(readZip(xlsx), { flags: 0x1 }));
    expect(error.status).toBe(415);
    expect(error.message).toMatch(/^The workbook is encrypted/);
  });

  it('refuses PKWARE strong encryption as encrypted', async () => {
    const xlsx = await buildPassengerWorkbook([passenger()]);
    const error = await refusal(writeZip(readZip(xlsx), { flags: 0x41 }));
    expect(error.status).toBe(415);
    expect(error.message).toMatch(/^The workbook is encrypted \(password protected\)/);
  });

  it('refuses a zip of more than 10,000 parts from the count in its directory', async () => {
    const parts = Array.from({ length: 10_001 }, (_, i) => storedOrDeflated(`p${i}`, Buffer.alloc(0), 0));
    const error = await refusal(writeZip(parts));
    expect(error.status).toBe(415);
    expect(error.message).toMatch(/^The file is a damaged .xlsx workbook: the archive holds 10001 parts, more than 10000/);
  });

  it('stops reading a directory of thousands of parts when the signal fires', async () => {
    const parts = Array.from({ length: 10_000 }, (_, i) => storedOrDeflated(`p${i}`, Buffer.alloc(0), 0));
    const controller = new AbortController();
    const reason = new Error('client went away');
    const parsing = parsePassengerSheet(writeZip(parts), { flightId: 1, limits: LIMITS, signal: controller.signal });
    setImmediate(() => controller.abort(reason));
    await expect(parsing).rejects.toBe(reason);
  });

  it('refuses a part whose directory entry points at no local header', async () => {
    const xlsx = await buildPassengerWorkbook([passenger()]);
    const moved = Buffer.from(xlsx);
    const name = Buffer.from('xl/worksheets/sheet1.xml');
    for (let at = moved.lastIndexOf(Buffer.from('PK\x01\x02', 'latin1')); at >= 0; at = moved.lastIndexOf(Buffer.from('PK\x01\x02', 'latin1'), at - 1)) {
      if (moved.subarray(at + 46, at + 46 + name.length).equals(name)) moved.writeUInt32LE(moved.readUInt32LE(at + 42) + 1, at + 42);
    }
    const error = await refusal(moved);
    expect(error.status).toBe(415);
    expect(error.message).toMatch(/^The file is a damaged .xlsx workbook: the local header of "xl\/worksheets\/sheet1.xml" is missing/);
  });

  it('answers 400 to an empty file', async () => {
    const error = await refusal(Buffer.alloc(0));
    expect(error.status).toBe(400);
    expect(error.message).toBe('The uploaded file is empty');
  });
});

describe('parsePassengerSheet: size limits', () => {
  it('refuses a zip bomb from its directory, before inflating anything (413)', async () => {
    const xlsx = await buildPassengerWorkbook([passenger()]);
    const bomb = withPart(xlsx, await zerosPart('xl/worksheets/sheet1.xml', 60 * 1024 * 1024));
    expect(bomb.length).toBeLessThan(200 * 1024);
    // Refused as it inflates: what it holds alive at once far under the 60 MB the part would take
    // inflated, nothing left behind.
    const { result: error, peakLiveBytes, retainedBytes } = await heapGrowth(() => refusal(bomb));
    expect(error.status).toBe(413);
    expect(error.message).toMatch(/^The workbook expands to \d+ bytes when decompressed, over the limit of 52428800 bytes$/);
    expect(peakLiveBytes).toBeLessThan(20 * 1024 * 1024);
    expect(retainedBytes).toBeLessThan(4 * 1024 * 1024);
  });

  it('stops inflating a part that expands beyond the size its header declares (413)', async () => {
    const xlsx = await buildPassengerWorkbook([passenger()]);
    const liar = { ...(await zerosPart('xl/worksheets/sheet1.xml', 8 * 1024 * 1024)), size: 4000 };
    const error = await refusal(withPart(xlsx, liar));
    expect(error.status).toBe(413);
    expect(error.message).toBe(
      'The workbook part xl/worksheets/sheet1.xml expands beyond the 4000 bytes its zip header declares; it looks like a zip bomb and was not read',
    );
  });

  it('refuses a file larger than uploadMaxBytes (413)', async () => {
    const xlsx = await buildPassengerWorkbook([passenger()]);
    const error = await refusal(xlsx, { limits: { ...LIMITS, uploadMaxBytes: xlsx.length - 1 } });
    expect(error.status).toBe(413);
    expect(error.message).toBe(`The file is ${xlsx.length} bytes, over the limit of ${xlsx.length - 1} bytes`);
  });

  it('stops reading a stream as soon as it passes uploadMaxBytes (413)', async () => {
    let served = 0;
    const endless = new Readable({
      read() {
        served += 1;
        this.push(Buffer.alloc(64 * 1024, 1));
      },
    });
    const error = await refusal(endless, { limits: { ...LIMITS, uploadMaxBytes: 1024 * 1024 } });
    expect(error.status).toBe(413);
    expect(error.message).toBe('The file is larger than the limit of 1048576 bytes');
    expect(served).toBeLessThan(40);
  });

  it('reads a workbook from a stream within the limit', async () => {
    const xlsx = await buildPassengerWorkbook([passenger()]);
    const chunks = Array.from({ length: Math.ceil(xlsx.length / 1000) }, (_, i) => xlsx.subarray(i * 1000, (i + 1) * 1000));
    const result = await parsePassengerSheet(Readable.from(chunks), { flightId: 1, limits: LIMITS });
    expect(result.records).toHaveLength(1);
  });

  it('refuses more passenger rows than uploadMaxRows (413); exactly the limit is accepted', async () => {
    const rows = Array.from({ length: 4 }, (_, i) => passenger({ numberdoc: `YA${i}` }));
    const xlsx = await buildPassengerWorkbook(rows);
    const error = await refusal(xlsx, { limits: { ...LIMITS, uploadMaxRows: 3 } });
    expect(error.status).toBe(413);
    expect(error.message).toBe('The list has more than 3 passenger rows (the limit); split it into smaller lists');
    const accepted = await parsePassengerSheet(xlsx, { flightId: 1, limits: { ...LIMITS, uploadMaxRows: 4 } });
    expect(accepted.records).toHaveLength(4);
  });

  it('refuses a value beyond uploadMaxColumns (422), but not an empty formatted cell there', async () => {
    const headings = FIELDS.map((f) => ENGLISH_HEADINGS[f]);
    const limits = { ...LIMITS, uploadMaxColumns: 15 };
    const withNote = await buildWorkbook({ headings, rows: [[...cellsOf(passenger()), null, 'note']] });
    const error = await refusal(withNote, { limits });
    expect(error.status).toBe(422);
    expect(error.message).toBe('Sheet row 2 has a value in column P (column 16); at most 15 columns are accepted');
    expect(error.details).toEqual([expect.objectContaining({ column: 'P', sheet_row: 2 })]);

    const formattedOnly = await buildWorkbook({ headings, rows: [[...cellsOf(passenger()), null, '']] });
    expect((await parsePassengerSheet(formattedOnly, { flightId: 1, limits })).records).toHaveLength(1);
  });
});

describe('parsePassengerSheet: sheets without a usable list (422)', () => {
  it('refuses a workbook without a header row, naming every required column', async () => {
    const xlsx = await buildWorkbook({ headings: ['Flight', 'Date'], rows: [['AZ1234', '2026-12-01']] });
    const error = await refusal(xlsx);
    expect(error.status).toBe(422);
    expect(error.message).toMatch(/^No header row found: no visible sheet has a row naming the passenger columns/);
    expect(error.details.map((d) => d.field)).toEqual([
      'surname', 'name', 'date_born', 'luogonascita', 'nazionalita', 'typedoc', 'numberdoc', 'scadenza', 'issuingstate', 'gender',
    ]);
  });

  it('looks for the header only in the first 30 rows', async () => {
    const titleRows = Array.from({ length: 30 }, (_, i) => [`note ${i + 1}`]);
    const error = await refusal(await buildPassengerWorkbook([passenger()], { titleRows }));
    expect(error.message).toMatch(/^No header row found/);
  });

  it('names the required columns a header lacks', async () => {
    const fields = FIELDS.filter((f): f is Field => f !== 'nazionalita' && f !== 'gender');
    const error = await refusal(await buildPassengerWorkbook([passenger()], { fields }));
    expect(error.status).toBe(422);
    expect(error.details).toEqual([
      expect.objectContaining({ field: 'nazionalita', column: 'nazionalita', message: expect.stringMatching(/^Required column "Nationality" is missing/) }),
      expect.objectContaining({ field: 'gender', column: 'gender', message: expect.stringMatching(/^Required column "Gender" is missing/) }),
    ]);
  });

  it('refuses a header without passenger rows', async () => {
    const error = await refusal(await buildPassengerWorkbook([{}, {}]));
    expect(error.status).toBe(422);
    expect(error.message).toBe('The passenger list is empty: sheet "Passengers" has a header row (row 1) but no passenger rows below it');
  });
});
