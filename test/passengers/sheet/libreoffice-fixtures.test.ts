import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parsePassengerSheet } from '../../../src/passengers/sheet/parse-passenger-sheet';
import { PassengerSheetError } from '../../../src/passengers/sheet/sheet-error';

/** Workbooks written by LibreOffice Calc 7.4 (see test/fixtures/passengers/README.md). */
const LIMITS = { uploadMaxBytes: 5 * 1024 * 1024, uploadMaxRows: 2000, uploadMaxColumns: 64, uploadMaxUncompressedBytes: 50 * 1024 * 1024 };
const options = { flightId: 99, limits: LIMITS, today: new Date(Date.UTC(2026, 10, 21)) };
const fixture = (name: string) => readFileSync(path.join(__dirname, '../../fixtures/passengers', name));

describe('parsePassengerSheet on LibreOffice workbooks', () => {
  it('reads Italian headings under a title row, with date cells, words for codes and an infant with its adult', async () => {
    const { records, sheetName } = await parsePassengerSheet(fixture('italian-headings.xlsx'), options);
    expect(sheetName).toBe('italian-headings');
    expect(records).toEqual([
      expect.objectContaining({
        idvolo: 99,
        surname: 'ROSSI',
        name: 'MARIO',
        date_born: '1980-05-17',
        luogonascita: 'IT',
        nazionalita: 'IT',
        typedoc: 'P',
        scadenza: '2031-05-16',
        phone: '+393331234567',
        is_carring_infant: true,
        row_number: 1,
      }),
      expect.objectContaining({
        name: 'GIULIA',
        typedoc: 'I',
        numberdoc: 'CA12345AB',
        email: null,
        phone: null,
        row_number_parent_id: 1,
        row_number: 2,
      }),
      expect.objectContaining({
        surname: 'MÜLLER',
        name: 'JÜRGEN',
        date_born: '1964-02-29',
        luogonascita: 'DE',
        phone: '+49301234567',
        gender: 'M',
        row_number: 3,
      }),
    ]);
  });

  it('reads shuffled English headings with text dates and a number cell, and refuses a number in a General cell as a date', async () => {
    // Ann O'Neil is Irish with an Italian mobile written without +39: valid only through the default region.
    // Her birth date is 31072 in a General cell (E4): the sheet shows a number, not 1985-01-25.
    const { records, warnings, preview } = await parsePassengerSheet(fixture('english-shuffled.xlsx'), { ...options, defaultPhoneRegion: 'IT', preview: true });
    expect(warnings).toEqual([
      // Its one date cell (1 December 1979) sits beside day-first text dates: it may be a 12/01/1979 a month-first program turned.
      'Column "Birth date" holds 1 date cell beside text dates that can only be read day first (DD/MM/YYYY) (such as "15-08-2024", sheet row 3): a spreadsheet program set to read dates month first turns a text such as 03/04/1985 (3 April) into a cell of 4 March, and leaves the texts it cannot read as text. The date cell was read as it is: sheet row 2 holds 1979-12-01, which the other way round is 1979-01-12. Check it, or write the dates as YYYY-MM-DD',
      `Passenger row 3 (O'Neil Ann), column "Phone": "3331234567" is not a valid number of the passenger's IE (nationality, issuing state, country of birth); read as a number of Italy (IT, the default region): +393331234567. If that is wrong, write the number with its country code`,
    ]);
    expect(records.map((r) => [r.surname, r.name, r.date_born, r.scadenza, r.typedoc, r.numberdoc, r.gender, r.phone])).toEqual([
      ['SMITH', 'JANE MARY', '1979-12-01', '2029-06-01', 'P', 'X1234567', 'F', '+447911123456'],
      ['SMITH', 'TOM', '2024-08-15', '2029-06-01', 'P', 'X7654321', 'M', null],
    ]);
    expect(records[1].row_number_parent_id).toBe(1);
    expect(preview?.problems).toEqual([
      expect.objectContaining({
        row_number: 3,
        sheet_row: 4,
        column: 'Birth date',
        value: 31072,
        message:
          'Birth date: cell E4 holds the number 31072, which is not a date (the cell is not formatted as a date); write the date as YYYY-MM-DD (or DD/MM/YYYY), or format the cell as a date',
      }),
    ]);
    const error = await parsePassengerSheet(fixture('english-shuffled.xlsx'), { ...options, defaultPhoneRegion: 'IT' }).catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 422, details: [expect.objectContaining({ row_number: 3, column: 'Birth date', value: 31072 })] });
  });

  it('reads merged cells, rich text, a hyperlinked e-mail, formulas and booleans, skipping a sheet without a header', async () => {
    const { records, sheetName } = await parsePassengerSheet(fixture('rich-features.xlsx'), options);
    expect(sheetName).toBe('Passengers');
    expect(records).toEqual([
      {
        id: null,
        idvolo: 99,
        surname: 'BIANCHI',
        name: 'ANNA MARIA',
        luogonascita: 'IT',
        nazionalita: 'IT',
        typedoc: 'P',
        numberdoc: 'YA7654321',
        date_born: '1985-03-12',
        scadenza: '2030-12-31',
        issuingstate: 'IT',
        email: 'anna.bianchi@example.com',
        phone: '+393477654321',
        is_carring_infant: true,
        gender: 'F',
        parent_id: null,
        row_number_parent_id: null,
        row_number: 1,
      },
      {
        id: null,
        idvolo: 99,
        surname: 'BIANCHI',
        name: 'LUCA',
        luogonascita: 'IT',
        nazionalita: 'IT',
        typedoc: 'I',
        numberdoc: 'CA00000AA',
        date_born: '2025-06-01',
        scadenza: '2028-06-01',
        issuingstate: 'IT',
        email: null,
        phone: null,
        is_carring_infant: false,
        gender: 'M',
        parent_id: null,
        row_number_parent_id: 1,
        row_number: 2,
      },
    ]);
  });

  it('lists every problem of a LibreOffice workbook with its row and column', async () => {
    const error = await parsePassengerSheet(fixture('problems.xlsx'), options).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PassengerSheetError);
    const { status, details } = error as PassengerSheetError;
    expect(status).toBe(422);
    expect(details.map((d) => [d.row_number, d.sheet_row, d.column, d.value])).toEqual([
      [1, 2, 'Date of birth', '31/02/1980'],
      [1, 2, 'E-mail', 'mario.rossi@example'],
      [1, 2, 'Phone', '+39 333'],
      [2, 3, 'Name', null],
      [2, 3, 'Country of birth', 'Atlantis'],
      [2, 3, 'Carrying infant', 'maybe'],
      [2, 3, 'Document expiry', '1980-01-01'],
      [2, 3, 'Parent row', 9],
      [3, 4, 'Document type', 'X'],
      [3, 4, 'Date of birth', '2090-01-01'],
      [3, 4, 'Parent row', 3],
    ]);
  });

  it('names the columns missing from a LibreOffice workbook', async () => {
    const error = (await parsePassengerSheet(fixture('missing-columns.xlsx'), options).catch((e: unknown) => e)) as PassengerSheetError;
    expect(error.status).toBe(422);
    expect(error.details.map((d) => d.field)).toEqual(['nazionalita', 'gender']);
  });
});
