import { readFileSync } from 'node:fs';
import path from 'node:path';
import { print } from 'graphql';
import request from 'supertest';
import { UploadPassengerListDocument } from '../../src/graphql/generated/operations';
import { buildPassengerCsv, buildPassengerOds } from '../helpers/passenger-formats';
import { buildPassengerWorkbook, parsedPassenger, passenger } from '../helpers/passenger-workbook';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { createFlight, createReferenceData } from '../helpers/timeline-fixtures';

/** CSV and .ods uploads through both APIs, whatever type the client declares for the file. */
const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
const ODS = 'application/vnd.oasis.opendocument.spreadsheet';
const fixture = (name: string) => readFileSync(path.join(__dirname, '../fixtures/passengers', name));

interface Sent {
  status: number;
  /** The records (REST body, GraphQL data), or undefined when refused. */
  records?: { surname: string; name: string; row_number: number }[];
  /** The refusal: code, message, details (REST error, GraphQL extensions). */
  error?: { code: string; message: string; details: { row_number?: number; sheet_row?: number; column?: string; value?: unknown }[] };
  warnings: string[];
}

describe('uploading CSV and .ods passenger lists', () => {
  let testApp: TestApp;
  let writer: string;
  let flightId: number;

  beforeAll(async () => {
    testApp = await startTestApp('passenger_upload_formats');
    writer = `Bearer ${await testApp.token(['passengers:write'])}`;
    await createReferenceData(testApp);
    flightId = await createFlight(testApp, { resourceId: 1, from: 'LIRF', to: 'LGAV', departureAt: '2026-12-10T09:00:00Z', arrivalAt: '2026-12-10T11:30:00Z' });
  });
  afterAll(() => testApp.close());

  async function rest(bytes: Buffer, filename: string, contentType: string): Promise<Sent> {
    const response = await request(testApp.app).post(`/api/broker/v0/upload/${flightId}`).set('Authorization', writer).attach('paxlist', bytes, { filename, contentType });
    const header = response.headers['x-sheet-warnings'] as string | undefined;
    const warnings = header ? decodeURIComponent(header).split(' | ') : [];
    return response.status === 200 ? { status: 200, records: response.body, warnings } : { status: response.status, error: response.body.error, warnings };
  }

  async function graphql(bytes: Buffer, filename: string, contentType: string): Promise<Sent> {
    const operations = JSON.stringify({ query: print(UploadPassengerListDocument), variables: { flightId, file: null } });
    const response = await request(testApp.app)
      .post('/graphql')
      .set('Authorization', writer)
      .field('operations', operations)
      .field('map', JSON.stringify({ 0: ['variables.file'] }))
      .attach('0', bytes, { filename, contentType });
    const warnings = (response.body.extensions?.warnings as string[] | undefined) ?? [];
    if (!response.body.errors) return { status: response.status, records: response.body.data.uploadPassengerList, warnings };
    const [error] = response.body.errors as { message: string; extensions: { code: string; http?: { status: number }; details: NonNullable<Sent['error']>['details'] } }[];
    return { status: error.extensions.http?.status ?? response.status, error: { code: error.extensions.code, message: error.message, details: error.extensions.details }, warnings };
  }

  const both = async (bytes: Buffer, filename: string, contentType: string) => [await rest(bytes, filename, contentType), await graphql(bytes, filename, contentType)];
  const names = (sent: Sent) => sent.records?.map((r) => [r.surname, r.name, r.row_number]);

  it.each([
    ['an .ods saved by LibreOffice', 'libreoffice-list.ods', ODS],
    ['an .ods saved by Gnumeric, sent as application/octet-stream', 'gnumeric-list.ods', 'application/octet-stream'],
    ['an Excel "CSV UTF-8" sent as text/csv', 'excel-utf8-bom-comma.csv', 'text/csv'],
    ['a German Excel CSV sent as application/vnd.ms-excel (what Windows browsers declare for .csv)', 'excel-german-1252-semicolon.csv', 'application/vnd.ms-excel'],
    ['a LibreOffice CSV declared as an .xlsx', 'libreoffice-utf8-comma.csv', XLSX],
    ['an Excel "Unicode Text" (UTF-16LE with a byte order mark, tabs) sent as text/plain', 'excel-unicode-text.txt', 'text/plain'],
    ['a Gnumeric CSV (dates year first, YYYY/MM/DD) sent as text/csv', 'gnumeric-list.csv', 'text/csv'],
  ])('reads %s the same way through REST and GraphQL', async (_what, file, contentType) => {
    const [viaRest, viaGraphql] = await both(fixture(file), file, contentType);
    expect(viaRest.status).toBe(200);
    expect(names(viaRest)).toEqual([
      ['MÜLLER', 'JÜRGEN KARL', 1],
      ['DUBOIS', 'ÉLOÏSE', 2],
      ["O'NEIL", 'ANN', 3],
    ]);
    expect(viaRest.records![1]).toMatchObject({ idvolo: flightId, date_born: '1990-05-17', typedoc: 'I', numberdoc: '123456789', phone: '+33612345678' });
    expect(viaGraphql).toMatchObject({ status: 200 });
    expect(names(viaGraphql)).toEqual(names(viaRest));
    expect(viaGraphql.warnings).toEqual(viaRest.warnings);
    expect(viaRest.warnings).toContain('Column N "Notes" is not a passenger field and was ignored');
  });

  it('answers the same 422, cell by cell, for the same bad list as .xlsx, .ods and CSV, through both APIs', async () => {
    const rows = [passenger(), passenger({ surname: 'Verdi', date_born: '31/02/1990', numberdoc: 'YB1' }), passenger({ surname: 'Neri', nazionalita: 'Narnia', numberdoc: 'YB2' })];
    const text = rows.map((row) => ({ ...row, date_born: row.date_born instanceof Date ? '17/05/1980' : row.date_born, scadenza: '16/05/2031' }));
    const files: [Buffer, string, string][] = [
      [await buildPassengerWorkbook(text), 'list.xlsx', XLSX],
      [buildPassengerOds(text), 'list.ods', ODS],
      [buildPassengerCsv(text, { delimiter: ';', encoding: 'utf-8-bom' }), 'list.csv', 'text/csv'],
    ];
    const answers = [];
    for (const [bytes, filename, contentType] of files) answers.push(...(await both(bytes, filename, contentType)));
    for (const answer of answers) {
      expect(answer.status).toBe(422);
      expect(answer.error!.code).toBe('UNPROCESSABLE');
      expect(answer.error!.details.map((d) => [d.row_number, d.sheet_row, d.column, d.value])).toEqual([
        [2, 3, 'Date of birth', '31/02/1990'],
        [3, 4, 'Nationality', 'Narnia'],
      ]);
    }
  });

  it('reads a clean CSV into the same records as the .xlsx of the same list', async () => {
    const [viaRest, viaGraphql] = await both(buildPassengerCsv([passenger()]), 'list.csv', 'text/csv');
    expect(viaRest.records).toEqual([parsedPassenger(flightId)]);
    expect(viaGraphql.records).toEqual([expect.objectContaining({ surname: 'ROSSI', name: 'MARIO', row_number: 1 })]);
  });

  it('refuses an Excel 97-2003 .xls with 415 on both APIs, saying how to convert it', async () => {
    for (const answer of await both(fixture('rich-features.xls'), 'list.xls', 'application/vnd.ms-excel')) {
      expect(answer.status).toBe(415);
      expect(answer.error!.code).toBe('UNSUPPORTED_MEDIA_TYPE');
      expect(answer.error!.message).toMatch(/^The file is an Excel 97-2003 workbook \(.xls\) or a password-protected file, which cannot be read; open it in Excel or LibreOffice, use "Save as" and choose "Excel Workbook \(.xlsx\)", "ODF Spreadsheet \(.ods\)" or "CSV UTF-8"/);
    }
  });

  it('refuses a CSV whose quote is never closed with 415 naming the row, on both APIs', async () => {
    const broken = Buffer.from('Surname,First name,Date of birth\r\nRossi,"Mario,17/05/1980\r\n');
    for (const answer of await both(broken, 'list.csv', 'text/csv')) {
      expect(answer.status).toBe(415);
      expect(answer.error!.message).toMatch(/^The file cannot be read as CSV: a quoted cell that starts in row 2 is never closed/);
    }
  });
});
