import { PassThrough } from 'node:stream';
import ExcelJS, { type CellValue } from 'exceljs';
import {
  parsePassengerSheet,
  type PassengerSheetOptions,
  type PassengerSheetResult,
} from '../../../src/passengers/sheet/parse-passenger-sheet';
import { PassengerSheetError } from '../../../src/passengers/sheet/sheet-error';
import {
  buildPassengerWorkbook,
  buildWorkbook,
  cellsOf,
  ENGLISH_HEADINGS,
  FIELDS,
  ITALIAN_HEADINGS,
  parsedPassenger,
  passenger,
  type Field,
} from '../../helpers/passenger-workbook';

const LIMITS = { uploadMaxBytes: 5 * 1024 * 1024, uploadMaxRows: 2000, uploadMaxColumns: 64, uploadMaxUncompressedBytes: 50 * 1024 * 1024 };
const TODAY = new Date(Date.UTC(2026, 10, 21));

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

const MARIO = parsedPassenger(4711);

describe('parsePassengerSheet: reading the list', () => {
  it('returns one record per row with exactly the spec fields, id and parent_id null, idvolo the flight', async () => {
    const file = await buildPassengerWorkbook([passenger(), passenger({ name: 'Anna', gender: 'F', numberdoc: 'YA7654321' })]);
    const { records, warnings, sheetName } = await parse(file);
    expect(records).toEqual([MARIO, { ...MARIO, name: 'ANNA', gender: 'F', numberdoc: 'YA7654321', row_number: 2 }]);
    expect(Object.keys(records[0])).toEqual(Object.keys(MARIO));
    expect(warnings).toEqual([]);
    expect(sheetName).toBe('Passengers');
  });

  it('reads Italian headings', async () => {
    const file = await buildPassengerWorkbook([passenger()], { headings: ITALIAN_HEADINGS });
    expect((await parse(file)).records).toEqual([MARIO]);
  });

  it("reads the spec's own field names as headings", async () => {
    const names = Object.fromEntries(FIELDS.map((field) => [field, field])) as Record<Field, string>;
    const file = await buildPassengerWorkbook([passenger()], { headings: names });
    expect((await parse(file)).records).toEqual([MARIO]);
  });

  it('matches headings regardless of case, accents, spacing, punctuation and bracketed hints', async () => {
    const headings: Record<Field, string> = {
      surname: 'COGNOME',
      name: ' nome ',
      date_born: 'Data di Nascita (GG/MM/AAAA)',
      luogonascita: 'luogo-di-nascita',
      nazionalita: 'NAZIONALITA',
      typedoc: 'Tipo_documento',
      numberdoc: 'N. Documento',
      scadenza: 'Scadenza*',
      issuingstate: 'Stato  di  rilascio',
      email: 'e mail',
      phone: 'TELEFONO',
      is_carring_infant: 'Con Infant?',
      gender: 'Sésso',
      row_number_parent_id: 'Riga accompagnatore [n.]',
    };
    const file = await buildPassengerWorkbook([passenger()], { headings });
    expect((await parse(file)).records).toEqual([MARIO]);
  });

  it('accepts the columns in any order', async () => {
    const fields: Field[] = [...FIELDS].reverse();
    const file = await buildPassengerWorkbook([passenger()], { fields });
    expect((await parse(file)).records).toEqual([MARIO]);
  });

  it('finds the header below title and blank rows, even when the title is merged across the columns', async () => {
    const file = await buildPassengerWorkbook([passenger()], {
      titleRows: [['Passenger list AZ1234'], [], ['Departure 2026-12-01', null, 'Rome FCO'], []],
      merges: ['A1:N1'],
    });
    expect((await parse(file)).records).toEqual([MARIO]);
  });

  it('ignores columns that are not passenger fields, with a warning for each', async () => {
    const file = await buildWorkbook({
      headings: ['N.', ...FIELDS.map((f) => ENGLISH_HEADINGS[f]), 'Seat', 'Notes'],
      rows: [[1, ...cellsOf(passenger()), '12A', 'vegetarian meal']],
    });
    const { records, warnings } = await parse(file);
    expect(records).toEqual([MARIO]);
    expect(warnings).toEqual([
      'Column A "N." is not a passenger field and was ignored',
      'Column P "Seat" is not a passenger field and was ignored',
      'Column Q "Notes" is not a passenger field and was ignored',
    ]);
  });

  it('skips blank rows without counting them; problems name the row as the spreadsheet shows it', async () => {
    const file = await buildWorkbook({
      titleRows: [['Passengers']],
      headings: FIELDS.map((f) => ENGLISH_HEADINGS[f]),
      rows: [cellsOf(passenger()), [], ['', '  ', null], cellsOf(passenger({ name: 'Anna', nazionalita: 'Narnia' }))],
    });
    const error = await refusal(file);
    expect(error.details).toEqual([
      expect.objectContaining({ row_number: 2, sheet_row: 6, column: 'Nationality', value: 'Narnia' }),
    ]);
  });

  it('links a passenger to the row of the adult they travel with, and reads empty e-mail and phone as null', async () => {
    const file = await buildPassengerWorkbook([
      passenger({ is_carring_infant: 'yes' }),
      passenger({ name: 'Luca', date_born: '01/06/2025', email: null, phone: '', row_number_parent_id: 1 }),
    ]);
    const { records } = await parse(file);
    expect(records[0]).toMatchObject({ is_carring_infant: true, row_number_parent_id: null, row_number: 1 });
    expect(records[1]).toMatchObject({
      name: 'LUCA',
      date_born: '2025-06-01',
      email: null,
      phone: null,
      is_carring_infant: false,
      parent_id: null,
      row_number_parent_id: 1,
      row_number: 2,
    });
  });

  it('reads the first visible worksheet that has a header row', async () => {
    const header = FIELDS.map((f) => ENGLISH_HEADINGS[f]);
    const file = await buildPassengerWorkbook([passenger()], {
      sheetName: 'List',
      sheetsBefore: [
        { name: 'Instructions', rows: [['Fill in one passenger per row'], ['Dates as DD/MM/YYYY']] },
        { name: 'Old list', state: 'hidden', rows: [header, cellsOf(passenger({ surname: 'Hidden' }))] },
      ],
    });
    const result = await parse(file);
    expect(result.sheetName).toBe('List');
    expect(result.records).toEqual([MARIO]);
  });

  it('refuses two columns that hold the same field', async () => {
    const file = await buildWorkbook({
      headings: [...FIELDS.map((f) => ENGLISH_HEADINGS[f]), 'Cognome'],
      rows: [[...cellsOf(passenger()), 'Verdi']],
    });
    const error = await refusal(file);
    expect(error.status).toBe(422);
    expect(error.details).toEqual([
      expect.objectContaining({
        column: 'Cognome',
        message: 'Columns A "Surname" and O "Cognome" both hold surname; keep only one',
      }),
    ]);
  });
});

describe('parsePassengerSheet: cells', () => {
  it('reads dates from date cells, text and serial numbers in cells formatted as dates alike', async () => {
    const file = await buildPassengerWorkbook(
      [
        passenger({ date_born: new Date(Date.UTC(1980, 4, 17)) }),
        passenger({ date_born: '17/05/1980', scadenza: '2031-05-16' }),
        passenger({ date_born: '17.05.1980', scadenza: '16-05-2031' }),
        passenger({ date_born: 29358 }),
      ],
      { formats: { date_born: 'dd/mm/yyyy' } },
    );
    const { records } = await parse(file);
    expect(records.map((r) => [r.date_born, r.scadenza])).toEqual(Array(4).fill(['1980-05-17', '2031-05-16']));
  });

  it('reads date cells of a workbook that counts from 1904', async () => {
    const file = await buildPassengerWorkbook([passenger()], { date1904: true });
    expect((await parse(file)).records).toEqual([MARIO]);
  });

  it('reads e-mails from hyperlink cells by their text, without mailto:', async () => {
    const file = await buildPassengerWorkbook([
      passenger({ email: { text: 'mario.rossi@example.com', hyperlink: 'mailto:mario.rossi@example.com' } }),
      passenger({ email: { text: 'mailto:anna@example.com', hyperlink: 'mailto:anna@example.com' } }),
    ]);
    const { records } = await parse(file);
    expect(records.map((r) => r.email)).toEqual(['mario.rossi@example.com', 'anna@example.com']);
  });

  it('joins rich text runs', async () => {
    const rich: CellValue = { richText: [{ text: 'Ro', font: { bold: true } }, { text: 'ssi', font: { italic: true } }] };
    const file = await buildPassengerWorkbook([passenger({ surname: rich })]);
    expect((await parse(file)).records[0].surname).toBe('ROSSI');
  });

  it('uses the cached result of formula cells', async () => {
    const file = await buildPassengerWorkbook([
      passenger({ is_carring_infant: { formula: '1=1', result: true } }),
      passenger({
        name: { formula: 'UPPER("luca")', result: 'LUCA' },
        date_born: { formula: 'DATE(2025,6,1)', result: 45809 },
        row_number_parent_id: { formula: 'ROW()-2', result: 1 },
      }),
    ], { formats: { date_born: 'yyyy-mm-dd' } });
    const { records } = await parse(file);
    expect(records[0].is_carring_infant).toBe(true);
    expect(records[1]).toMatchObject({ name: 'LUCA', date_born: '2025-06-01', row_number_parent_id: 1 });
  });

  it('says a formula without a cached result was never calculated (and how to fix it); an error cell is a problem', async () => {
    const file = await buildPassengerWorkbook([
      passenger({ name: { formula: 'B1', result: undefined } as unknown as CellValue }),
      passenger({ nazionalita: { error: '#N/A' } }),
    ]);
    const error = await refusal(file);
    expect(error.details).toEqual([
      expect.objectContaining({
        row_number: 1,
        column: 'First name',
        value: '=B1',
        message:
          'First name: the cell holds the formula =B1 but no calculated value (the program that wrote the file did not compute it); open the file in Excel or LibreOffice, save it and upload it again',
      }),
      expect.objectContaining({
        row_number: 2,
        column: 'Nationality',
        value: '#N/A',
        message: 'Nationality: the cell shows the error #N/A',
      }),
    ]);
  });

  it('gives every cell of a merged block the value of its top-left cell', async () => {
    const family = [
      passenger({ name: 'Mario', numberdoc: 'YA1' }),
      passenger({ surname: null, name: 'Anna', gender: 'F', nazionalita: null, numberdoc: 'YA2' }),
      passenger({ surname: null, name: 'Luca', nazionalita: null, numberdoc: 'YA3' }),
    ];
    // Surname in A3:A5 and nationality in E3:E5, below a title merged across the columns.
    const file = await buildPassengerWorkbook(family, { titleRows: [['Family Rossi']], merges: ['A1:N1', 'A3:A5', 'E3:E5'] });
    const { records } = await parse(file);
    expect(records.map((r) => [r.surname, r.name, r.nazionalita])).toEqual([
      ['ROSSI', 'MARIO', 'IT'],
      ['ROSSI', 'ANNA', 'IT'],
      ['ROSSI', 'LUCA', 'IT'],
    ]);
  });

  it('reads document numbers and phones that are number cells', async () => {
    const file = await buildPassengerWorkbook([passenger({ numberdoc: 4455667, phone: 393331234567 })]);
    expect((await parse(file)).records[0]).toMatchObject({ numberdoc: '4455667', phone: '+393331234567' });
  });

  it('reads inline strings (workbooks written without a shared string table)', async () => {
    const sink = new PassThrough();
    const chunks: Buffer[] = [];
    sink.on('data', (chunk: Buffer) => chunks.push(chunk));
    const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: sink, useSharedStrings: false, useStyles: true });
    const sheet = workbook.addWorksheet('Passengers');
    sheet.addRow(FIELDS.map((f) => ENGLISH_HEADINGS[f])).commit();
    sheet.addRow(cellsOf(passenger({ date_born: '17/05/1980', scadenza: '16/05/2031' }))).commit();
    sheet.commit();
    await workbook.commit();
    expect((await parse(Buffer.concat(chunks))).records).toEqual([MARIO]);
  });
});

describe('parsePassengerSheet: row problems', () => {
  it('returns 422 naming the row and column of each bad cell, all at once', async () => {
    const file = await buildPassengerWorkbook([
      passenger({ date_born: '31/02/1980', email: 'mario.rossi@example', phone: '+39 333' }),
      passenger({ name: '', luogonascita: 'Atlantis', scadenza: new Date(Date.UTC(1975, 0, 1)), row_number_parent_id: 9 }),
      passenger({ typedoc: 'visa', date_born: new Date(Date.UTC(2027, 0, 1)), row_number_parent_id: 3 }),
      // Minors (11 at the test's today): only the parent-row rules are at stake here.
      passenger({ date_born: '2015-01-01', row_number_parent_id: 5 }),
      passenger({ date_born: '2015-01-01', row_number_parent_id: 1 }),
    ]);
    const error = await refusal(file);
    expect(error.status).toBe(422);
    expect(error.code).toBe('UNPROCESSABLE');
    expect(error.message).toBe('The passenger list has 11 problems in 4 rows');
    const at = (row: number, column: string) => ({ row_number: row, sheet_row: row + 1, field: column, column });
    expect(error.details).toEqual([
      { ...at(1, 'Date of birth'), value: '31/02/1980', message: 'Date of birth: "31/02/1980" is not a real date: 1980-02 has 29 days' },
      { ...at(1, 'E-mail'), value: 'mario.rossi@example', message: 'E-mail: expected an e-mail address such as name@example.com, got "mario.rossi@example"' },
      { ...at(1, 'Mobile'), value: '+39 333', message: expect.stringMatching(/^Mobile: expected a telephone number/) },
      { ...at(2, 'First name'), value: null, message: 'First name: a value is required' },
      { ...at(2, 'Country of birth'), value: 'Atlantis', message: expect.stringMatching(/^Country of birth: expected a country/) },
      { ...at(2, 'Expiry date'), value: '1975-01-01', message: 'Expiry date: the document expiry date 1975-01-01 is before the date of birth 1980-05-17' },
      { ...at(2, 'Parent row'), value: 9, message: 'Parent row: there is no passenger row 9: the list has 5 passengers, numbered from 1 below the header (blank rows not counted)' },
      { ...at(3, 'Document type'), value: 'visa', message: 'Document type: expected P (passport) or I (identity card), got "visa"' },
      { ...at(3, 'Date of birth'), value: '2027-01-01', message: 'Date of birth: the date of birth 2027-01-01 is in the future (today is 2026-11-21)' },
      { ...at(3, 'Parent row'), value: 3, message: 'Parent row: a passenger cannot be their own accompanying adult' },
      { ...at(4, 'Parent row'), value: 5, message: "Parent row: passenger row 5 is itself travelling with an adult (row 1); name the adult's row" },
    ]);
  });

  it('refuses a parent row that itself names an adult', async () => {
    const file = await buildPassengerWorkbook([
      passenger(),
      passenger({ name: 'Anna', date_born: '2015-01-01', row_number_parent_id: 1 }),
      passenger({ name: 'Luca', date_born: '2015-01-01', row_number_parent_id: 2 }),
    ]);
    const error = await refusal(file);
    expect(error.details).toEqual([
      expect.objectContaining({
        row_number: 3,
        column: 'Parent row',
        message: "Parent row: passenger row 2 is itself travelling with an adult (row 1); name the adult's row",
      }),
    ]);
  });

  it('lists at most maxProblems problems but counts them all', async () => {
    const rows = Array.from({ length: 5 }, () => passenger({ nazionalita: 'Narnia', gender: 'X' }));
    const error = await refusal(await buildPassengerWorkbook(rows), { maxProblems: 3 });
    expect(error.message).toBe('The passenger list has 10 problems in 5 rows; the first 3 are listed');
    expect(error.details.map((d) => d.row_number)).toEqual([1, 1, 2]);
  });

  it('uses the phone region given for numbers without a country code', async () => {
    const file = await buildPassengerWorkbook([passenger({ phone: '(202) 555-0143' })]);
    expect((await parse(file, { defaultPhoneRegion: 'US' })).records[0].phone).toBe('+12025550143');
  });
});
