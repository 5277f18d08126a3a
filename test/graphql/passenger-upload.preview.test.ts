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
      passenger({ surname: 'Neri', date_born: '02/03/1970' }),
    ].map((row) => [...cellsOf(row), 'vegetarian']);
    return buildWorkbook({ headings, rows });
  }

  it('answers the clean rows, every problem with its cell and a suggestion, the mapping and the unknown headings', async () => {
    const response = await preview(await messyList());
    expect(response.body.errors).toBeUndefined();
    const answer = response.body.data.previewPassengerUpload;
    expect(answer.records.map((r: { surname: string; date_born: string }) => [r.surname, r.date_born])).toEqual([
      ['ROSSI', '1980-05-17'],
      ['NERI', '1970-03-02'],
    ]);
    expect(answer.problemCount).toBe(2);
    const [date, phone] = answer.problems;
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
});
