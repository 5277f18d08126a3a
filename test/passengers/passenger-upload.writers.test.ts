import { readFileSync } from 'node:fs';
import path from 'node:path';
import { print } from 'graphql';
import request from 'supertest';
import { UploadPassengerListDocument } from '../../src/graphql/generated/operations';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { createFlight, createReferenceData } from '../helpers/timeline-fixtures';

/**
 * The rules of issue 23 §1 on files saved by LibreOffice Calc 7.4 and Gnumeric 1.12 as .xlsx, .ods
 * and CSV (test/fixtures/passengers/writers/, made by sources/make-writer-fixtures.sh; the tests
 * never run those programs), through the REST upload, the GraphQL upload and previewPassengerUpload:
 * phones without a country code, text dates decided per column, decomposed accents, hidden rows and
 * columns, totals rows, and the preview's suggestions.
 */

const writers = (name: string) => readFileSync(path.join(__dirname, '../fixtures/passengers/writers', name));
/** Every way each list was saved: the two programs, three formats each. */
const SAVED_AS = ['libreoffice.xlsx', 'libreoffice.ods', 'libreoffice.csv', 'gnumeric.xlsx', 'gnumeric.ods', 'gnumeric.csv'];
const APIS = ['REST', 'GraphQL', 'preview'] as const;
type Api = (typeof APIS)[number];

interface Options {
  dateOrder?: string;
  defaultPhoneRegion?: string;
  hiddenRows?: string;
}
interface Problem {
  sheet_row?: number;
  column?: string | null;
  value?: unknown;
  message: string;
  suggestion?: string | null;
}
/** What any of the three calls answered, in one shape: the preview's problems as the upload's details. */
interface Answer {
  status: number;
  records: Record<string, unknown>[];
  warnings: string[];
  code?: string;
  problems: Problem[];
}

const PREVIEW = /* GraphQL */ `
  mutation Preview($flightId: Int!, $file: Upload!, $options: PassengerUploadOptionsInput) {
    previewPassengerUpload(flightId: $flightId, file: $file, options: $options) {
      records { row_number surname name date_born scadenza phone }
      problems { sheetRow rowNumber column heading field value message suggestion }
      problemCount
      warnings
    }
  }
`;

describe('lists saved by LibreOffice and Gnumeric, through the REST upload, the GraphQL upload and the preview', () => {
  let testApp: TestApp;
  let writer: string;
  let flightId: number;

  beforeAll(async () => {
    testApp = await startTestApp('passenger_upload_writers');
    writer = `Bearer ${await testApp.token(['passengers:write'])}`;
    await createReferenceData(testApp);
    flightId = await createFlight(testApp, { resourceId: 1, from: 'LIRF', to: 'LGAV', departureAt: '2026-12-10T09:00:00Z', arrivalAt: '2026-12-10T11:30:00Z' });
  });
  afterAll(() => testApp.close());

  function graphqlRequest(query: string, variables: Record<string, unknown>, bytes: Buffer, filename: string) {
    return request(testApp.app)
      .post('/graphql')
      .set('Authorization', writer)
      .set('Apollo-Require-Preflight', 'true')
      .field('operations', JSON.stringify({ query, variables: { flightId, file: null, ...variables } }))
      .field('map', JSON.stringify({ 0: ['variables.file'] }))
      .attach('0', bytes, { filename, contentType: 'application/octet-stream' });
  }

  async function send(api: Api, file: string, options: Options = {}): Promise<Answer> {
    const bytes = writers(file);
    if (api === 'REST') {
      const response = await request(testApp.app)
        .post(`/api/broker/v0/upload/${flightId}`)
        .query(options as Record<string, string>)
        .set('Authorization', writer)
        .attach('paxlist', bytes, { filename: file, contentType: 'application/octet-stream' });
      const header = response.headers['x-sheet-warnings'] as string | undefined;
      const ok = response.status === 200;
      return {
        status: response.status,
        records: ok ? response.body : [],
        warnings: header ? decodeURIComponent(header).split(' | ') : [],
        code: ok ? undefined : response.body.error.code,
        problems: ok ? [] : response.body.error.details,
      };
    }
    if (api === 'GraphQL') {
      const response = await graphqlRequest(print(UploadPassengerListDocument), options as Record<string, unknown>, bytes, file);
      const error = response.body.errors?.[0];
      return {
        status: error ? error.extensions.http?.status ?? response.status : response.status,
        records: response.body.data?.uploadPassengerList ?? [],
        warnings: response.body.extensions?.warnings ?? [],
        code: error?.extensions.code,
        problems: error?.extensions.details ?? [],
      };
    }
    const response = await graphqlRequest(PREVIEW, { options }, bytes, file);
    expect(response.body.errors).toBeUndefined();
    const preview = response.body.data.previewPassengerUpload;
    expect(preview.problemCount).toBe(preview.problems.length);
    return {
      status: response.status,
      records: preview.records,
      warnings: preview.warnings,
      problems: preview.problems.map((p: { sheetRow: number; heading: string | null; value: unknown; message: string; suggestion: string | null }) => ({
        sheet_row: p.sheetRow,
        column: p.heading,
        value: p.value,
        message: p.message,
        suggestion: p.suggestion,
      })),
    };
  }

  const pick = (records: Record<string, unknown>[], ...fields: string[]) => records.map((r) => fields.map((f) => r[f]));
  const cells = (problems: Problem[]) => problems.map((p) => [p.sheet_row, p.column, p.value]);
  const every = (...lists: string[]) => lists.flatMap((list) => SAVED_AS.map((saved) => `${list}.${saved}`)).flatMap((file) => APIS.map((api) => [file, api] as [string, Api]));

  it.each(every('uk-list'))("%s (%s): a UK list's phones read as British, an Irish passenger's as Irish, its text dates day first, no warning", async (file, api) => {
    const answer = await send(api, file);
    expect(answer.problems).toEqual([]);
    expect(pick(answer.records, 'surname', 'date_born', 'scadenza', 'phone')).toEqual([
      ['SMITH', '1980-05-17', '2031-06-05', '+447911123456'],
      ['JONES', '1984-06-05', '2030-11-23', '+442079460958'],
      ['MURPHY', '1990-03-02', '2032-02-01', '+353871234567'],
    ]);
    expect(answer.warnings).toEqual([]);
  });

  it.each(every('us-list'))(
    "%s (%s): a US list read month first as its columns prove; a number valid in none of the passenger's countries is a problem of its cell, with no suggestion",
    async (file, api) => {
      const answer = await send(api, file);
      expect(cells(answer.problems)).toEqual([[4, 'Phone', '347 123 4567']]);
      expect(answer.problems[0].message).toBe(
        'Phone: expected a telephone number with its country code, such as +44 7911 123456, got "347 123 4567"; without a country code it was tried as a number of US (nationality, issuing state, country of birth), and is valid in none',
      );
      if (api === 'preview') {
        // The number is an Italian mobile, but nothing in the row links the passenger to Italy.
        expect(answer.problems[0].suggestion).toBeNull();
        expect(pick(answer.records, 'surname', 'date_born', 'scadenza', 'phone')).toEqual([
          ['JOHNSON', '1980-05-17', '2031-12-31', '+12125550123'],
          ['WILLIAMS', '1984-05-06', '2030-06-05', '+14155550132'],
        ]);
      } else {
        expect([answer.status, answer.code]).toEqual([422, 'UNPROCESSABLE']);
      }
      const assumed = await send(api, file, { defaultPhoneRegion: 'IT' });
      expect(assumed.problems).toEqual([]);
      expect(pick(assumed.records, 'surname', 'phone')).toEqual([
        ['JOHNSON', '+12125550123'],
        ['WILLIAMS', '+14155550132'],
        ['BROWN', '+393471234567'],
      ]);
      expect(assumed.warnings).toEqual([
        'Column "Date of birth" was read month first (MM/DD/YYYY), not day first as asked: "05/17/1980" (sheet row 2) can only be read so. So were its 2 dates that read both ways, e.g. "05/06/1984" (sheet row 3) as 1984-05-06',
        'Column "Expiry date" was read month first (MM/DD/YYYY), not day first as asked: "12/31/2031" (sheet row 2) can only be read so. So were its 2 dates that read both ways, e.g. "06/05/2030" (sheet row 3) as 2030-06-05',
        `Passenger row 3 (Brown Olivia), column "Phone": "347 123 4567" is not a valid number of the passenger's US (nationality, issuing state, country of birth); read as a number of Italy (IT, the default region): +393471234567. If that is wrong, write the number with its country code`,
      ]);
    },
  );

  it.each(every('us-ambiguous'))('%s (%s): a column whose dates all read both ways is read in the order the request names, with a warning naming it', async (file, api) => {
    const dayFirst = await send(api, file);
    expect(pick(dayFirst.records, 'date_born', 'scadenza', 'phone')).toEqual([
      ['1984-06-05', '2031-02-01', '+12125550199'],
      ['1992-04-03', '2032-08-07', null],
    ]);
    expect(dayFirst.warnings).toEqual([
      'Column "Date of birth": every text date reads both day first and month first, so its 2 dates that read both ways were read day first (DD/MM/YYYY), the upload\'s date order (dateOrder DMY): "05/06/1984" (sheet row 2) is 1984-06-05. If the list is written month first, upload it again with dateOrder MDY, or write the dates as YYYY-MM-DD',
      'Column "Expiry date": every text date reads both day first and month first, so its 2 dates that read both ways were read day first (DD/MM/YYYY), the upload\'s date order (dateOrder DMY): "01/02/2031" (sheet row 2) is 2031-02-01. If the list is written month first, upload it again with dateOrder MDY, or write the dates as YYYY-MM-DD',
    ]);
    const monthFirst = await send(api, file, { dateOrder: 'MDY' });
    expect(pick(monthFirst.records, 'date_born', 'scadenza')).toEqual([
      ['1984-05-06', '2031-01-02'],
      ['1992-03-04', '2032-07-08'],
    ]);
    expect(monthFirst.warnings[0]).toContain(`month first (MM/DD/YYYY), the upload's date order (dateOrder MDY): "05/06/1984" (sheet row 2) is 1984-05-06`);
  });

  it.each(every('mixed-date-orders'))('%s (%s): only the date that contradicts its column is a problem; the preview suggests it read the other way', async (file, api) => {
    const answer = await send(api, file);
    expect(cells(answer.problems)).toEqual([[3, 'Date of birth', '05/17/1980']]);
    expect(answer.problems[0].message).toBe(
      'Date of birth: "05/17/1980" can only be read month first (MM/DD/YYYY), while most dates of the column (2 against 1, such as "25/12/1979" in sheet row 2) can only be read day first (DD/MM/YYYY); write this date as YYYY-MM-DD (read month first it is 1980-05-17) or correct it',
    );
    if (api === 'preview') {
      expect(answer.problems[0].suggestion).toBe('1980-05-17');
      expect(pick(answer.records, 'surname', 'date_born')).toEqual([
        ['TAYLOR', '1979-12-25'],
        ['EVANS', '1990-01-13'],
        ['HUGHES', '1984-06-05'],
      ]);
    } else expect(answer.status).toBe(422);
  });

  it.each(every('german-list'))('%s (%s): dotted dates day first, German numbers, umlauts typed decomposed stored composed', async (file, api) => {
    const answer = await send(api, file);
    expect(answer.problems).toEqual([]);
    expect(pick(answer.records, 'surname', 'name', 'date_born', 'scadenza', 'phone')).toEqual([
      ['MÜLLER', 'JÜRGEN', '1980-05-17', '2031-06-05', '+4915123456789'],
      ['SCHRÖDER', 'KÄTHE', '1984-06-05', '2030-11-23', '+49301234567'],
    ]);
    expect((answer.records[0].surname as string).length).toBe(6);
    expect(answer.warnings).toEqual([]);
  });

  const french = every('french-list').filter(([file]) => file !== 'french-list.libreoffice.csv');
  it.each(french)('%s (%s): date cells (Gnumeric\'s CSV writes them year first), French numbers, accents stored composed', async (file, api) => {
    const answer = await send(api, file, { dateOrder: 'MDY' });
    expect(answer.problems).toEqual([]);
    expect(pick(answer.records, 'surname', 'name', 'date_born', 'scadenza', 'phone')).toEqual([
      ['LEFÈVRE', 'HÉLÈNE', '1980-05-17', '2031-06-05', '+33612345678'],
      ['GÉRARD', 'ZOÉ', '1984-06-05', '2030-11-23', '+33142685300'],
    ]);
    expect((answer.records[1].name as string).length).toBe(3);
    expect(answer.warnings).toEqual([]);
  });

  it.each(APIS)("LibreOffice's CSV of date cells (%s): as shown, two-digit years are refused cell by cell; not as shown, month first is proven per column", async (api) => {
    const shown = await send(api, 'french-list.libreoffice.csv');
    expect(cells(shown.problems)).toEqual([
      [2, 'Date of birth', '05/17/80'],
      [2, 'Expiry date', '06/05/31'],
      [3, 'Date of birth', '06/05/84'],
      [3, 'Expiry date', '11/23/30'],
    ]);
    expect(shown.problems.every((p) => p.message.includes('expected a date as'))).toBe(true);
    if (api === 'preview') expect(shown.problems.map((p) => p.suggestion)).toEqual([null, null, null, null]);
    const raw = await send(api, 'french-list.libreoffice-not-as-shown.csv');
    expect(raw.problems).toEqual([]);
    expect(pick(raw.records, 'date_born', 'scadenza')).toEqual([
      ['1980-05-17', '2031-06-05'],
      ['1984-06-05', '2030-11-23'],
    ]);
    expect(raw.warnings).toEqual([
      'Column "Date of birth" was read month first (MM/DD/YYYY), not day first as asked: "05/17/1980" (sheet row 2) can only be read so. So was its one date that reads both ways, e.g. "06/05/1984" (sheet row 3) as 1984-06-05',
      'Column "Expiry date" was read month first (MM/DD/YYYY), not day first as asked: "11/23/2030" (sheet row 3) can only be read so. So was its one date that reads both ways, e.g. "06/05/2031" (sheet row 2) as 2031-06-05',
    ]);
  });

  it.each(every('phone-suggestions').filter(([, api]) => api === 'preview'))(
    '%s (preview): suggests the one number a cell honestly allows, and none otherwise',
    async (file, api) => {
      const answer = await send(api, file);
      const phones = answer.problems.filter((p) => p.column === 'Phone');
      expect(phones.map((p) => [p.sheet_row, p.value, p.suggestion])).toEqual([
        // A number cell (LibreOffice typed the digits so) dropped the Italian landline's leading 0; the preview echoes values as text.
        [2, '612345678', '+390612345678'],
        // The passenger's countries are misspelt (Deutchland, suggested DE): the number read as German.
        [3, '030 1234567', '+49301234567'],
        [4, '044 7911 123456', '+447911123456'],
        [5, '347 123 4567', null],
      ]);
      expect(answer.problems.filter((p) => p.column !== 'Phone').map((p) => [p.sheet_row, p.column, p.suggestion])).toEqual([
        [3, 'Country of birth', 'DE'],
        [3, 'Nationality', 'DE'],
        [3, 'Issuing country', 'DE'],
      ]);
    },
  );

  it.each(['phone-suggestions.libreoffice.xlsx', 'phone-suggestions.gnumeric.csv'])('%s: the REST and GraphQL uploads name the same cells, without suggestions', async (file) => {
    for (const api of ['REST', 'GraphQL'] as const) {
      const answer = await send(api, file);
      expect([answer.status, answer.code]).toEqual([422, 'UNPROCESSABLE']);
      expect(answer.problems.map((p) => [p.sheet_row, p.column])).toEqual([
        [2, 'Phone'],
        [3, 'Country of birth'],
        [3, 'Nationality'],
        [3, 'Issuing country'],
        [3, 'Phone'],
        [4, 'Phone'],
        [5, 'Phone'],
      ]);
      expect(answer.problems.some((p) => 'suggestion' in p)).toBe(false);
    }
  });

  it.each(['phone-suggestions.libreoffice.ods', 'phone-suggestions.gnumeric.csv', 'mixed-date-orders.gnumeric.xlsx'])(
    '%s: the preview taken at its word (its suggestions sent back as corrections, by cell letter) reads every row',
    async (file) => {
      const bytes = writers(file);
      const first = (await graphqlRequest(PREVIEW, {}, bytes, file)).body.data.previewPassengerUpload;
      const suggested = first.problems.filter((p: { suggestion: string | null }) => p.suggestion !== null);
      expect(suggested.length).toBeGreaterThan(0);
      // The American's Italian mobile has no suggestion: the user drops it (a blank cell), or the default region reads it.
      const corrections = first.problems.map((p: { sheetRow: number; column: string; suggestion: string | null }) => ({ sheetRow: p.sheetRow, column: p.column, value: p.suggestion }));
      const second = (await graphqlRequest(PREVIEW, { options: { corrections } }, bytes, file)).body;
      expect(second.errors).toBeUndefined();
      const read = second.data.previewPassengerUpload;
      expect(read.problems).toEqual([]);
      expect(read.records).toHaveLength(first.records.length + new Set(first.problems.map((p: { rowNumber: number }) => p.rowNumber)).size);
      if (file.startsWith('phone-suggestions')) {
        expect(pick(read.records, 'surname', 'phone')).toEqual([
          ['ROSSI', '+390612345678'],
          ['MÜLLER', '+49301234567'],
          ['SMITH', '+447911123456'],
          ['BROWN', null],
        ]);
      } else expect(pick(read.records, 'surname', 'date_born')[1]).toEqual(['WILSON', '1980-05-17']);
    },
  );

  it('us-list.libreoffice.xlsx: a column the client maps away (by heading) is not read, and the list has no problem left', async () => {
    const file = 'us-list.libreoffice.xlsx';
    const answer = (await graphqlRequest(PREVIEW, { options: { columns: [{ heading: 'phone', field: null }] } }, writers(file), file)).body.data.previewPassengerUpload;
    expect(answer.problems).toEqual([]);
    expect(pick(answer.records, 'surname', 'phone')).toEqual([
      ['JOHNSON', null],
      ['WILLIAMS', null],
      ['BROWN', null],
    ]);
    expect(answer.warnings).toContain('Column K "Phone" was ignored, as the mapping asked');
  });

  const COUNTRY_READINGS = [
    'Passenger row 1 (Weber Anna), column "Luogo di nascita": "Deutschland" was read as DE (Germany), its German name',
    'Passenger row 1 (Weber Anna), column "Nazionalità": "Allemagne" was read as DE (Germany), its French name',
    'Passenger row 1 (Weber Anna), column "Stato di rilascio": "Alemania" was read as DE (Germany), its Spanish name',
    'Passenger row 2 (Ivanov Pavel), column "Luogo di nascita": "Германия" was read as DE (Germany), its Russian name',
    'Passenger row 2 (Ivanov Pavel), column "Nazionalità": "Германия" was read as DE (Germany), its Russian name',
  ];

  it.each(every('other-languages'))('%s (%s): Italian headings, countries named in other languages read with a warning each, a misspelt heading ignored', async (file, api) => {
    const answer = await send(api, file);
    expect(answer.problems).toEqual([]);
    expect(pick(answer.records, 'surname', 'phone')).toEqual([
      ['WEBER', '+4915123456789'],
      ['IVANOV', null],
    ]);
    expect(answer.warnings).toEqual(['Column J "Emai" is not a passenger field and was ignored', ...COUNTRY_READINGS]);
  });

  it.each(SAVED_AS.map((saved) => `other-languages.${saved}`))('%s (preview): the mapping says how each heading matched, the misspelt one gets a did-you-mean, and the client maps it', async (file) => {
    const query = /* GraphQL */ `
      mutation Preview($flightId: Int!, $file: Upload!, $options: PassengerUploadOptionsInput) {
        previewPassengerUpload(flightId: $flightId, file: $file, options: $options) {
          records { surname email nazionalita luogonascita issuingstate }
          mapping { column heading field match }
          unknownHeadings { column heading didYouMean }
          options { dateOrder defaultPhoneRegion hiddenRows }
        }
      }
    `;
    const first = (await graphqlRequest(query, {}, writers(file), file)).body.data.previewPassengerUpload;
    expect(first.unknownHeadings).toEqual([{ column: 'J', heading: 'Emai', didYouMean: 'email' }]);
    expect(first.mapping.slice(0, 3)).toEqual([
      { column: 'A', heading: 'Cognome', field: 'surname', match: 'ALIAS' },
      { column: 'B', heading: 'Nome', field: 'name', match: 'ALIAS' },
      { column: 'C', heading: 'Data di nascita', field: 'date_born', match: 'ALIAS' },
    ]);
    expect(first.options).toEqual({ dateOrder: 'DMY', defaultPhoneRegion: null, hiddenRows: 'SKIP' });
    expect(first.records.map((r: Record<string, string>) => [r.nazionalita, r.luogonascita, r.issuingstate])).toEqual([
      ['DE', 'DE', 'DE'],
      ['DE', 'DE', 'DE'],
    ]);
    const mapped = (await graphqlRequest(query, { options: { columns: [{ column: 'J', field: 'email' }] } }, writers(file), file)).body.data.previewPassengerUpload;
    expect(mapped.unknownHeadings).toEqual([]);
    expect(mapped.mapping).toContainEqual({ column: 'J', heading: 'Emai', field: 'email', match: 'CLIENT' });
    expect(mapped.records.map((r: { email: string | null }) => r.email)).toEqual(['anna@example.de', null]);
  });

  const HIDDEN_WARNINGS = {
    column: 'Column K "Mobile" is hidden; its values were read like those of the other columns',
    totals: 'Sheet row 7 holds SUBTOTAL formulas (a totals row), not a passenger, and was skipped',
  };

  it.each(APIS)('hidden rows, a hidden column and a SUBTOTAL totals row in .ods files saved by LibreOffice and Gnumeric (%s)', async (api) => {
    const libreoffice = await send(api, 'hidden.libreoffice.ods');
    expect(libreoffice.problems).toEqual([]);
    expect(pick(libreoffice.records, 'row_number', 'surname')).toEqual([
      [1, 'ROSSI'],
      [2, 'VERDI'],
      [3, 'GALLO'],
    ]);
    expect(libreoffice.warnings).toEqual([
      HIDDEN_WARNINGS.column,
      HIDDEN_WARNINGS.totals,
      'Sheet row 3 (Dupont Claire) is hidden by the filter and was skipped; to import hidden rows, upload again with the option hiddenRows=IMPORT',
      'Sheet row 5 (Neri Paola) is hidden and was skipped; to import hidden rows, upload again with the option hiddenRows=IMPORT',
    ]);
    const imported = await send(api, 'hidden.libreoffice.ods', { hiddenRows: api === 'REST' ? 'import' : 'IMPORT' });
    expect(pick(imported.records, 'surname')).toEqual([['ROSSI'], ['DUPONT'], ['VERDI'], ['NERI'], ['GALLO']]);
    expect(imported.warnings).toContain('Sheet row 3 (Dupont Claire) is hidden by the filter and was imported as passenger 2 (option hiddenRows=IMPORT)');

    // Gnumeric keeps the hidden rows but drops the filter's criterion: both are rows hidden by hand.
    const gnumeric = await send(api, 'hidden.gnumeric.ods');
    expect(pick(gnumeric.records, 'surname')).toEqual([['ROSSI'], ['VERDI'], ['GALLO']]);
    expect(gnumeric.warnings).toEqual([
      HIDDEN_WARNINGS.column,
      HIDDEN_WARNINGS.totals,
      'Sheet rows 3 (Dupont Claire), 5 (Neri Paola) are hidden and were skipped; to import hidden rows, upload again with the option hiddenRows=IMPORT',
    ]);

    // LibreOffice keeps the Excel table of XlsxWriter as a database range; its totals row is a SUBTOTAL row.
    const totals = await send(api, 'totals-table.libreoffice.ods');
    expect(pick(totals.records, 'surname')).toEqual([['ROSSI'], ['VERDI']]);
    expect(totals.warnings).toContain('Sheet row 5 holds SUBTOTAL formulas (a totals row), not a passenger, and was skipped');
  });

  // The .xlsx files of the same lists (test/fixtures/passengers/sources/make-hidden-fixtures.py), on every API.
  const HIDDEN_XLSX: [string, string[], string[]][] = [
    ['hidden-openpyxl.xlsx', ['ROSSI', 'VERDI', 'GALLO'], [HIDDEN_WARNINGS.column, HIDDEN_WARNINGS.totals, 'Sheet row 3 (Dupont Claire) is hidden by the filter and was skipped; to import hidden rows, upload again with the option hiddenRows=IMPORT']],
    ['hidden-libreoffice.xlsx', ['ROSSI', 'VERDI', 'GALLO'], [HIDDEN_WARNINGS.column, HIDDEN_WARNINGS.totals, 'Sheet row 3 (Dupont Claire) is hidden by the filter and was skipped; to import hidden rows, upload again with the option hiddenRows=IMPORT']],
    ['hidden-gnumeric.xlsx', ['ROSSI', 'VERDI', 'GALLO'], [HIDDEN_WARNINGS.column, HIDDEN_WARNINGS.totals, 'Sheet rows 3 (Dupont Claire), 5 (Neri Paola) are hidden and were skipped; to import hidden rows, upload again with the option hiddenRows=IMPORT']],
    ['totals-table-openpyxl.xlsx', ['ROSSI', 'DUPONT', 'VERDI'], ['Sheet row 5 is the totals row of the table "PassengerTable", not a passenger, and was skipped']],
    ['totals-table-xlsxwriter.xlsx', ['ROSSI', 'VERDI'], [HIDDEN_WARNINGS.column, 'Sheet row 5 holds SUBTOTAL formulas (a totals row), not a passenger, and was skipped']],
    ['totals-table-libreoffice.xlsx', ['ROSSI', 'VERDI'], [HIDDEN_WARNINGS.column, 'Sheet row 5 holds SUBTOTAL formulas (a totals row), not a passenger, and was skipped']],
  ];
  it.each(HIDDEN_XLSX.flatMap(([file, surnames, warnings]) => APIS.map((api) => [file, api, surnames, warnings] as const)))(
    '%s (%s): hidden rows skipped, hidden columns read, the totals row skipped, each with its warning',
    async (file, api, surnames, warnings) => {
      const answer = await send(api, `../${file}`);
      expect(answer.problems).toEqual([]);
      expect(answer.records.map((r) => r.surname)).toEqual(surnames);
      expect(answer.warnings).toEqual(expect.arrayContaining(warnings));
    },
  );

  it.each(APIS)("LibreOffice's CSV of the hidden list (%s): a CSV has no hidden rows or formulas, so every row is read and the totals row is a row with problems", async (api) => {
    const answer = await send(api, 'hidden.libreoffice.csv');
    expect(new Set(answer.problems.map((p) => p.sheet_row))).toEqual(new Set([7]));
    expect(answer.problems[0]).toMatchObject({ column: 'First name', value: '3' });
    if (api === 'preview') expect(pick(answer.records, 'surname')).toEqual([['ROSSI'], ['DUPONT'], ['VERDI'], ['NERI'], ['GALLO']]);
    else expect(answer.status).toBe(422);
  });
});
