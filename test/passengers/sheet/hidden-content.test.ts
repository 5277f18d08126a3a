import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parsePassengerSheet, type PassengerSheetOptions, type PassengerSheetResult } from '../../../src/passengers/sheet/parse-passenger-sheet';
import { PassengerSheetError } from '../../../src/passengers/sheet/sheet-error';
import {
  buildPassengerWorkbook,
  ENGLISH_HEADINGS,
  FIELDS,
  parsedPassenger,
  passenger,
  partText,
  rawPassengerRows,
  rawRow,
  rawWorkbook,
  readZip,
  storedOrDeflated,
  withPart,
  type PassengerCells,
  type RawCell,
} from '../../helpers/passenger-workbook';

/**
 * Content the user does not see (rows hidden by hand or by a filter, hidden columns), totals rows,
 * and UTF-16 parts without a byte order mark: in files written by openpyxl, XlsxWriter, LibreOffice
 * and Gnumeric (test/fixtures/passengers/README.md), by exceljs through the project's helper, and by hand.
 */

const LIMITS = { uploadMaxBytes: 5 * 1024 * 1024, uploadMaxRows: 2000, uploadMaxColumns: 64, uploadMaxUncompressedBytes: 50 * 1024 * 1024 };
const TODAY = new Date(Date.UTC(2026, 10, 21));
const FIXTURES = path.join(__dirname, '../../fixtures/passengers');
const fixture = (name: string) => readFileSync(path.join(FIXTURES, name));

function parse(file: Buffer, options: Partial<PassengerSheetOptions> = {}): Promise<PassengerSheetResult> {
  return parsePassengerSheet(file, { flightId: 4711, limits: LIMITS, today: TODAY, ...options });
}

async function refusal(file: Buffer, options: Partial<PassengerSheetOptions> = {}): Promise<PassengerSheetError> {
  const error = await parse(file, options).then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  if (!(error instanceof PassengerSheetError)) throw new Error(`expected a PassengerSheetError, got ${String(error)}`);
  return error;
}

const surnames = (result: PassengerSheetResult) => result.records.map((record) => [record.row_number, record.surname]);

const SKIP_NOTE = 'to import hidden rows, upload again with the option hiddenRows=IMPORT';
const MOBILE_HIDDEN = 'Column K "Mobile" is hidden; its values were read like those of the other columns';

describe('hidden rows and columns and totals rows in files of real writers', () => {
  // Row 3 is hidden by a filter on Nationality (IT only), row 5 by hand below the filter, column K
  // (Mobile) is hidden, row 7 is "Total" with =SUBTOTAL(103,B2:B6) under the first names.
  const filtered = 'Sheet row 3 (Dupont Claire) is hidden by the filter';
  const byHand = 'Sheet row 5 (Neri Paola) is hidden';
  const totals = 'Sheet row 7 holds SUBTOTAL formulas (a totals row), not a passenger, and was skipped';

  it.each(['hidden-openpyxl.xlsx', 'hidden-libreoffice.xlsx'])('%s: skips the filtered and the hidden row by default, naming each, and the totals row', async (name) => {
    const result = await parse(fixture(name));
    expect(surnames(result)).toEqual([
      [1, 'ROSSI'],
      [2, 'VERDI'],
      [3, 'GALLO'],
    ]);
    expect(result.records[0]).toEqual(parsedPassenger(4711, { numberdoc: 'YA1000001' }));
    expect(result.warnings).toEqual([MOBILE_HIDDEN, totals, `${filtered} and was skipped; ${SKIP_NOTE}`, `${byHand} and was skipped; ${SKIP_NOTE}`]);
  });

  it.each(['hidden-openpyxl.xlsx', 'hidden-libreoffice.xlsx'])('%s: imports them with hiddenRows IMPORT, naming each with its passenger number', async (name) => {
    const result = await parse(fixture(name), { hiddenRows: 'IMPORT' });
    expect(surnames(result)).toEqual([
      [1, 'ROSSI'],
      [2, 'DUPONT'],
      [3, 'VERDI'],
      [4, 'NERI'],
      [5, 'GALLO'],
    ]);
    expect(result.warnings).toEqual([
      MOBILE_HIDDEN,
      totals,
      `${filtered} and was imported as passenger 2 (option hiddenRows=IMPORT)`,
      `${byHand} and was imported as passenger 4 (option hiddenRows=IMPORT)`,
    ]);
  });

  it('hidden-gnumeric.xlsx: Gnumeric keeps the hidden rows but not the filter criterion, so both rows are hidden ones', async () => {
    const skipped = await parse(fixture('hidden-gnumeric.xlsx'));
    expect(surnames(skipped)).toEqual([
      [1, 'ROSSI'],
      [2, 'VERDI'],
      [3, 'GALLO'],
    ]);
    expect(skipped.warnings).toEqual([MOBILE_HIDDEN, totals, `Sheet rows 3 (Dupont Claire), 5 (Neri Paola) are hidden and were skipped; ${SKIP_NOTE}`]);
    const imported = await parse(fixture('hidden-gnumeric.xlsx'), { hiddenRows: 'IMPORT' });
    expect(imported.records.map((r) => r.surname)).toEqual(['ROSSI', 'DUPONT', 'VERDI', 'NERI', 'GALLO']);
    expect(imported.warnings[2]).toBe('Sheet rows 3 (Dupont Claire), 5 (Neri Paola) are hidden and were imported as passengers 2, 4 (option hiddenRows=IMPORT)');
  });

  it("totals-table-openpyxl.xlsx: skips the table's totals row (totalsRowCount) that holds only a label", async () => {
    const result = await parse(fixture('totals-table-openpyxl.xlsx'));
    expect(result.records.map((r) => r.surname)).toEqual(['ROSSI', 'DUPONT', 'VERDI']);
    expect(result.warnings).toEqual(['Sheet row 5 is the totals row of the table "PassengerTable", not a passenger, and was skipped']);
  });

  it("totals-table-xlsxwriter.xlsx: skips XlsxWriter's total_row and a hidden row of the table, names the hidden column", async () => {
    const result = await parse(fixture('totals-table-xlsxwriter.xlsx'));
    expect(result.records.map((r) => r.surname)).toEqual(['ROSSI', 'VERDI']);
    expect(result.records[1]).toMatchObject({ phone: '+393331234567', row_number: 2 });
    expect(result.warnings).toEqual([
      MOBILE_HIDDEN,
      'Sheet row 5 holds SUBTOTAL formulas (a totals row), not a passenger, and was skipped',
      `Sheet row 3 (Dupont Claire) is hidden and was skipped; ${SKIP_NOTE}`,
    ]);
  });

  it('totals-table-libreoffice.xlsx: skips the totals row LibreOffice keeps, its SUBTOTAL calculated to #VALUE!', async () => {
    const result = await parse(fixture('totals-table-libreoffice.xlsx'));
    expect(result.records.map((r) => r.surname)).toEqual(['ROSSI', 'VERDI']);
    expect(result.warnings).toEqual([
      MOBILE_HIDDEN,
      'Sheet row 5 holds SUBTOTAL formulas (a totals row), not a passenger, and was skipped',
      `Sheet row 3 (Dupont Claire) is hidden and was skipped; ${SKIP_NOTE}`,
    ]);
  });

  it('duplicate-hidden-column-xlsxwriter.xlsx: the duplicate-column refusal names the hidden column as hidden', async () => {
    const error = await refusal(fixture('duplicate-hidden-column-xlsxwriter.xlsx'));
    expect(error.status).toBe(422);
    const message = 'Columns A "Surname" and O "Cognome" (a hidden column) both hold surname; keep only one (unhide the columns to see both, then delete one)';
    expect(error.message).toBe(`The header row (sheet "Passengers", row 1) is incomplete: ${message}`);
    expect(error.details).toEqual([{ field: 'Cognome', column: 'Cognome', sheet_row: 1, message }]);
  });

  it('utf16-without-bom-openpyxl.xlsx: reads parts in UTF-16 (LE and BE) without a byte order mark, as openpyxl does', async () => {
    const result = await parse(fixture('utf16-without-bom-openpyxl.xlsx'));
    expect(result.records[0]).toEqual(parsedPassenger(4711, { numberdoc: 'YA1000001' }));
    expect(result.records.map((r) => r.surname)).toEqual(['ROSSI', 'DUPONT']);
  });
});

describe('hidden rows and columns and totals rows in workbooks of the project helper (exceljs)', () => {
  const people = [
    passenger(),
    passenger({ surname: 'Bianchi', name: 'Anna', gender: 'F', numberdoc: 'YB0000002' }),
    passenger({ surname: 'Verdi', name: 'Luca', numberdoc: 'YB0000003' }),
    passenger({ surname: 'Neri', name: 'Paola', gender: 'F', numberdoc: 'YB0000004' }),
  ];

  it('skips hidden rows inside an autofilter without criteria as hidden (not filtered) rows', async () => {
    const file = await buildPassengerWorkbook(people, { hiddenRows: [3, 5], autoFilter: 'A1:N5' });
    const result = await parse(file);
    expect(surnames(result)).toEqual([
      [1, 'ROSSI'],
      [2, 'VERDI'],
    ]);
    expect(result.warnings).toEqual([`Sheet rows 3 (Bianchi Anna), 5 (Neri Paola) are hidden and were skipped; ${SKIP_NOTE}`]);
    const imported = await parse(file, { hiddenRows: 'IMPORT' });
    expect(imported.records.map((r) => r.surname)).toEqual(['ROSSI', 'BIANCHI', 'VERDI', 'NERI']);
    expect(imported.warnings).toEqual(['Sheet rows 3 (Bianchi Anna), 5 (Neri Paola) are hidden and were imported as passengers 2, 4 (option hiddenRows=IMPORT)']);
  });

  it('reads hidden passenger columns with a warning naming each, letter and heading', async () => {
    const file = await buildPassengerWorkbook([passenger()], { hiddenColumns: [7, 11] });
    const result = await parse(file);
    expect(result.records).toEqual([parsedPassenger(4711)]);
    expect(result.warnings).toEqual(['Columns G "Document number", K "Mobile" are hidden; their values were read like those of the other columns']);
  });

  it('names a hidden duplicate column as hidden', async () => {
    const fields = [...FIELDS, 'surname'] as const;
    const file = await buildPassengerWorkbook([passenger()], { fields, headings: { ...ENGLISH_HEADINGS }, hiddenColumns: [15] });
    const error = await refusal(file);
    expect(error.details?.[0].message).toBe('Columns A "Surname" and O "Surname" (a hidden column) both hold surname; keep only one (unhide the columns to see both, then delete one)');
  });

  it("skips an Excel table's totals row, with a label only or with a count under a passenger column", async () => {
    const labelOnly = await parse(await buildPassengerWorkbook(people.slice(0, 2), { table: {} }));
    expect(labelOnly.records.map((r) => r.surname)).toEqual(['ROSSI', 'BIANCHI']);
    expect(labelOnly.warnings).toEqual(['Sheet row 4 is the totals row of the table "PassengerTable", not a passenger, and was skipped']);
    const counted = await parse(await buildPassengerWorkbook(people.slice(0, 2), { table: { totalsLabel: 'Totale', countColumn: 1 }, titleRows: [['Volo 4711']] }));
    expect(counted.records.map((r) => r.surname)).toEqual(['ROSSI', 'BIANCHI']);
    expect(counted.warnings).toEqual(['Sheet row 5 holds SUBTOTAL formulas (a totals row), not a passenger, and was skipped']);
  });

  describe('parent row numbers, which count the hidden rows too', () => {
    const adult = (surname: string, numberdoc: string, carrying = 'no') => passenger({ surname, numberdoc, is_carring_infant: carrying });
    const infant = (parent: number) => passenger({ surname: 'Piccolo', name: 'Leo', date_born: new Date(Date.UTC(2026, 0, 10)), numberdoc: 'YC0000009', row_number_parent_id: parent });

    it('renumbers a parent row number when a skipped hidden row moves the passengers up, with a warning', async () => {
      // Passengers as written: 1 Bianchi, 2 Neri (hidden), 3 Verdi (carrying), 4 the infant of 3.
      const file = await buildPassengerWorkbook([adult('Bianchi', 'YB1'), adult('Neri', 'YB2'), adult('Verdi', 'YB3', 'sì'), infant(3)], { hiddenRows: [3] });
      const result = await parse(file);
      expect(result.records.map((r) => [r.row_number, r.surname, r.row_number_parent_id])).toEqual([
        [1, 'BIANCHI', null],
        [2, 'VERDI', null],
        [3, 'PICCOLO', 2],
      ]);
      expect(result.warnings).toEqual([
        'Parent row numbers (column N "Parent row") count the hidden rows too; one was turned into the number of the passenger imported',
        `Sheet row 3 (Neri Mario) is hidden and was skipped; ${SKIP_NOTE}`,
      ]);
      // Imported, the numbers stand as written.
      const imported = await parse(file, { hiddenRows: 'IMPORT' });
      expect(imported.records.map((r) => r.row_number_parent_id)).toEqual([null, null, null, 3]);
    });

    it('refuses a parent row number that names a skipped hidden row, naming it', async () => {
      const file = await buildPassengerWorkbook([adult('Neri', 'YB2', 'sì'), adult('Bianchi', 'YB1'), infant(1)], { hiddenRows: [2] });
      const error = await refusal(file);
      expect(error.status).toBe(422);
      expect(error.details).toEqual([
        expect.objectContaining({
          row_number: 2,
          sheet_row: 4,
          column: 'Parent row',
          value: '1',
          message: expect.stringContaining('passenger 1 (sheet row 2) is a hidden row that was skipped; unhide it, or upload again with the option hiddenRows=IMPORT'),
        }),
      ]);
      expect((await parse(file, { hiddenRows: 'IMPORT' })).records[2]).toMatchObject({ row_number_parent_id: 1 });
    });
  });

  it('refuses a list whose every passenger row is hidden, saying so, unless hidden rows are imported', async () => {
    const file = await buildPassengerWorkbook(people.slice(0, 2), { hiddenRows: [2, 3] });
    const error = await refusal(file);
    expect(error.status).toBe(422);
    expect(error.message).toBe(`The passenger list is empty once its hidden rows are left out: Sheet rows 2 (Rossi Mario), 3 (Bianchi Anna) are hidden and were skipped; ${SKIP_NOTE}`);
    expect(error.details).toEqual([
      { field: 'hiddenRows', column: 'hiddenRows', message: 'every passenger row of the sheet is hidden; unhide them, or upload again with the option hiddenRows=IMPORT' },
    ]);
    expect((await parse(file, { hiddenRows: 'IMPORT' })).records).toHaveLength(2);
  });
});

describe('hidden rows, filters and totals rows written by hand', () => {
  /** A one-sheet workbook whose worksheet gets `cols` before its rows and `tail` after them. */
  function workbook(rows: string, options: { tail?: string; cols?: string } = {}): Buffer {
    const file = rawWorkbook({ sheets: [{ name: 'Passengers', rows, tail: options.tail }] });
    if (!options.cols) return file;
    const sheet = readZip(file).find((part) => part.name === 'xl/worksheets/sheet1.xml')!;
    return withPart(file, storedOrDeflated(sheet.name, Buffer.from(partText(sheet).replace('<sheetData>', `${options.cols}<sheetData>`))));
  }

  const hiddenRow = (row: number, cells: readonly RawCell[]) => rawRow(row, cells).replace(`<row r="${row}">`, `<row r="${row}" hidden="true">`);
  const cellsOf = (p: PassengerCells) => FIELDS.map((field) => p[field] ?? null) as RawCell[];
  const header = rawPassengerRows([], { dates: 'serial' });
  const row = (n: number, p: PassengerCells) => rawPassengerRows([p], { first: n - 1, dates: 'serial' }).replace(/^<row r="\d+">.*?<\/row>/, '');

  it('tells rows hidden by a filter with a criterion from rows hidden by hand (filter of the sheet or of a table)', async () => {
    const rows =
      header +
      row(2, passenger()) +
      hiddenRow(3, cellsOf(passenger({ surname: 'Dupont', nazionalita: 'FR', numberdoc: 'YA2' }))) +
      row(4, passenger({ surname: 'Verdi', numberdoc: 'YA3' })) +
      hiddenRow(5, cellsOf(passenger({ surname: 'Neri', numberdoc: 'YA4' })));
    const tail = '<autoFilter ref="A1:N4"><filterColumn colId="4"><filters><filter val="IT"/></filters></filterColumn></autoFilter>';
    const result = await parse(workbook(rows, { tail }));
    expect(result.records.map((r) => r.surname)).toEqual(['ROSSI', 'VERDI']);
    expect(result.warnings).toEqual([`Sheet row 3 (Dupont Mario) is hidden by the filter and was skipped; ${SKIP_NOTE}`, `Sheet row 5 (Neri Mario) is hidden and was skipped; ${SKIP_NOTE}`]);
    // A filter button without a criterion (hiddenButton) filters nothing.
    const buttonsOnly = await parse(workbook(rows, { tail: '<autoFilter ref="A1:N5"><filterColumn colId="4" hiddenButton="1"/></autoFilter>' }));
    expect(buttonsOnly.warnings).toEqual([`Sheet rows 3 (Dupont Mario), 5 (Neri Mario) are hidden and were skipped; ${SKIP_NOTE}`]);
  });

  it('reads a column hidden by a zero width like a hidden one, and a 1-based <col> range over several columns', async () => {
    const rows = header + row(2, passenger());
    const result = await parse(workbook(rows, { cols: '<cols><col min="1" max="2" hidden="1"/><col min="13" max="13" width="0" customWidth="1"/></cols>' }));
    expect(result.records).toEqual([parsedPassenger(4711)]);
    expect(result.warnings).toEqual(['Columns A "Surname", B "First name", M "Sex" are hidden; their values were read like those of the other columns']);
  });

  it('does not take a row for a totals row for a SUBTOTAL in a column that is no passenger field (a filter-proof row number)', async () => {
    const numbered = (n: number, p: PassengerCells) => row(n, p).replace('</row>', `<c r="O${n}"><f>SUBTOTAL(3,$A$2:A${n})</f><v>${n - 1}</v></c></row>`);
    const rows = header.replace('</row>', '<c r="O1" t="inlineStr"><is><t>No.</t></is></c></row>') + numbered(2, passenger()) + numbered(3, passenger({ surname: 'Verdi', numberdoc: 'YA3' }));
    const result = await parse(workbook(rows));
    expect(result.records.map((r) => r.surname)).toEqual(['ROSSI', 'VERDI']);
    expect(result.warnings).toEqual(['Column O "No." is not a passenger field and was ignored']);
  });

  it('takes AGGREGATE (as Excel 2010 writes it, _xlfn.) like SUBTOTAL, even without a calculated value', async () => {
    const totals = rawRow(3, ['Total', { xml: '><f>_xlfn.AGGREGATE(3,5,B2:B2)</f>' }]);
    const result = await parse(workbook(header + row(2, passenger()) + totals));
    expect(result.records).toEqual([parsedPassenger(4711)]);
    expect(result.warnings).toEqual(['Sheet row 3 holds SUBTOTAL formulas (a totals row), not a passenger, and was skipped']);
  });

  it('keeps a merged value whose top cell lies in a skipped hidden row for the rows shown below it', async () => {
    const rows = header + hiddenRow(2, cellsOf(passenger({ numberdoc: 'YA1' }))) + row(3, passenger({ surname: null, numberdoc: 'YA2' }));
    const result = await parse(workbook(rows, { tail: '<mergeCells count="1"><mergeCell ref="A2:A3"/></mergeCells>' }));
    expect(result.records).toEqual([parsedPassenger(4711, { numberdoc: 'YA2' })]);
  });

  it('refuses a list sheet with more tables than any sheet holds, before reading them; a missing table part is passed over', async () => {
    const file = workbook(header + row(2, passenger()));
    const rels = (count: number) =>
      storedOrDeflated(
        'xl/worksheets/_rels/sheet1.xml.rels',
        Buffer.from(
          `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${Array.from(
            { length: count },
            (_, i) => `<Relationship Id="rId${i}" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/table" Target="../tables/table${i}.xml"/>`,
          ).join('')}</Relationships>`,
        ),
      );
    const error = await refusal(withPart(file, rels(257)));
    expect(error.status).toBe(422);
    expect(error.message).toBe('Sheet "Passengers" has more than 256 tables; no passenger list has that many, so the file was not read');
    expect((await parse(withPart(file, rels(3)))).records).toEqual([parsedPassenger(4711)]);
  });

  it('caps hidden rows like shown ones: skipping them does not let a list past the row limit unread', async () => {
    const hidden = Array.from({ length: 4 }, (_, i) => hiddenRow(i + 2, cellsOf(passenger({ numberdoc: `YA${i}` })))).join('');
    const error = await refusal(workbook(header + hidden + row(6, passenger())), { limits: { ...LIMITS, uploadMaxRows: 3 } });
    expect(error.status).toBe(413);
    // Three hidden and three shown rows are within a limit of 3 each.
    const within = Array.from({ length: 3 }, (_, i) => hiddenRow(i + 2, cellsOf(passenger({ numberdoc: `YA${i}` })))).join('');
    const result = await parse(workbook(header + within + row(5, passenger())), { limits: { ...LIMITS, uploadMaxRows: 3 } });
    expect(result.records).toHaveLength(1);
  });
});

describe('UTF-16 parts without a byte order mark', () => {
  const base = () => rawWorkbook({ sheets: [{ name: 'Passengers', rows: rawPassengerRows([passenger({ surname: 'Åström' })], { dates: 'serial' }) }], sharedStrings: ['<t>unused</t>'] });
  const recoded = (file: Buffer, name: string, encode: (text: string) => Buffer) => {
    const part = readZip(file).find((p) => p.name === name)!;
    return withPart(file, storedOrDeflated(name, encode(partText(part).replace('encoding="UTF-8"', 'encoding="UTF-16"'))));
  };
  const le = (text: string) => Buffer.from(text, 'utf16le');
  const be = (text: string) => le(text).swap16();

  it('reads a worksheet in UTF-16LE and a workbook in UTF-16BE, with and without the declaration', async () => {
    let file = recoded(base(), 'xl/worksheets/sheet1.xml', le);
    file = recoded(file, 'xl/workbook.xml', be);
    file = recoded(file, 'xl/sharedStrings.xml', (text) => le(text.replace(/^<\?xml[^>]*\?>\s*/, '')));
    const result = await parse(file);
    expect(result.records).toEqual([parsedPassenger(4711, { surname: 'ÅSTRÖM' })]);
  });

  it('refuses a UTF-16 part with a broken character as damaged, naming the encoding', async () => {
    const file = recoded(base(), 'xl/worksheets/sheet1.xml', (text) => Buffer.concat([le(text.replace('</sheetData>', '')), Buffer.from([0x00, 0xd8, 0x41, 0x00]), le('</sheetData></worksheet>')]));
    const error = await refusal(file);
    expect(error.status).toBe(415);
    expect(error.message).toMatch(/^The file is a damaged \.xlsx workbook: xl\/worksheets\/sheet1\.xml holds bytes that are not valid UTF-16 text\. /);
  });

  it('still caps a UTF-16 part: a text run without "<" past the cap is refused', async () => {
    const file = recoded(base(), 'xl/worksheets/sheet1.xml', (text) => le(text.replace('</sheetData>', `</sheetData><!--${'a'.repeat(600 * 1024)}-->`)));
    const error = await refusal(file);
    expect(error.status).toBe(422);
    expect(error.message).toMatch(/^The workbook part xl\/worksheets\/sheet1\.xml holds a text or tag longer than 1048576 bytes/);
  });
});
