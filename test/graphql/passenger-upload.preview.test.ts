import request from 'supertest';
import { buildPassengerWorkbook, buildWorkbook, cellsOf, ENGLISH_HEADINGS, FIELDS, passenger } from '../helpers/passenger-workbook';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { createFlight, createReferenceData } from '../helpers/timeline-fixtures';

const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

const PREVIEW = /* GraphQL */ `
  mutation Preview($flightId: Int!, $file: Upload!, $options: PassengerUploadOptionsInput) {
    previewPassengerUpload(flightId: $flightId, file: $file, options: $options) {
      records { row_number surname date_born phone }
      problems { sheetRow rowNumber column heading field value message suggestion }
      problemCount
      mapping { column heading field match }
      unknownHeadings { column heading didYouMean }
      options { dateOrder defaultPhoneRegion hiddenRows }
      warnings
    }
  }
`;

/** previewPassengerUpload through the GraphQL multipart request spec, against the real app. */
describe('previewPassengerUpload over GraphQL', () => {
  let testApp: TestApp;
  let writer: string;
  let reader: string;
  let flightId: number;

  beforeAll(async () => {
    testApp = await startTestApp('passenger_upload_preview');
    writer = `Bearer ${await testApp.token(['passengers:write'])}`;
    reader = `Bearer ${await testApp.token(['passengers:read'])}`;
    await createReferenceData(testApp);
    flightId = await createFlight(testApp, { resourceId: 1, from: 'LIRF', to: 'LGAV', departureAt: '2026-12-10T09:00:00Z', arrivalAt: '2026-12-10T11:30:00Z' });
  });
  afterAll(() => testApp.close());

  async function preview(bytes: Buffer, options?: Record<string, unknown>, token = writer) {
    const operations = { query: PREVIEW, variables: { flightId, file: null, ...(options ? { options } : {}) } };
    return request(testApp.app)
      .post('/graphql')
      .set('Authorization', token)
      .set('Apollo-Require-Preflight', 'true')
      .field('operations', JSON.stringify(operations))
      .field('map', JSON.stringify({ 0: ['variables.file'] }))
      .attach('0', bytes, { filename: 'list.xlsx', contentType: XLSX });
  }

  /** Three passengers: a date on the minority order, a bad phone, a misspelled optional heading. */
  function messyList(): Promise<Buffer> {
    const headings = FIELDS.map((field) => (field === 'email' ? 'Emal' : ENGLISH_HEADINGS[field]));
    headings.push('Notes');
    const rows = [
      passenger({ surname: 'Rossi', date_born: '17/05/1980' }),
      passenger({ surname: 'Bianchi', date_born: '05/25/1984' }),
      passenger({ surname: 'Verdi', date_born: '23/11/1990', phone: '12' }),
      passenger({ surname: 'Neri', date_born: '02/03/1970', nazionalita: 'Deutchland' }),
    ].map((row) => [...cellsOf(row), 'vegetarian']);
    return buildWorkbook({ headings, rows });
  }

  it('answers the clean rows, every problem with its cell and a suggestion, the mapping and the unknown headings', async () => {
    const response = await preview(await messyList());
    expect(response.body.errors).toBeUndefined();
    const answer = response.body.data.previewPassengerUpload;
    expect(answer.records.map((r: { surname: string; date_born: string }) => [r.surname, r.date_born])).toEqual([['ROSSI', '1980-05-17']]);
    expect(answer.problemCount).toBe(3);
    const [date, phone, country] = answer.problems;
    expect(country).toMatchObject({ sheetRow: 5, rowNumber: 4, column: 'E', heading: 'Nationality', field: 'nazionalita', value: 'Deutchland', suggestion: 'DE' });
    expect(date).toMatchObject({ sheetRow: 3, rowNumber: 2, column: 'C', heading: 'Date of birth', field: 'date_born', value: '05/25/1984', suggestion: '1984-05-25' });
    expect(phone).toMatchObject({ sheetRow: 4, rowNumber: 3, column: 'K', heading: 'Mobile', field: 'phone', value: '12', suggestion: null });
    expect(phone.message).toMatch(/^Mobile: /);
    expect(answer.mapping[0]).toEqual({ column: 'A', heading: 'Surname', field: 'surname', match: 'EXACT' });
    expect(answer.mapping.find((m: { field: string }) => m.field === 'name')).toEqual({ column: 'B', heading: 'First name', field: 'name', match: 'ALIAS' });
    expect(answer.mapping.some((m: { field: string }) => m.field === 'email')).toBe(false);
    expect(answer.unknownHeadings).toEqual([
      { column: 'J', heading: 'Emal', didYouMean: 'email' },
      { column: 'O', heading: 'Notes', didYouMean: null },
    ]);
    expect(answer.options).toEqual({ dateOrder: 'DMY', defaultPhoneRegion: null, hiddenRows: 'SKIP' });
    expect(answer.warnings).toContain('Column J "Emal" is not a passenger field and was ignored');
  });

  it('reads with the options given and answers them as in force', async () => {
    const bytes = await buildPassengerWorkbook([passenger({ date_born: '05/06/1980' })]);
    const answer = (await preview(bytes, { dateOrder: 'MDY', defaultPhoneRegion: 'gb', hiddenRows: 'IMPORT' })).body.data.previewPassengerUpload;
    expect(answer.options).toEqual({ dateOrder: 'MDY', defaultPhoneRegion: 'GB', hiddenRows: 'IMPORT' });
    expect(answer.records).toEqual([{ row_number: 1, surname: 'ROSSI', date_born: '1980-05-06', phone: '+393331234567' }]);
    expect(answer.problems).toEqual([]);
  });

  it('still refuses a file that is no list, and a caller without passengers:write', async () => {
    const notSheet = await preview(Buffer.from('%PDF-1.4 not a spreadsheet'));
    expect(notSheet.body.data ?? null).toBeNull();
    expect(notSheet.body.errors[0].extensions.code).toBe('UNSUPPORTED_MEDIA_TYPE');
    const forbidden = await preview(await buildPassengerWorkbook([passenger()]), undefined, reader);
    expect(forbidden.body.data ?? null).toBeNull();
    expect(forbidden.body.errors[0].extensions.code).toBe('FORBIDDEN');
    const badRegion = await preview(await buildPassengerWorkbook([passenger()]), { defaultPhoneRegion: 'Narnia' });
    expect(badRegion.body.errors[0].extensions.code).toBe('BAD_REQUEST');
  });

  describe('with the client\'s decisions', () => {
    /** A US list with a misspelled Surname heading, a foreign country name and a bad phone number. */
    function usList(): Promise<Buffer> {
      const headings = FIELDS.map((field) => (field === 'surname' ? 'Surnme' : ENGLISH_HEADINGS[field]));
      const rows = [
        passenger({ surname: 'Smith', date_born: '05/25/1984' }),
        passenger({ surname: 'Müller', date_born: '12/31/1990', nazionalita: 'Deutschland', issuingstate: 'Allemagne' }),
        passenger({ surname: 'Jones', date_born: '05/06/1980', phone: '12' }),
        passenger({ surname: 'Brown', date_born: '17/03/1975' }),
      ].map((row) => cellsOf(row));
      return buildWorkbook({ headings, rows });
    }

    it('first answers what to decide, then reads every row once the mapping and corrections are given', async () => {
      const bytes = await usList();
      const first = (await preview(bytes)).body;
      expect(first.errors).toBeUndefined();
      const look = first.data.previewPassengerUpload;
      expect(look.unknownHeadings).toEqual([{ column: 'A', heading: 'Surnme', didYouMean: 'surname' }]);
      expect(look.records).toEqual([]);
      const byCell = (problem: { sheetRow: number; column: string | null; field: string | null }) => `${problem.sheetRow}/${problem.column}/${problem.field}`;
      const cells = look.problems.map(byCell);
      expect(cells[0]).toBe('1/null/surname');
      expect(look.problems[0].message).toMatch(/^Required column "Surname" is missing/);
      expect(cells.slice(1).sort()).toEqual(['3/null/surname', '4/K/phone', '4/null/surname', '5/C/date_born', '5/null/surname', '2/null/surname'].sort());
      const date = look.problems.find((problem: { field: string }) => problem.field === 'date_born');
      expect(date).toMatchObject({ sheetRow: 5, value: '17/03/1975', suggestion: '1975-03-17' });

      const second = (
        await preview(bytes, {
          dateOrder: 'MDY',
          defaultPhoneRegion: 'US',
          columns: [{ column: 'A', field: 'surname' }],
          corrections: [
            { sheetRow: 5, column: 'C', value: date.suggestion },
            { sheetRow: 4, column: 'K', value: '+44 7911 123456' },
          ],
        })
      ).body;
      expect(second.errors).toBeUndefined();
      const read = second.data.previewPassengerUpload;
      expect(read.problems).toEqual([]);
      expect(read.problemCount).toBe(0);
      expect(read.records.map((r: { surname: string; date_born: string; phone: string }) => [r.surname, r.date_born, r.phone])).toEqual([
        ['SMITH', '1984-05-25', '+393331234567'],
        ['MÜLLER', '1990-12-31', '+393331234567'],
        ['JONES', '1980-05-06', '+447911123456'],
        ['BROWN', '1975-03-17', '+393331234567'],
      ]);
      expect(read.mapping[0]).toEqual({ column: 'A', heading: 'Surnme', field: 'surname', match: 'CLIENT' });
      expect(read.unknownHeadings).toEqual([]);
      // Country names in other languages are read, each with a warning that names the reading.
      expect(read.warnings).toEqual([
        'Passenger row 2 (Müller Mario), column "Nationality": "Deutschland" was read as DE (Germany), its German name',
        'Passenger row 2 (Müller Mario), column "Issuing country": "Allemagne" was read as DE (Germany), its French name',
      ]);
      expect(read.options).toEqual({ dateOrder: 'MDY', defaultPhoneRegion: 'US', hiddenRows: 'SKIP' });
    });

    it('maps by heading, ignores a column on request, and warns of a correction that falls on no passenger column', async () => {
      const bytes = await buildPassengerWorkbook([passenger()]);
      const answer = (
        await preview(bytes, {
          columns: [{ heading: 'e-mail', field: null }],
          corrections: [{ sheetRow: 2, column: 'Z', value: 'x' }],
        })
      ).body.data.previewPassengerUpload;
      expect(answer.mapping.some((m: { field: string }) => m.field === 'email')).toBe(false);
      expect(answer.records).toHaveLength(1);
      expect(answer.warnings).toEqual(
        expect.arrayContaining(['Column J "E-mail" was ignored, as the mapping asked', 'The correction of cell Z2 was not used: column Z is not read as a passenger field']),
      );
    });

    it('refuses a mapping to an unknown field, or an entry naming no column, with a 400 naming the input', async () => {
      const bytes = await buildPassengerWorkbook([passenger()]);
      const unknown = (await preview(bytes, { columns: [{ column: 'A', field: 'shoe_size' }] })).body.errors[0];
      expect(unknown.extensions.code).toBe('BAD_REQUEST');
      expect(unknown.message).toMatch(/^options\.columns\[0\]\.field must be a passenger field/);
      const neither = (await preview(bytes, { columns: [{ field: 'surname' }] })).body.errors[0];
      expect(neither.message).toBe('options.columns[0] must name either a column (its letter) or a heading, not neither');
      const badLetter = (await preview(bytes, { corrections: [{ sheetRow: 2, column: 'A1', value: 'x' }] })).body.errors[0];
      expect(badLetter.message).toMatch(/^options\.corrections\[0\]\.column must be a column letter/);
    });
  });

  it('reads country names in other languages in the REST upload too, each with a warning naming the reading', async () => {
    const bytes = await buildPassengerWorkbook([passenger({ luogonascita: 'Alemania', nazionalita: 'Германия', issuingstate: 'Suisse' })]);
    const response = await request(testApp.app)
      .post(`/api/broker/v0/upload/${flightId}`)
      .set('Authorization', writer)
      .attach('paxlist', bytes, { filename: 'list.xlsx', contentType: XLSX });
    expect(response.status).toBe(200);
    expect(response.body.map((r: Record<string, string>) => [r.luogonascita, r.nazionalita, r.issuingstate])).toEqual([['DE', 'DE', 'CH']]);
    expect(decodeURIComponent(response.headers['x-sheet-warnings'] as string).split(' | ')).toEqual([
      'Passenger row 1 (Rossi Mario), column "Country of birth": "Alemania" was read as DE (Germany), its Spanish name',
      'Passenger row 1 (Rossi Mario), column "Nationality": "Германия" was read as DE (Germany), its Russian name',
      'Passenger row 1 (Rossi Mario), column "Issuing country": "Suisse" was read as CH (Switzerland), its French name',
    ]);
  });
});
