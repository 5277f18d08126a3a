import { readFileSync } from 'node:fs';
import path from 'node:path';
import { print } from 'graphql';
import request from 'supertest';
import { loadConfig } from '../../src/config';
import { UploadPassengerListDocument } from '../../src/graphql/generated/operations';
import { buildPassengerOds } from '../helpers/passenger-formats';
import { buildPassengerWorkbook, passenger } from '../helpers/passenger-workbook';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { createFlight, createReferenceData } from '../helpers/timeline-fixtures';

/**
 * How lists from other countries are read, through both APIs, with files written by openpyxl and
 * XlsxWriter (test/fixtures/passengers/sources/international-lists.py) and by the workbook helper:
 * phone numbers in the passenger's own country, date order per column, NFC names, whole messages.
 */

const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
const fixture = (name: string) => readFileSync(path.join(__dirname, '../fixtures/passengers', name));

type Api = 'REST' | 'GraphQL';
interface UploadOptions {
  dateOrder?: string;
  defaultPhoneRegion?: string;
}
interface Problem {
  row_number?: number;
  sheet_row?: number;
  column?: string;
  field?: string;
  value?: unknown;
  message: string;
}
/** What either API answered, in one shape. */
interface Answer {
  status: number;
  records?: Record<string, unknown>[];
  warnings: string[];
  error?: { code: string; message: string; details: Problem[] };
}

describe('uploads of lists from other countries (REST and GraphQL)', () => {
  let testApp: TestApp;
  let writer: string;
  let flightId: number;

  beforeAll(async () => {
    testApp = await startTestApp('passenger_upload_rules');
    writer = `Bearer ${await testApp.token(['passengers:write'])}`;
    await createReferenceData(testApp);
    flightId = await createFlight(testApp, { resourceId: 1, from: 'LIRF', to: 'LGAV', departureAt: '2026-12-10T09:00:00Z', arrivalAt: '2026-12-10T11:30:00Z' });
  });
  afterAll(() => testApp.close());

  async function upload(api: Api, bytes: Buffer, options: UploadOptions = {}): Promise<Answer> {
    if (api === 'REST') {
      const response = await request(testApp.app)
        .post(`/api/broker/v0/upload/${flightId}`)
        .query(options as Record<string, string>)
        .set('Authorization', writer)
        .attach('paxlist', bytes, { filename: 'list.xlsx', contentType: XLSX });
      const header = response.headers['x-sheet-warnings'] as string | undefined;
      return {
        status: response.status,
        records: response.status === 200 ? response.body : undefined,
        warnings: header ? decodeURIComponent(header).split(' | ') : [],
        error: response.body.error,
      };
    }
    const operations = { query: print(UploadPassengerListDocument), variables: { flightId, file: null, ...options } };
    const response = await request(testApp.app)
      .post('/graphql')
      .set('Authorization', writer)
      .set('Apollo-Require-Preflight', 'true')
      .field('operations', JSON.stringify(operations))
      .field('map', JSON.stringify({ 0: ['variables.file'] }))
      .attach('0', bytes, { filename: 'list.xlsx', contentType: XLSX });
    const error = response.body.errors?.[0];
    return {
      status: response.status,
      records: response.body.data?.uploadPassengerList ?? undefined,
      warnings: response.body.extensions?.warnings ?? [],
      error: error && { code: error.extensions.code, message: error.message, details: error.extensions.details ?? [] },
    };
  }

  const pick = (records: Record<string, unknown>[] | undefined, ...fields: string[]) => records?.map((r) => fields.map((f) => r[f]));
  const where = (details: Problem[]) => details.map((d) => `${d.row_number}/${d.sheet_row}/${d.column}`);

  describe.each<Api>(['REST', 'GraphQL'])('through %s', (api) => {
    it("reads a UK list's phones as British (an Irish passenger's as Irish) and its text dates day first, without warnings", async () => {
      const answer = await upload(api, fixture('uk-list.xlsx'));
      expect(answer.error).toBeUndefined();
      expect(pick(answer.records, 'surname', 'date_born', 'scadenza', 'phone')).toEqual([
        ['SMITH', '1980-05-17', '2031-06-05', '+447911123456'],
        ['JONES', '1984-06-05', '2030-11-23', '+442079460958'],
        ['MURPHY', '1990-03-02', '2032-02-01', '+353871234567'],
      ]);
      expect(answer.warnings).toEqual([]);
    });

    it("reads a US list month first where a column proves it, and refuses a number valid in none of the passenger's countries, naming the cell", async () => {
      const answer = await upload(api, fixture('us-list.xlsx'));
      expect(answer.error?.code).toBe('UNPROCESSABLE');
      expect(where(answer.error!.details)).toEqual(['3/4/Phone']);
      expect(answer.error!.details[0]).toMatchObject({
        value: '347 123 4567',
        message: 'Phone: expected a telephone number with its country code, such as +44 7911 123456, got "347 123 4567"; without a country code it was tried as a number of US (nationality, issuing state, country of birth), and is valid in none',
      });
    });

    it('reads a number through the default region the request names, with a warning saying which country was assumed', async () => {
      const answer = await upload(api, fixture('us-list.xlsx'), { defaultPhoneRegion: 'it' });
      expect(answer.error).toBeUndefined();
      expect(pick(answer.records, 'surname', 'date_born', 'scadenza', 'phone')).toEqual([
        ['JOHNSON', '1980-05-17', '2031-12-31', '+12125550123'],
        ['WILLIAMS', '1984-05-06', '2030-06-05', '+14155550132'],
        ['BROWN', '1990-11-02', '2033-03-04', '+393471234567'],
      ]);
      expect(answer.warnings).toEqual([
        'Column "Date of birth" was read month first (MM/DD/YYYY), not day first as asked: "05/17/1980" (sheet row 2) can only be read so. So were its 2 dates that read both ways, e.g. "05/06/1984" (sheet row 3) as 1984-05-06',
        'Column "Expiry date" was read month first (MM/DD/YYYY), not day first as asked: "12/31/2031" (sheet row 2) can only be read so. So were its 2 dates that read both ways, e.g. "06/05/2030" (sheet row 3) as 2030-06-05',
        `Passenger row 3 (Brown Olivia), column "Phone": "347 123 4567" is not a valid number of the passenger's US (nationality, issuing state, country of birth); read as a number of Italy (IT, the default region): +393471234567. If that is wrong, write the number with its country code`,
      ]);
    });

    it('reads a column whose dates all read both ways in the order the request names, day first by default, with a warning naming the column', async () => {
      const byDefault = await upload(api, fixture('us-ambiguous.xlsx'));
      expect(pick(byDefault.records, 'date_born', 'scadenza')).toEqual([
        ['1984-06-05', '2031-02-01'],
        ['1992-04-03', '2032-08-07'],
      ]);
      expect(byDefault.warnings).toEqual([
        'Column "Date of birth": every text date reads both day first and month first, so its 2 dates that read both ways were read day first (DD/MM/YYYY), the upload\'s date order (dateOrder DMY): "05/06/1984" (sheet row 2) is 1984-06-05. If the list is written month first, upload it again with dateOrder MDY, or write the dates as YYYY-MM-DD',
        'Column "Expiry date": every text date reads both day first and month first, so its 2 dates that read both ways were read day first (DD/MM/YYYY), the upload\'s date order (dateOrder DMY): "01/02/2031" (sheet row 2) is 2031-02-01. If the list is written month first, upload it again with dateOrder MDY, or write the dates as YYYY-MM-DD',
      ]);
      const monthFirst = await upload(api, fixture('us-ambiguous.xlsx'), { dateOrder: 'MDY' });
      expect(pick(monthFirst.records, 'date_born', 'scadenza')).toEqual([
        ['1984-05-06', '2031-01-02'],
        ['1992-03-04', '2032-07-08'],
      ]);
      expect(monthFirst.warnings).toHaveLength(2);
      expect(monthFirst.warnings[0]).toMatch(/^Column "Date of birth": .* read month first \(MM\/DD\/YYYY\), the upload's date order \(dateOrder MDY\): "05\/06\/1984" \(sheet row 2\) is 1984-05-06/);
    });

    it('refuses only the dates that contradict the rest of their column, and reads the others in its order', async () => {
      const answer = await upload(api, fixture('mixed-date-orders.xlsx'));
      expect(answer.error?.code).toBe('UNPROCESSABLE');
      expect(answer.error!.message).toBe('The passenger list has 1 problem in 1 row');
      expect(answer.error!.details).toEqual([
        {
          row_number: 2,
          sheet_row: 3,
          column: 'Date of birth',
          field: 'Date of birth',
          value: '05/17/1980',
          message:
            'Date of birth: "05/17/1980" can only be read month first (MM/DD/YYYY), while most dates of the column (2 against 1, such as "25/12/1979" in sheet row 2) can only be read day first (DD/MM/YYYY); write this date as YYYY-MM-DD (read month first it is 1980-05-17) or correct it',
        },
      ]);
    });

    it('reads a German list: dotted dates day first, German numbers, umlauts typed decomposed stored composed (NFC)', async () => {
      const answer = await upload(api, fixture('german-list.xlsx'));
      expect(answer.error).toBeUndefined();
      expect(pick(answer.records, 'surname', 'name', 'date_born', 'scadenza', 'phone')).toEqual([
        ['MÜLLER', 'JÜRGEN', '1980-05-17', '2031-06-05', '+4915123456789'],
        ['SCHRÖDER', 'KÄTHE', '1984-06-05', '2030-11-23', '+49301234567'],
      ]);
      const names = answer.records!.map((r) => `${r.surname as string}${r.name as string}`);
      expect(names.every((name) => name === name.normalize('NFC') && !/\p{M}/u.test(name))).toBe(true);
      expect(answer.warnings).toEqual([]);
    });

    it('reads a French list: real date cells whatever the date order asked, French numbers, accents stored composed', async () => {
      const answer = await upload(api, fixture('french-list.xlsx'), { dateOrder: 'MDY' });
      expect(answer.error).toBeUndefined();
      expect(pick(answer.records, 'surname', 'name', 'date_born', 'scadenza', 'phone')).toEqual([
        ['LEFÈVRE', 'HÉLÈNE', '1980-05-17', '2031-06-05', '+33612345678'],
        ['GÉRARD', 'ZOÉ', '1984-06-05', '2030-11-23', '+33142685300'],
      ]);
      expect((answer.records![0].name as string).length).toBe(6);
      expect(answer.warnings).toEqual([]);
    });

    it('reads the workbook helper’s lists by the same rules: text dates, phones, decomposed names', async () => {
      const bytes = await buildPassengerWorkbook([
        passenger({ surname: 'Lefe\u0300vre', name: 'Zoe\u0301', nazionalita: 'FRA', issuingstate: 'FRA', luogonascita: 'France', phone: '06 12 34 56 78', date_born: '05/17/1980' }),
        passenger({ surname: 'Smith', nazionalita: 'GB', issuingstate: 'GB', luogonascita: 'GB', phone: '07911 123456', date_born: '05/06/1984' }),
        passenger({ surname: 'Rossi', phone: '333 1234567', date_born: '1990-01-02' }),
      ]);
      const answer = await upload(api, bytes);
      expect(pick(answer.records, 'surname', 'name', 'date_born', 'phone')).toEqual([
        ['LEFÈVRE', 'ZOÉ', '1980-05-17', '+33612345678'],
        ['SMITH', 'MARIO', '1984-05-06', '+447911123456'],
        ['ROSSI', 'MARIO', '1990-01-02', '+393331234567'],
      ]);
      expect(answer.warnings).toEqual([expect.stringMatching(/^Column "Date of birth" was read month first/)]);
    });

    it('warns of a number read in the passenger’s country although written US-style without its national 0, and refuses one with its area code in brackets valid nowhere rather than reading it as international', async () => {
      const british = { nazionalita: 'GB', issuingstate: 'GB', luogonascita: 'GB' };
      const read = await upload(api, await buildPassengerWorkbook([passenger({ ...british, surname: 'Smith', phone: '(207) 234-5678' })]));
      expect(pick(read.records, 'surname', 'phone')).toEqual([['SMITH', '+442072345678']]);
      expect(read.warnings).toEqual([
        `Passenger row 1 (Smith Mario), column "Mobile": "(207) 234-5678" is written without the national prefix 0 of GB numbers; read as a number of the passenger's GB (nationality, issuing state, country of birth): +442072345678. If that is wrong, write the number with its country code`,
      ]);
      const french = { nazionalita: 'FR', issuingstate: 'FR', luogonascita: 'FR' };
      const refused = await upload(api, await buildPassengerWorkbook([passenger({ ...french, surname: 'Martin', phone: '(321) 234-5678' })]));
      expect(refused.status).toBe(422);
      expect(refused.error!.details[0]).toMatchObject({ value: '(321) 234-5678', message: expect.stringMatching(/tried as a number of FR \(nationality, issuing state, country of birth\), and is valid in none/) });
    });

    it('warns of date cells a month-first program may have turned in a list whose text dates are day first, and reads a column proving nothing as the other date column proves', async () => {
      // A UK list opened in a US Excel: the dates that read both ways became cells of the other reading.
      const ukInUs = await upload(api, await buildPassengerWorkbook([
        passenger({ surname: 'Smith', date_born: '17/05/1980' }),
        passenger({ surname: 'Jones', date_born: new Date(Date.UTC(1985, 2, 4)), numberdoc: 'YA7654321' }),
        passenger({ surname: 'Brown', date_born: '23/06/1990', numberdoc: 'YA7654322' }),
      ]));
      expect(pick(ukInUs.records, 'surname', 'date_born')).toEqual([['SMITH', '1980-05-17'], ['JONES', '1985-03-04'], ['BROWN', '1990-06-23']]);
      expect(ukInUs.warnings).toEqual([
        'Column "Date of birth" holds 1 date cell beside text dates that can only be read day first (DD/MM/YYYY) (such as "17/05/1980", sheet row 2): a spreadsheet program set to read dates month first turns a text such as 03/04/1985 (3 April) into a cell of 4 March, and leaves the texts it cannot read as text. The date cell was read as it is: sheet row 3 holds 1985-03-04, which the other way round is 1985-04-03. Check it, or write the dates as YYYY-MM-DD',
      ]);
      // A US list: its birth dates prove month first, its expiry dates all read both ways.
      const us = await upload(api, await buildPassengerWorkbook([passenger({ date_born: '5/17/1980', scadenza: '3/4/2030' }), passenger({ surname: 'Neri', date_born: '11/30/1975', scadenza: '6/5/2031', numberdoc: 'YA7654323' })]));
      expect(pick(us.records, 'date_born', 'scadenza')).toEqual([['1980-05-17', '2030-03-04'], ['1975-11-30', '2031-06-05']]);
      expect(us.warnings).toEqual([
        'Column "Expiry date": every text date reads both day first and month first, so its 2 dates that read both ways were read month first (MM/DD/YYYY), as column "Date of birth" of the same list is written ("5/17/1980", sheet row 2, can only be read so): "3/4/2030" (sheet row 2) is 2030-03-04. If this column is written day first, write its dates as YYYY-MM-DD',
      ]);
    });

    it('keeps the leading zeros a number format of zeros shows: a document number in 000000000, a French mobile in 0000000000', async () => {
      const french = { nazionalita: 'FR', issuingstate: 'FR', luogonascita: 'FR' };
      const bytes = await buildPassengerWorkbook(
        [passenger({ ...french, surname: 'Martin', numberdoc: 12345678, phone: 612345678 }), passenger({ surname: 'Rossi', numberdoc: 1234567 })],
        { formats: { numberdoc: '000000000', phone: '0000000000' } },
      );
      const answer = await upload(api, bytes);
      expect(answer.error).toBeUndefined();
      expect(pick(answer.records, 'surname', 'numberdoc', 'phone')).toEqual([
        ['MARTIN', '012345678', '+33612345678'],
        ['ROSSI', '001234567', '+393331234567'],
      ]);
      // 0612345678 is the French national form: no warning of a missing national prefix.
      expect(answer.warnings).toEqual([]);
    });

    it('keeps the leading zeros an .ods number cell shows', async () => {
      const float = (value: number, shown: string) => ({
        xml: `<table:table-cell office:value-type="float" office:value="${value}" calcext:value-type="float"><text:p>${shown}</text:p></table:table-cell>`,
      });
      const answer = await upload(api, buildPassengerOds([passenger({ numberdoc: float(12345678, '012345678') as never })]));
      expect(answer.error).toBeUndefined();
      expect(pick(answer.records, 'numberdoc')).toEqual([['012345678']]);
    });

    it('refuses a year in a General cell of Date of birth (422), naming the cell and how to fix it, in an .xlsx and an .ods alike', async () => {
      const message =
        'Date of birth: cell C2 holds the number 1980, which is not a date (the cell is not formatted as a date); write the date as YYYY-MM-DD (or DD/MM/YYYY), or format the cell as a date';
      for (const bytes of [await buildPassengerWorkbook([passenger({ date_born: 1980 })]), buildPassengerOds([passenger({ date_born: 1980 })])]) {
        const answer = await upload(api, bytes);
        expect(answer.status).toBe(422);
        expect(answer.error?.code).toBe('UNPROCESSABLE');
        expect(answer.records).toBeUndefined();
        expect(answer.error!.details).toEqual([{ row_number: 1, sheet_row: 2, column: 'Date of birth', field: 'Date of birth', value: 1980, message }]);
      }
    });

    it('reads a serial number in a cell formatted as a date, in the 1900 and 1904 date systems and in custom date formats; a number format with quoted text is no date', async () => {
      for (const [format, date1904, serial] of [
        ['dd/mm/yyyy', false, 29358],
        ['[$-409]m/d/yy h:mm AM/PM;@', false, 29358.25],
        ['mm-dd-yy', false, 29358],
        ['dd/mm/yyyy', true, 27896],
      ] as const) {
        const answer = await upload(api, await buildPassengerWorkbook([passenger({ date_born: serial })], { date1904, formats: { date_born: format } }));
        expect([format, date1904, answer.error, pick(answer.records, 'date_born')]).toEqual([format, date1904, undefined, [['1980-05-17']]]);
      }
      const quoted = await upload(api, await buildPassengerWorkbook([passenger({ date_born: 29358 })], { formats: { date_born: '"No. "0' } }));
      expect(quoted.error?.code).toBe('UNPROCESSABLE');
      expect(quoted.error!.details).toEqual([expect.objectContaining({ column: 'Date of birth', value: 29358, message: expect.stringMatching(/^Date of birth: cell C2 holds the number 29358, which is not a date/) })]);
    });

    it('refuses an unknown date order or default region with 400 naming the parameter', async () => {
      const bytes = fixture('uk-list.xlsx');
      const region = await upload(api, bytes, { defaultPhoneRegion: 'England' });
      expect(region.status).toBe(400);
      expect(region.error).toMatchObject({ code: 'BAD_REQUEST', details: [{ field: 'defaultPhoneRegion' }] });
      expect(region.error!.message).toMatch(/^defaultPhoneRegion must be an ISO 3166-1 alpha-2 country code/);
      const order = await upload(api, bytes, { dateOrder: 'YMD' });
      expect(order.status).toBe(400);
      expect(JSON.stringify(order.error)).toContain('dateOrder');
    });

    it('keeps the advice of a long problem message whole (up to 400 characters)', async () => {
      const bytes = await buildPassengerWorkbook([
        passenger({ surname: 'Bianchi', name: 'Giovanna', numberdoc: 'YA1111111' }),
        passenger({ surname: 'Bianchi', name: 'Luca', date_born: '2015-03-01', numberdoc: 'YA2222222', row_number_parent_id: 3 }),
      ]);
      const answer = await upload(api, bytes);
      const advice =
        "Parent row: there is no passenger row 3: the list has 2 passengers, numbered from 1 below the header (blank rows not counted). Is 3 the spreadsheet's row number? Sheet row 3 is passenger 2: write the passenger number, counted from 1 below the header";
      expect(advice.length).toBeGreaterThan(200);
      expect(answer.error!.details).toEqual([expect.objectContaining({ row_number: 2, column: 'Parent row', message: advice })]);
    });
  });
});

describe('the default phone region of a deployment (PASSENGER_DEFAULT_PHONE_REGION)', () => {
  it('must be an ISO 3166-1 alpha-2 code with a numbering plan', () => {
    const env = { NODE_ENV: 'test', JWT_SECRET: 'x'.repeat(32) };
    expect(loadConfig(env).passengerDefaultPhoneRegion).toBeUndefined();
    expect(loadConfig({ ...env, PASSENGER_DEFAULT_PHONE_REGION: 'it' }).passengerDefaultPhoneRegion).toBe('IT');
    for (const bad of ['XX', 'England', 'ITA', 'AQ']) {
      expect(() => loadConfig({ ...env, PASSENGER_DEFAULT_PHONE_REGION: bad })).toThrow(
        `Invalid configuration: PASSENGER_DEFAULT_PHONE_REGION must be an ISO 3166-1 alpha-2 country code with a telephone numbering plan (e.g. IT, GB), got "${bad}"`,
      );
    }
  });

  it("reads numbers valid in none of the passenger's countries through it, unless the upload names another", async () => {
    const testApp = await startTestApp('passenger_upload_region', { PASSENGER_DEFAULT_PHONE_REGION: 'IT' });
    try {
      await createReferenceData(testApp);
      const flightId = await createFlight(testApp, { resourceId: 1, from: 'LIRF', to: 'LGAV', departureAt: '2026-12-10T09:00:00Z', arrivalAt: '2026-12-10T11:30:00Z' });
      const writer = `Bearer ${await testApp.token(['passengers:write'])}`;
      const upload = (query: Record<string, string>) =>
        request(testApp.app)
          .post(`/api/broker/v0/upload/${flightId}`)
          .query(query)
          .set('Authorization', writer)
          .attach('paxlist', fixture('us-list.xlsx'), { filename: 'us-list.xlsx', contentType: XLSX });
      const configured = await upload({}).expect(200);
      expect(configured.body[2].phone).toBe('+393471234567');
      expect(decodeURIComponent(configured.headers['x-sheet-warnings'])).toContain('read as a number of Italy (IT, the default region): +393471234567');
      const requested = await upload({ defaultPhoneRegion: 'GB' }).expect(200);
      expect(requested.body[2].phone).toBe('+443471234567');
      expect(decodeURIComponent(requested.headers['x-sheet-warnings'])).toContain('read as a number of United Kingdom (GB, the default region): +443471234567');
    } finally {
      await testApp.close();
    }
  });
});

describe('many warnings through REST', () => {
  it('keep the X-Sheet-Warnings header small enough for HTTP clients, saying how many were left out', async () => {
    const testApp = await startTestApp('passenger_upload_many_warnings', { PASSENGER_DEFAULT_PHONE_REGION: 'IT' });
    try {
      await createReferenceData(testApp);
      const flightId = await createFlight(testApp, { resourceId: 1, from: 'LIRF', to: 'LGAV', departureAt: '2026-12-10T09:00:00Z', arrivalAt: '2026-12-10T11:30:00Z' });
      const american = { nazionalita: 'US', issuingstate: 'US', luogonascita: 'US', phone: '347 123 4567' };
      const bytes = await buildPassengerWorkbook(Array.from({ length: 150 }, (_, i) => passenger({ ...american, numberdoc: `US${100000 + i}` })));
      const response = await request(testApp.app)
        .post(`/api/broker/v0/upload/${flightId}`)
        .set('Authorization', `Bearer ${await testApp.token(['passengers:write'])}`)
        .attach('paxlist', bytes, { filename: 'list.xlsx', contentType: XLSX })
        .expect(200);
      expect(response.body).toHaveLength(150);
      const header = response.headers['x-sheet-warnings'] as string;
      expect(header.length).toBeLessThanOrEqual(6000);
      const warnings = decodeURIComponent(header).split(' | ');
      expect(warnings[0]).toMatch(/^Passenger row 1 \(Rossi Mario\), column "Mobile": "347 123 4567" .* read as a number of Italy \(IT, the default region\)/);
      // 150 warnings: the header keeps what fits and counts the rest.
      const kept = warnings.length - 1;
      expect(warnings.slice(0, kept).every((warning, i) => warning.startsWith(`Passenger row ${i + 1} (Rossi Mario)`))).toBe(true);
      expect(warnings[kept]).toBe(`… and ${150 - kept} more warnings (the GraphQL upload lists up to 100 in extensions.warnings)`);
    } finally {
      await testApp.close();
    }
  });
});
