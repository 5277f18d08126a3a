import { readFileSync } from 'node:fs';
import path from 'node:path';
import ExcelJS from 'exceljs';
import { AppError } from '../../../src/errors';
import { headingTableMarkdown } from '../../../src/passengers/sheet/heading-docs';
import { matchHeading, PASSENGER_SHEET_COLUMNS } from '../../../src/passengers/sheet/heading-aliases';
import { parsePassengerSheet } from '../../../src/passengers/sheet/parse-passenger-sheet';
import { buildPassengerTemplate } from '../../../src/passengers/sheet/passenger-template';
import { passengerSheetAppError } from '../../../src/passengers/sheet/sheet-app-error';
import { PassengerSheetError } from '../../../src/passengers/sheet/sheet-error';
import { parsedPassenger, partText, readZip } from '../../helpers/passenger-workbook';

const LIMITS = { uploadMaxBytes: 5 * 1024 * 1024, uploadMaxRows: 2000, uploadMaxColumns: 64, uploadMaxUncompressedBytes: 50 * 1024 * 1024 };

describe('buildPassengerTemplate', () => {
  it('is accepted by the parser, example row included', async () => {
    const { records, warnings } = await parsePassengerSheet(await buildPassengerTemplate(), {
      flightId: 3,
      limits: LIMITS,
      today: new Date(Date.UTC(2026, 10, 21)),
    });
    expect(warnings).toEqual([]);
    expect(records).toEqual([
      parsedPassenger(3),
    ]);
  });

  it('has the canonical headings with notes, a frozen header row and date and text formats', async () => {
    const workbook = new ExcelJS.Workbook();
    const template = await buildPassengerTemplate();
    await workbook.xlsx.load(template as unknown as Parameters<typeof workbook.xlsx.load>[0]);
    const sheet = workbook.worksheets[0];
    const headings = (sheet.getRow(1).values as unknown[]).slice(1);
    expect(headings).toEqual(PASSENGER_SHEET_COLUMNS.map((c) => c.heading));
    expect(headings.map((h) => matchHeading(String(h))?.field)).toEqual(PASSENGER_SHEET_COLUMNS.map((c) => c.field));
    expect(sheet.views[0]).toMatchObject({ state: 'frozen', ySplit: 1 });
    expect(sheet.getCell('C1').note).toBeTruthy();
    expect(sheet.getCell('C2').numFmt).toBe('yyyy-mm-dd');
    expect(sheet.getCell('G2').numFmt).toBe('@');
    expect(sheet.getCell('K2').numFmt).toBe('@');
  });

  it('offers drop-down lists for document type, gender and infant', async () => {
    const sheetXml = partText(readZip(await buildPassengerTemplate()).find((p) => p.name === 'xl/worksheets/sheet1.xml')!);
    const lists = [...sheetXml.matchAll(/<dataValidation type="list"[^>]*sqref="([A-Z]+)2:\1\d+"><formula1>([^<]*)<\/formula1>/g)].map(
      (m) => [m[1], m[2].replace(/&quot;/g, '"')],
    );
    expect(lists).toEqual([
      ['F', '"P,I"'],
      ['L', '"yes,no"'],
      ['M', '"M,F,I"'],
    ]);
  });
});

describe('heading aliases', () => {
  it('keeps docs/passenger-spreadsheet.md in step with the alias table', () => {
    const doc = readFileSync(path.join(__dirname, '../../../docs/passenger-spreadsheet.md'), 'utf8');
    const table = /<!-- headings:start -->\n([\s\S]*?)\n<!-- headings:end -->/.exec(doc)?.[1];
    expect(table).toBe(headingTableMarkdown());
  });

  it.each([
    ['surname', ['surname', 'last name', 'family name', 'cognome']],
    ['name', ['name', 'first name', 'given name', 'nome']],
    ['date_born', ['date of birth', 'birth date', 'dob', 'data di nascita']],
    ['luogonascita', ['country of birth', 'place of birth', 'luogo di nascita', 'paese di nascita']],
    ['nazionalita', ['nationality', 'citizenship', 'nazionalità', 'cittadinanza']],
    ['typedoc', ['document type', 'doc type', 'tipo documento']],
    ['numberdoc', ['document number', 'passport number', 'numero documento']],
    ['scadenza', ['document expiry', 'expiry date', 'expiration', 'scadenza', 'data di scadenza']],
    ['issuingstate', ['issuing state', 'issuing country', 'stato di rilascio', 'paese di rilascio']],
    ['email', ['e-mail', 'email']],
    ['phone', ['phone', 'mobile', 'telefono', 'cellulare']],
    ['is_carring_infant', ['infant', 'with infant', 'carrying infant', 'con infant', 'is_carring_infant']],
    ['gender', ['gender', 'sex', 'sesso']],
    ['row_number_parent_id', ['parent row', 'accompanying adult', 'accompagnatore', 'riga accompagnatore', 'row_number_parent_id']],
  ])('recognises the headings of %s', (field, headings) => {
    expect(headings.map((h) => matchHeading(h)?.field)).toEqual(headings.map(() => field));
  });

  it('does not take a title for a heading', () => {
    expect(matchHeading('Passenger list AZ1234')).toBeUndefined();
    expect(matchHeading('Name and surname')).toBeUndefined();
  });
});

describe('the parser module', () => {
  it('imports neither mongoose, GraphQL nor Express', () => {
    jest.isolateModules(() => {
      for (const banned of ['mongoose', 'graphql', 'express']) {
        jest.doMock(banned, () => {
          throw new Error(`${banned} was imported`);
        });
      }
      for (const module of ['sheet/parse-passenger-sheet', 'sheet/passenger-template', 'passenger.normalize']) {
        expect(() => jest.requireActual(`../../../src/passengers/${module}`)).not.toThrow();
      }
      for (const banned of ['mongoose', 'graphql', 'express']) jest.dontMock(banned);
    });
  });

  it('turns a refusal into the AppError the REST facade answers with, details kept', () => {
    const refusal = new PassengerSheetError('UNPROCESSABLE', 'The passenger list has 1 problem in 1 row', [
      { field: 'Nationality', column: 'Nationality', row_number: 1, sheet_row: 2, value: 'Narnia', message: 'Nationality: expected a country' },
    ]);
    const error = passengerSheetAppError(refusal);
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ status: 422, code: 'UNPROCESSABLE', message: refusal.message, details: refusal.details });
    const other = new Error('bug');
    expect(passengerSheetAppError(other)).toBe(other);
  });
});
