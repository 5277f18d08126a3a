import { execFileSync, spawnSync } from 'node:child_process';
import { parse } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import { print } from 'graphql';
import pino from 'pino';
import request from 'supertest';
import { PassengerListDownloadUrlDocument, UploadPassengerListDocument } from '../../src/graphql/generated/operations';
import { PASSENGER_SHEET_COLUMNS } from '../../src/passengers/sheet/heading-aliases';
import { passengerRecord } from '../helpers/passengers';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { createFlight, createReferenceData } from '../helpers/timeline-fixtures';

/**
 * Every file format downloaded through GraphQL's signed link (passengerListDownloadUrl) and read
 * by a real consumer of the format, with the media type the OpenAPI document lists; the REST
 * paths of each format are in passenger-export, passenger-manifest-pdf and passenger-paxlst tests.
 */

// eslint-disable-next-line @typescript-eslint/no-require-imports
const Parser = require('edifact/parser.js') as new () => {
  encoding(level: string): void;
  on(event: string, listener: (data?: string) => void): void;
  write(text: string): void;
  end(): void;
};
const edifactTags = (text: string) => {
  const parser = new Parser();
  parser.encoding('UNOA');
  const tags: string[] = [];
  parser.on('opensegment', (tag) => tags.push(tag!));
  parser.write(text);
  parser.end();
  return tags;
};

const havePdftotext = spawnSync('pdftotext', ['-v']).error === undefined;
const pdfText = (pdf: Buffer) => execFileSync('pdftotext', ['-layout', '-enc', 'UTF-8', '-', '-'], { input: pdf }).toString('utf8');

const binary = (res: request.Response, callback: (error: Error | null, body: Buffer) => void) => {
  const chunks: Buffer[] = [];
  res.on('data', (chunk: Buffer) => chunks.push(chunk));
  res.on('end', () => callback(null, Buffer.concat(chunks)));
};

type Row = Record<string, unknown>;
/** Records as an upload previews them: no record ids, a parent named by its row (1 = first), from parent_id when stored. */
const comparable = (records: Row[]) =>
  records.map(({ id: _id, parent_id, row_number_parent_id, ...record }) => ({
    ...record,
    parent_row: parent_id === null || parent_id === undefined ? row_number_parent_id : records.findIndex((other) => other.id === parent_id) + 1,
  }));

describe('every export format through a GraphQL download link, read by its consumer', () => {
  let testApp: TestApp;
  let flightId: number;
  let emptyFlight: number;
  let token: string;
  let stored: Row[];
  let mediaTypes: string[];
  const logged: string[] = [];

  beforeAll(async () => {
    const logger = pino({ level: 'info' }, { write: (line: string) => logged.push(line) });
    testApp = await startTestApp('passenger_export_consumers', { PAXLST_SENDER_ID: 'BROKERGW', PAXLST_RECIPIENT_ID: 'APISPT', PAXLST_REPORTING_PARTY: 'Aquila Jet' }, { logger });
    token = await testApp.token(['passengers:read', 'timeline:read'], 'browser-user');
    await createReferenceData(testApp);
    flightId = await createFlight(testApp, { resourceId: 2, from: 'LPPT', to: 'LIRF', departureAt: '2026-12-15T08:00:00Z', arrivalAt: '2026-12-15T11:00:00Z' });
    emptyFlight = await createFlight(testApp, { resourceId: 2, from: 'LPPT', to: 'LIRF', departureAt: '2026-12-16T08:00:00Z', arrivalAt: '2026-12-16T11:00:00Z' });
    const writer = `Bearer ${await testApp.token(['passengers:write', 'passengers:read'])}`;
    const created = [
      passengerRecord(1, { surname: 'Wróbel', name: 'Łukasz', nazionalita: 'PL', numberdoc: '0012345', phone: '+48 601 234 567' }),
      passengerRecord(2, { surname: 'Nguyễn', name: 'Văn An', nazionalita: 'VN', is_carring_infant: true }),
      passengerRecord(3, { surname: 'Groß', name: 'Jürgen, Maria', gender: 'F', date_born: '2026-02-01', parent_id: 2 }),
    ];
    await request(testApp.app).post(`/api/broker/v0/flight/${flightId}/passenger`).set('Authorization', writer).send({ created, modified: [], deleted: [] }).expect(200);
    stored = (await request(testApp.app).get(`/api/broker/v0/flight/${flightId}/passenger`).set('Authorization', writer).expect(200)).body;
    const openapi = (await request(testApp.app).get('/api/broker/v0/openapi.json').expect(200)).body;
    mediaTypes = Object.keys(openapi.paths['/flight/{flight_id}/passenger'].get.responses['200'].content);
  });
  afterAll(() => testApp.close());

  /** Asks GraphQL for a link, downloads it without a token; checks the media type against OpenAPI. */
  async function download(format: string, id = flightId): Promise<{ bytes: Buffer; url: string }> {
    const { body } = await testApp.graphql(PassengerListDownloadUrlDocument, { flightId: id, format }, token);
    expect(body.errors).toBeUndefined();
    const url = new URL(body.data!.passengerListDownloadUrl.url);
    const res = await request(testApp.app).get(url.pathname + url.search).buffer(true).parse(binary).expect(200);
    expect(mediaTypes).toContain(String(res.headers['content-type']).split(';')[0]);
    return { bytes: res.body as Buffer, url: url.pathname + url.search };
  }

  it('OpenAPI lists the media type of every format', () => {
    expect(mediaTypes.sort()).toEqual(['application/edifact', 'application/json', 'application/pdf', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', 'text/csv']);
  });

  it('xlsx: exceljs reads the template’s headings and rows, and uploading it through GraphQL gives the same records', async () => {
    const { bytes } = await download('xlsx');
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(bytes as unknown as Parameters<typeof workbook.xlsx.load>[0]);
    const sheet = workbook.worksheets[0];
    expect((sheet.getRow(1).values as unknown[]).slice(1)).toEqual(PASSENGER_SHEET_COLUMNS.map((column) => column.heading));
    expect(sheet.actualRowCount).toBe(4);
    const operations = JSON.stringify({ query: print(UploadPassengerListDocument), variables: { flightId, file: null } });
    const upload = await request(testApp.app)
      .post('/graphql')
      .set('Authorization', `Bearer ${await testApp.token(['passengers:write'])}`)
      .set('Apollo-Require-Preflight', 'true')
      .field('operations', operations)
      .field('map', JSON.stringify({ 0: ['variables.file'] }))
      .attach('0', bytes, { filename: 'export.xlsx', contentType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet' })
      .expect(200);
    expect(upload.body.errors).toBeUndefined();
    expect(comparable(upload.body.data.uploadPassengerList)).toEqual(comparable(stored));
    expect(comparable(stored)[2].parent_row).toBe(2);
  });

  it('csv: a CSV parser reads the same columns and values', async () => {
    const { bytes } = await download('csv');
    const rows: Record<string, string>[] = parse(bytes, { bom: true, columns: true });
    expect(Object.keys(rows[0])).toEqual(PASSENGER_SHEET_COLUMNS.map((column) => column.heading));
    expect(rows.map((row) => [row.Surname, row.Name, row['Document number'], row['Carrying infant'], row['Parent row']])).toEqual([
      ['WRÓBEL', 'ŁUKASZ', '0012345', 'no', ''],
      ['NGUYỄN', 'VĂN AN', 'YA1000002', 'yes', ''],
      [stored[2].surname, stored[2].name, 'YA1000003', 'no', '2'],
    ]);
  });

  (havePdftotext ? it : it.skip)('pdf: pdftotext reads the manifest with every name intact', async () => {
    const text = pdfText((await download('pdf')).bytes);
    expect(text).toContain('PASSENGER MANIFEST');
    for (const name of ['WRÓBEL', 'ŁUKASZ', 'NGUYỄN', 'VĂN AN', String(stored[2].surname)]) expect(text).toContain(name);
    expect(text).toMatch(/page 1 of 1/);
  });

  it('paxlst: the EDIFACT parser reads the interchange', async () => {
    const tags = edifactTags((await download('paxlst')).bytes.toString('latin1'));
    expect(tags.filter((tag) => tag === 'NAD')).toHaveLength(4);
    expect(tags.slice(0, 3)).toEqual(['UNB', 'UNG', 'UNH']);
    expect(tags.slice(-4)).toEqual(['CNT', 'UNT', 'UNE', 'UNZ']);
  });

  it('a flight without a list gives each format with its header and no passenger', async () => {
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load((await download('xlsx', emptyFlight)).bytes as unknown as Parameters<typeof workbook.xlsx.load>[0]);
    expect(workbook.worksheets[0].actualRowCount).toBe(1);
    expect(parse((await download('csv', emptyFlight)).bytes, { bom: true, columns: true })).toEqual([]);
    if (havePdftotext) expect(pdfText((await download('pdf', emptyFlight)).bytes)).toContain('No passengers on the list.');
    const paxlst = (await download('paxlst', emptyFlight)).bytes.toString('latin1');
    expect(paxlst).toContain("CNT+42:0'");
    expect(edifactTags(paxlst).filter((tag) => tag === 'NAD')).toHaveLength(1);
  });

  it('the link’s signature never reaches the log', async () => {
    const { url } = await download('csv');
    const signature = new URLSearchParams(url.split('?')[1]).get('signature')!;
    expect(signature.length).toBeGreaterThan(20);
    const lines = logged.filter((line) => line.includes('format=csv'));
    expect(lines.length).toBeGreaterThan(0);
    expect(logged.some((line) => line.includes(signature))).toBe(false);
    expect(lines.some((line) => line.includes('signature=[redacted]'))).toBe(true);
  });
});
