import { readFileSync } from 'node:fs';
import path from 'node:path';
import { openSpreadsheet } from '../../../src/passengers/sheet/open-spreadsheet';
import { parsePassengerSheet, type PassengerSheetOptions, type PassengerSheetResult } from '../../../src/passengers/sheet/parse-passenger-sheet';
import { ReadBudget } from '../../../src/passengers/sheet/read-budget';
import { PassengerSheetError } from '../../../src/passengers/sheet/sheet-error';
import type { SheetCell, SheetRowInfo } from '../../../src/passengers/sheet/worksheet-reader';
import { buildPassengerCsv, buildPassengerOds, csvOf, encodeText, odsContent, odsPackage, odsRow, type CsvEncoding } from '../../helpers/passenger-formats';
import { buildPassengerWorkbook, ENGLISH_HEADINGS, FIELDS, parsedPassenger, passenger } from '../../helpers/passenger-workbook';

/** CSV and OpenDocument lists: files written by LibreOffice, Gnumeric and in Excel's conventions (test/fixtures/passengers/README.md), and by the helpers. */
const LIMITS = { uploadMaxBytes: 5 * 1024 * 1024, uploadMaxRows: 2000, uploadMaxColumns: 64, uploadMaxUncompressedBytes: 50 * 1024 * 1024 };
const TODAY = new Date(Date.UTC(2026, 10, 21));
const fixture = (name: string) => readFileSync(path.join(__dirname, '../../fixtures/passengers', name));

function parse(file: Buffer, options: Partial<PassengerSheetOptions> = {}): Promise<PassengerSheetResult> {
  return parsePassengerSheet(file, { flightId: 77, limits: LIMITS, today: TODAY, ...options });
}

async function refusal(file: Buffer, options: Partial<PassengerSheetOptions> = {}): Promise<PassengerSheetError> {
  const error = await parse(file, options).then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  if (!(error instanceof PassengerSheetError)) throw new Error(`expected a PassengerSheetError, got ${String(error)}`);
  return error;
}

/** The three passengers of sources/formats-list.fods, as every format of it must read. */
const FORMATS_LIST = [
  parsedPassenger(77, {
    surname: 'MÜLLER', name: 'JÜRGEN KARL', date_born: '1964-02-29', luogonascita: 'DE', nazionalita: 'DE', typedoc: 'P', numberdoc: 'C01X00T47',
    scadenza: '2030-10-21', issuingstate: 'DE', email: 'juergen@example.de', phone: '+49301234567', gender: 'M', row_number: 1,
  }),
  parsedPassenger(77, {
    surname: 'DUBOIS', name: 'ÉLOÏSE', date_born: '1990-05-17', luogonascita: 'FR', nazionalita: 'FR', typedoc: 'I', numberdoc: '123456789',
    scadenza: '2031-05-16', issuingstate: 'FR', email: 'eloise@example.fr', phone: '+33612345678', gender: 'F', row_number: 2,
  }),
  parsedPassenger(77, {
    surname: "O'NEIL", name: 'ANN', date_born: '1985-01-25', luogonascita: 'IE', nazionalita: 'IE', typedoc: 'P', numberdoc: 'PA1234567',
    scadenza: '2030-09-30', issuingstate: 'IE', email: null, phone: null, gender: 'F', row_number: 3,
  }),
];
const NOTES_IGNORED = 'Column N "Notes" is not a passenger field and was ignored';
const GUESSED_1252 = expect.stringMatching(/^The CSV file is not UTF-8 text; it was read as Windows-1252/);

describe('parsePassengerSheet: CSV and .ods files from real writers', () => {
  it.each([
    ['LibreOffice .ods', 'libreoffice-list.ods'],
    ['Gnumeric .ods', 'gnumeric-list.ods'],
  ])('reads a %s: hidden sheet skipped, title merged, comment, link, spaces and a number cell', async (_what, file) => {
    const { records, warnings, sheetName } = await parse(fixture(file));
    expect(records).toEqual(FORMATS_LIST);
    expect(sheetName).toBe('Passengers');
    expect(warnings).toEqual(['Sheet "Draft" was skipped: it is hidden', NOTES_IGNORED]);
  });

  it('reads the LibreOffice .ods of rich-features exactly as its .xlsx: merged blocks, rich text, formulas, booleans', async () => {
    const fromOds = await parse(fixture('rich-features.ods'));
    const fromXlsx = await parse(fixture('rich-features.xlsx'));
    expect(fromOds.records).toEqual(fromXlsx.records);
    expect(fromOds.records.length).toBe(2);
    expect(fromOds.warnings).toEqual(fromXlsx.warnings);
  });

  it.each([
    ['LibreOffice CSV, UTF-8 and commas', 'libreoffice-utf8-comma.csv', []],
    ['Excel "CSV UTF-8": byte order mark, commas, CRLF', 'excel-utf8-bom-comma.csv', []],
    ['Excel "Unicode Text": UTF-16LE, tabs', 'excel-unicode-text.txt', []],
    ['LibreOffice CSV, Windows-1252 and semicolons', 'libreoffice-1252-semicolon.csv', [GUESSED_1252]],
    ['German Excel "CSV": Windows-1252, semicolons, DD.MM.YYYY dates', 'excel-german-1252-semicolon.csv', [GUESSED_1252]],
  ])('reads a %s, a quoted cell with separators, quotes and a line break included', async (_what, file, notes) => {
    const { records, warnings, sheetName } = await parse(fixture(file), { fileName: `uploads/${file}` });
    expect(records).toEqual(FORMATS_LIST);
    expect(warnings).toEqual([...notes, NOTES_IGNORED]);
    expect(sheetName).toBe(file.replace(/\.[a-z]+$/, ''));
  });

  it("reads Gnumeric's CSV, whose date cells come out year first as YYYY/MM/DD", async () => {
    const { records, warnings } = await parse(fixture('gnumeric-list.csv'), { fileName: 'gnumeric-list.csv' });
    expect(records).toEqual(FORMATS_LIST);
    expect(warnings).toEqual([NOTES_IGNORED]);
  });

  it("flags the rows LibreOffice hides by hand and by an autofilter, and tells its hidden columns, as the sheet's row data", async () => {
    const budget = new ReadBudget({ maxCells: 200_000, maxParseMs: 10_000 });
    const source = await openSpreadsheet(fixture('libreoffice-hidden-rows.ods'), { limits: LIMITS, budget });
    const seen: [number, string, SheetRowInfo][] = [];
    const hiddenColumns: [number, number][] = [];
    await source.readSheets(() => ({
      done: false,
      merge() {},
      hiddenColumns(from: number, to: number) {
        hiddenColumns.push([from, to]);
      },
      row(sheetRow: number, cells: readonly SheetCell[], info: SheetRowInfo) {
        seen.push([sheetRow, String(cells[1]?.content), { ...info }]);
      },
    }));
    const shown = { hidden: false, filtered: false };
    expect(seen).toEqual([
      [1, 'First name', shown],
      [2, 'Mario', shown],
      [3, 'Hidden', { hidden: true, filtered: false }],
      [4, 'Filtered', { hidden: true, filtered: true }],
      [5, 'Shown', shown],
    ]);
    // The E-mail column (J) is hidden, told before the first row.
    expect(hiddenColumns).toEqual([[10, 10]]);
  });
});

describe('parsePassengerSheet: CSV written by the helper', () => {
  const mario = parsedPassenger(77);

  it.each<[CsvEncoding, ',' | ';' | '\t']>([
    ['utf-8', ','],
    ['utf-8-bom', ','],
    ['utf-8', ';'],
    ['utf-16le-bom', '\t'],
    ['utf-16be-bom', ';'],
    ['utf-16le', ','],
    ['windows-1252', ';'],
  ])('reads %s text separated by %j', async (encoding, delimiter) => {
    const file = buildPassengerCsv([passenger({ name: 'Mário' })], { encoding, delimiter });
    const { records } = await parse(file);
    expect(records).toEqual([{ ...mario, name: 'MÁRIO' }]);
  });

  it('takes the separator from Excel\'s "sep=" line, and counts rows after it', async () => {
    const text = `sep=;\r\n${csvOf([FIELDS.map((f) => ENGLISH_HEADINGS[f]), ['Rossi', 'Mario', '31/02/1980']], ';')}`;
    const error = await refusal(Buffer.from(text));
    expect(error.details[0]).toMatchObject({ sheet_row: 2, column: 'Date of birth', value: '31/02/1980' });
  });

  it('is not misled by commas in a title row above a semicolon header', async () => {
    const file = buildPassengerCsv([passenger()], { delimiter: ';', titleRows: [['Charter, Rome, Athens, 10 December, 09:00, gate B, seats 1-40, crew 4, remarks']] });
    expect((await parse(file)).records).toEqual([mario]);
  });

  it('counts a row with a line break inside quotes as one sheet row', async () => {
    const file = Buffer.from(
      csvOf([
        [...FIELDS.map((f) => ENGLISH_HEADINGS[f]), 'Notes'],
        ['Rossi', 'Mario', '17/05/1980', 'Italy', 'IT', 'P', 'YA1234567', '16/05/2031', 'ITA', '', '', '', 'M', '', 'line one\nline two\r\nline three'],
        ['Verdi', 'Anna', '17/05/1980', 'Narnia', 'IT', 'P', 'YA1234568', '16/05/2031', 'ITA', '', '', '', 'F', '', ''],
      ]),
    );
    const error = await refusal(file);
    expect(error.details).toEqual([expect.objectContaining({ row_number: 2, sheet_row: 3, column: 'Country of birth', value: 'Narnia' })]);
  });

  it('keeps what a number cell would lose: leading zeros and long digit strings', async () => {
    const file = buildPassengerCsv([passenger({ numberdoc: '00123456', phone: '00393331234567' })]);
    const [record] = (await parse(file)).records;
    expect([record.numberdoc, record.phone]).toEqual(['00123456', '+393331234567']);
  });

  it('applies the same rules, with the same problems, as to the same list in an .xlsx and an .ods', async () => {
    const rows = [
      passenger(),
      passenger({ surname: 'Verdi', date_born: '31/02/1990', email: 'nope', numberdoc: 'YB1' }),
      passenger({ surname: 'Neri', nazionalita: 'Narnia', row_number_parent_id: 7, numberdoc: 'YB2' }),
    ];
    const text = rows.map((row) => ({ ...row, date_born: row.date_born instanceof Date ? '17/05/1980' : row.date_born, scadenza: '16/05/2031' }));
    const problems = async (file: Buffer) => (await refusal(file)).details;
    const fromXlsx = await problems(await buildPassengerWorkbook(text));
    expect(fromXlsx.length).toBe(4);
    expect(await problems(buildPassengerCsv(text))).toEqual(fromXlsx);
    expect(await problems(buildPassengerOds(text))).toEqual(fromXlsx);
  });

  it('refuses a quote that is never closed, naming the row where it starts', async () => {
    const text = `${csvOf([FIELDS.map((f) => ENGLISH_HEADINGS[f])])}Rossi,"Mario,17/05/1980\r\n`;
    const error = await refusal(Buffer.from(text));
    expect(error.status).toBe(415);
    expect(error.message).toMatch(/^The file cannot be read as CSV: a quoted cell that starts in row 2 is never closed/);
  });

  it('refuses bytes that are no text', async () => {
    const error = await refusal(Buffer.from([0x01, 0x02, 0x03, 0x41, 0x42, 0x0a, 0x00, 0x07]));
    expect(error.status).toBe(415);
    expect(error.message).toMatch(/^The file is neither a spreadsheet nor text/);
  });

  it('refuses UTF-8 with a byte order mark whose bytes are not UTF-8', async () => {
    const file = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), encodeText('Surname,Name\r\nMüller,Jürgen\r\n', 'windows-1252')]);
    const error = await refusal(file);
    expect(error.status).toBe(415);
    expect(error.message).toMatch(/byte order mark of UTF-8 but holds bytes that are not UTF-8 text/);
  });
});

describe('parsePassengerSheet: .ods written by the helper', () => {
  const HEADER = odsRow(FIELDS.map((f) => ENGLISH_HEADINGS[f]));
  const marioCells = FIELDS.map((f) => passenger()[f] ?? null);

  it('expands repeated cells and rows that hold values, and passes over empty repeats of any size', async () => {
    const rows = [
      '<table:table-row table:number-rows-repeated="2"><table:table-cell table:number-columns-repeated="16384"/></table:table-row>',
      HEADER,
      odsRow(marioCells, ' table:number-rows-repeated="3"'),
      odsRow([{ xml: '<table:table-cell office:value-type="string" table:number-columns-repeated="2"><text:p>Rossi</text:p></table:table-cell>' }, ...marioCells.slice(2)]),
      '<table:table-row table:number-rows-repeated="1000000000"><table:table-cell table:number-columns-repeated="1000000000"/></table:table-row>',
    ].join('');
    const { records } = await parse(odsPackage(odsContent([{ name: 'List', rows }])));
    expect(records.map((r) => [r.surname, r.name, r.row_number])).toEqual([
      ['ROSSI', 'MARIO', 1],
      ['ROSSI', 'MARIO', 2],
      ['ROSSI', 'MARIO', 3],
      ['ROSSI', 'ROSSI', 4],
    ]);
  });

  it('reads paragraphs, spaces, spans and links, and leaves out comments and the content of covered cells', async () => {
    const cell = (inner: string, attributes = '') => ({ xml: `<table:table-cell office:value-type="string"${attributes}>${inner}</table:table-cell>` });
    const cells = [
      cell('<office:annotation><text:p>a comment</text:p></office:annotation><text:p>Rossi</text:p>'),
      cell('<text:p><text:span>Mario</text:span><text:s text:c="3"/>Luigi</text:p>', ' table:number-columns-spanned="1" table:number-rows-spanned="2"'),
      ...marioCells.slice(2),
    ];
    const second = [cell('<text:p>Verdi</text:p>'), { xml: '<table:covered-table-cell office:value-type="string"><text:p>kept hidden</text:p></table:covered-table-cell>' }, ...marioCells.slice(2)];
    const { records } = await parse(odsPackage(odsContent([{ name: 'List', rows: HEADER + odsRow(cells) + odsRow(second) }])));
    expect(records.map((r) => [r.surname, r.name])).toEqual([
      ['ROSSI', 'MARIO LUIGI'],
      ['VERDI', 'MARIO LUIGI'],
    ]);
  });

  it('reports an error cell as a problem of its row', async () => {
    const error = { xml: '<table:table-cell table:formula="of:=1/0" office:value-type="float" office:value="0" calcext:value-type="error"><text:p>#DIV/0!</text:p></table:table-cell>' };
    const problem = await refusal(odsPackage(odsContent([{ name: 'List', rows: HEADER + odsRow([error, ...marioCells.slice(1)]) }])));
    expect(problem.details).toEqual([expect.objectContaining({ row_number: 1, column: 'Surname', value: '#DIV/0!' })]);
  });

  it('skips hidden sheets, and names every sheet looked at when none is a list', async () => {
    const error = await refusal(
      odsPackage(odsContent([{ name: 'Secret', hidden: true, rows: HEADER + odsRow(marioCells) }, { name: 'Notes', rows: odsRow(['nothing here']) }])),
    );
    expect(error.status).toBe(422);
    expect(error.message).toMatch(/Sheets looked at: "Secret" \(it is hidden\); "Notes" \(no row among its first 30 names two passenger columns\)\.$/);
  });

  it('refuses an encrypted .ods, an .ods without content.xml and other OpenDocument files with 415', async () => {
    const encrypted = odsPackage(odsContent([]), {
      manifest: '<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0"><manifest:file-entry manifest:full-path="content.xml"><manifest:encryption-data/></manifest:file-entry></manifest:manifest>',
    });
    expect((await refusal(encrypted)).message).toMatch(/^The spreadsheet is encrypted \(password protected\)/);
    const text = odsPackage(odsContent([]), { mimetype: 'application/vnd.oasis.opendocument.text' });
    expect((await refusal(text)).message).toMatch(/^The file is an OpenDocument text document, not a spreadsheet/);
    const garbled = odsPackage('<office:document-content><office:body><table:table>');
    const damaged = await refusal(garbled);
    expect(damaged.status).toBe(415);
    expect(damaged.message).toMatch(/^The file is a damaged .ods spreadsheet: content.xml is not well-formed XML/);
  });

  it('says how to convert an Excel 97-2003 .xls', async () => {
    const error = await refusal(fixture('rich-features.xls'));
    expect(error.status).toBe(415);
    expect(error.message).toMatch(/^The file is an Excel 97-2003 workbook \(.xls\) or a password-protected file, which cannot be read; open it in Excel or LibreOffice, use "Save as" and choose "Excel Workbook \(.xlsx\)", "ODF Spreadsheet \(.ods\)" or "CSV UTF-8"/);
  });
});
