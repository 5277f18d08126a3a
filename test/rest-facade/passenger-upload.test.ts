import { Agent, type Server } from 'node:http';
import type { Socket } from 'node:net';
import { print } from 'graphql';
import request from 'supertest';
import { PassengerListDocument, PassengerTemplateUrlDocument, UploadPassengerListDocument } from '../../src/graphql/generated/operations';
import { buildPassengerWorkbook, buildWorkbook, ENGLISH_HEADINGS, FIELDS, cellsOf, parsedPassenger, passenger } from '../helpers/passenger-workbook';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { createFlight, createReferenceData } from '../helpers/timeline-fixtures';
import {
  BOUNDARY_B,
  UNCLOSED_FILE_PART,
  abandonUpload,
  answerWithoutBody,
  postRaw,
  restForm,
  restUploadHeaders,
  streamUntilAnswered,
  workbookOfSize,
  type Target,
} from '../helpers/upload-requests';
import { TRANSPORT_LINGER_MAX_BYTES, startUploadTransportApp, type UploadTransportApp } from '../helpers/upload-transport-app';

const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
/** The detail of every 400 for a multipart body the reader cannot read. */
const UNREADABLE_FORM = { field: 'body', message: 'expected a complete multipart/form-data body: the boundary its Content-Type names, the file in the field "paxlist", then the closing boundary' };

describe('POST /api/broker/v0/upload/<id>', () => {
  let testApp: TestApp;
  let writer: string;
  let flightId: number;

  beforeAll(async () => {
    testApp = await startTestApp('passenger_upload', { UPLOAD_MAX_BYTES: '200000' });
    writer = `Bearer ${await testApp.token(['passengers:write', 'passengers:read', 'timeline:read'])}`;
    await createReferenceData(testApp);
    flightId = await createFlight(testApp, { resourceId: 1, from: 'LIRF', to: 'LGAV', departureAt: '2026-12-10T09:00:00Z', arrivalAt: '2026-12-10T11:30:00Z' });
  });
  afterAll(() => testApp.close());

  const upload = (id: number | string, bytes: Buffer, filename = 'paxlist.xlsx', field = 'paxlist') =>
    request(testApp.app).post(`/api/broker/v0/upload/${id}`).set('Authorization', writer).attach(field, bytes, { filename, contentType: XLSX });

  it('answers the parsed records in row order, with id null, idvolo the flight and row numbers from 1', async () => {
    const bytes = await buildPassengerWorkbook([
      passenger(),
      passenger({ surname: 'Bianchi', name: ' anna  maria ', gender: 'F', email: null, phone: null, is_carring_infant: 'sì' }),
      passenger({ surname: 'Bianchi', name: 'Luca', date_born: '2026-02-01', row_number_parent_id: 2, numberdoc: 'YB7654321' }),
    ]);
    const response = await upload(flightId, bytes).expect(200);
    expect(response.body).toHaveLength(3);
    expect(response.body[0]).toEqual(parsedPassenger(flightId));
    expect(response.body[1]).toMatchObject({ name: 'ANNA MARIA', email: null, phone: null, is_carring_infant: true, row_number: 2 });
    expect(response.body[2]).toMatchObject({ row_number_parent_id: 2, row_number: 3 });
    // Nothing is stored by an upload.
    const list = await testApp.graphql(PassengerListDocument, { flightId });
    expect(list.body.data!.passengerList.passengers).toEqual([]);
  });

  it('refuses a workbook whose second sheet holds another list (naming both sheets) instead of dropping it, and reads one whose later sheet has a header and no passengers, with a warning', async () => {
    const header = FIELDS.map((field) => ENGLISH_HEADINGS[field]);
    const twoLists = await buildPassengerWorkbook([passenger({ surname: 'Smith' })], {
      sheetName: 'Outbound 14 Nov',
      sheetsAfter: [{ name: 'Notes', rows: [['Catering: 2 vegetarian']] }, { name: 'Return 21 Nov', rows: [['Return leg'], header, [], cellsOf(passenger({ surname: 'Jones' }))] }],
    });
    const refused = await upload(flightId, twoLists).expect(422);
    expect(refused.body.error.message).toBe(
      'The workbook holds passenger lists on two sheets: "Outbound 14 Nov" (header in row 1) and "Return 21 Nov" (header in row 2, a passenger in row 4). Upload one list per flight: save each sheet as a file of its own, or delete the other sheet',
    );
    const templateAfter = await buildPassengerWorkbook([passenger()], { sheetsAfter: [{ name: 'Blank', rows: [header] }, { name: 'Old', state: 'hidden', rows: [header, cellsOf(passenger())] }] });
    const read = await upload(flightId, templateAfter).expect(200);
    expect(read.body).toHaveLength(1);
    expect(decodeURIComponent(read.headers['x-sheet-warnings'])).toContain('Sheet "Blank" has a passenger header (row 1) but no passengers below it; it was not read');
  });

  it('refuses a block merged across Surname and First name (one value cannot fill two fields), and reads one country merged across the country columns as each', async () => {
    const acrossNames = await buildPassengerWorkbook([passenger({ surname: 'Smith John', name: null }), passenger({ surname: 'Bianchi' })], { merges: ['A2:B2'] });
    const refused = await upload(flightId, acrossNames).expect(422);
    expect(refused.body.error.details).toEqual([
      expect.objectContaining({ sheet_row: 2, message: 'cells A2:B2 are merged across the columns "Surname", "First name": one value cannot fill two fields; unmerge them and write each value in its own column' }),
    ]);
    // Country of birth (D) and Nationality (E): one country for both.
    const acrossCountries = await buildPassengerWorkbook([passenger({ luogonascita: 'Germany', nazionalita: null })], { merges: ['D2:E2'] });
    const read = await upload(flightId, acrossCountries).expect(200);
    expect(read.body[0]).toMatchObject({ luogonascita: 'DE', nazionalita: 'DE' });
  });

  it("judges a linked passenger's age on the flight's departure day, not today", async () => {
    // Born 2008-12-01: 17 on the day this suite runs in late 2026, 18 on the flight's 2026-12-10.
    const bytes = await buildPassengerWorkbook([passenger(), passenger({ name: 'Luca', date_born: '2008-12-01', row_number_parent_id: 1, numberdoc: 'YB7654329' })]);
    const response = await upload(flightId, bytes).expect(422);
    expect(JSON.stringify(response.body.error.details)).toContain('18 years old at departure (2026-12-10)');
  });

  it('reports every bad cell with 422, naming row, sheet row and column', async () => {
    const bytes = await buildPassengerWorkbook([passenger(), passenger({ date_born: '31/02/1990', email: 'nope' }), passenger({ nazionalita: 'Narnia' })], { titleRows: [['Passenger list — December charter']] });
    const response = await upload(flightId, bytes).expect(422);
    expect(response.body.error.code).toBe('UNPROCESSABLE');
    const where = response.body.error.details.map((d: { row_number: number; sheet_row: number; column: string }) => `${d.row_number}/${d.sheet_row}/${d.column}`);
    expect(where).toEqual(['2/4/Date of birth', '2/4/E-mail', '3/5/Nationality']);
  });

  it('lists ignored columns in X-Sheet-Warnings', async () => {
    const bytes = await buildWorkbook({ headings: [...FIELDS.map((f) => ENGLISH_HEADINGS[f]), 'Seat preference'], rows: [[...cellsOf(passenger()), 'window']] });
    const response = await upload(flightId, bytes).expect(200);
    expect(decodeURIComponent(response.headers['x-sheet-warnings'])).toContain('Seat preference');
  });

  it('refuses what is not a usable upload with 400, 404, 413 or 415', async () => {
    const good = await buildPassengerWorkbook([passenger()]);
    await upload(999999, good).expect(404);
    await upload('abc', good).expect(400);
    const notMultipart = await request(testApp.app).post(`/api/broker/v0/upload/${flightId}`).set('Authorization', writer).set('Content-Type', XLSX).send(good).expect(400);
    expect(notMultipart.body.error.message).toContain('multipart/form-data');
    const wrongField = await upload(flightId, good, 'paxlist.xlsx', 'file').expect(400);
    expect(wrongField.body.error.message).toContain('paxlist');
    const pdf = await upload(flightId, Buffer.from('%PDF-1.7\n%âãÏÓ\n1 0 obj'), 'paxlist.pdf').expect(415);
    expect(pdf.body.error.message).toMatch(/^The file is a PDF document, not a spreadsheet\. A passenger list is read from an \.xlsx or \.ods workbook or a CSV file/);
    await upload(flightId, Buffer.alloc(300_000, 1)).expect(413);
  });

  it('needs passengers:write', async () => {
    const good = await buildPassengerWorkbook([passenger()]);
    await request(testApp.app).post(`/api/broker/v0/upload/${flightId}`).attach('paxlist', good, 'paxlist.xlsx').expect(401);
    const reader = await testApp.token(['passengers:read']);
    await request(testApp.app).post(`/api/broker/v0/upload/${flightId}`).set('Authorization', `Bearer ${reader}`).attach('paxlist', good, 'paxlist.xlsx').expect(403);
  });

  it('serves the template without a token, and the template parses as one valid passenger', async () => {
    const template = await request(testApp.app).get('/api/broker/v0/upload/template.xlsx').buffer(true).parse((res, done) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => done(null, Buffer.concat(chunks)));
    }).expect(200);
    expect(template.headers['content-type']).toBe(XLSX);
    const parsed = await upload(flightId, template.body as Buffer).expect(200);
    expect(parsed.body).toHaveLength(1);
    const url = await testApp.graphql(PassengerTemplateUrlDocument, {});
    expect(url.body.data!.passengerTemplateUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/broker\/v0\/upload\/template\.xlsx$/);
  });

  it('takes the same upload through GraphQL multipart with the token alone', async () => {
    const bytes = await buildPassengerWorkbook([passenger(), passenger({ surname: 'Verdi', numberdoc: 'YC1112223' })]);
    const operations = JSON.stringify({ query: print(UploadPassengerListDocument), variables: { flightId, file: null } });
    const send = () =>
      request(testApp.app).post('/graphql').set('Authorization', writer).field('operations', operations).field('map', JSON.stringify({ 0: ['variables.file'] })).attach('0', bytes, 'list.xlsx');
    // A bearer token is no ambient credential, so no CSRF preflight header is needed (README, GraphQL).
    for (const response of [await send().expect(200), await send().set('Apollo-Require-Preflight', 'true').expect(200)]) {
      expect(response.body.data.uploadPassengerList.map((p: { surname: string; row_number: number }) => [p.surname, p.row_number])).toEqual([['ROSSI', 1], ['VERDI', 2]]);
    }
  });
});

describe('POST /api/broker/v0/upload/<id>: the transport', () => {
  const LIMIT = 200_000;
  let setup: UploadTransportApp;
  let testApp: TestApp;
  let server: Server;
  let port: number;
  let writer: string;
  let flightId: number;

  beforeAll(async () => {
    setup = await startUploadTransportApp('upload_transport', LIMIT);
    ({ testApp, server, port, writer, flightId } = setup);
  });
  afterAll(() => setup.close());
  afterEach(() => expect(setup.uncaught).toEqual([]));

  const target = (token = writer, contentType?: string): Target => ({
    port,
    path: `/api/broker/v0/upload/${flightId}`,
    headers: { ...restUploadHeaders(token), ...(contentType ? { 'Content-Type': contentType } : {}) },
  });

  it('answers 400 naming the multipart problem when the file part never closes, and keeps serving', async () => {
    const answer = await postRaw(target(writer, BOUNDARY_B), UNCLOSED_FILE_PART);
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({
      error: { code: 'BAD_REQUEST', message: 'The multipart body cannot be read: Unexpected end of form', details: [UNREADABLE_FORM] },
    });
    const good = await postRaw(target(), restForm(await buildPassengerWorkbook([passenger()])));
    expect(good.status).toBe(200);
  });

  it('names the body in the 400 of a multipart body without a boundary, and the paxlist field in that of an empty file', async () => {
    const noBoundary = await postRaw(target(writer, 'multipart/form-data'), restForm(await buildPassengerWorkbook([passenger()])));
    expect(noBoundary.status).toBe(400);
    expect(noBoundary.body.error).toEqual({ code: 'BAD_REQUEST', message: 'The multipart body cannot be read: Multipart: Boundary not found', details: [UNREADABLE_FORM] });
    const empty = await request(testApp.app).post(`/api/broker/v0/upload/${flightId}`).set('Authorization', `Bearer ${writer}`).attach('paxlist', Buffer.alloc(0), 'e.xlsx').expect(400);
    expect(empty.body.error).toEqual({
      code: 'BAD_REQUEST',
      message: 'The uploaded file is empty',
      details: [{ field: 'paxlist', message: 'expected a passenger list (.xlsx, .ods or CSV) with at least its heading row, got a file of 0 bytes' }],
    });
  });

  it('refuses a token without passengers:write with 403 before reading the body', async () => {
    const reader = await testApp.token(['timeline:read']);
    const answer = await answerWithoutBody(target(reader), 150_000, Buffer.from('--upload-boundary-7f1c\r\n'));
    expect(answer.status).toBe(403);
    expect(answer.headers['www-authenticate']).toBe('Bearer realm="broker", error="insufficient_scope", scope="passengers:write"');
    expect(answer.body.error.code).toBe('FORBIDDEN');
  });

  it('refuses a bad flight id or query parameter with its 400 before reading the body', async () => {
    // Each declares a body the limits allow and sends only its start: the answer can only come if it was decided without the body.
    const head = restForm(Buffer.alloc(0), { closed: false });
    const refusals: Array<[string, string]> = [
      ['/api/broker/v0/upload/0', 'path parameter id must be a positive integer, got "0"'],
      ['/api/broker/v0/upload/abc', 'path parameter id must be a positive integer, got "abc"'],
      [`/api/broker/v0/upload/${flightId}?hiddenRows=zz`, 'query parameter hiddenRows must be SKIP or IMPORT, got "zz"'],
      [`/api/broker/v0/upload/${flightId}?foo=1`, 'unknown query parameter "foo": this route accepts hiddenRows, dateOrder, defaultPhoneRegion'],
      [`/api/broker/v0/upload/${flightId}?hiddenRows=skip&hiddenRows=import`, 'query parameter "hiddenRows" must be given once, as a plain value'],
      [`/api/broker/v0/upload/${flightId}?dateOrder=ymd`, 'query parameter dateOrder must be DMY (day first, 05/06/1980 is 5 June) or MDY (month first, 6 May), got "ymd"'],
      [`/api/broker/v0/upload/${flightId}?defaultPhoneRegion=ZZ`, 'defaultPhoneRegion must be an ISO 3166-1 alpha-2 country code such as GB, US, DE or FR, got "ZZ"'],
    ];
    for (const [path, message] of refusals) {
      const answer = await answerWithoutBody({ ...target(), path }, LIMIT, head);
      expect({ path, status: answer.status, connection: answer.headers.connection, error: answer.body.error }).toEqual({
        path,
        status: 400,
        // An answer before the body: the connection closes once the rest has been dropped (src/http/lingering-close.ts).
        connection: 'close',
        error: expect.objectContaining({ code: 'BAD_REQUEST', message }),
      });
    }
    // Good parameters with the same start wait for the body: the file is needed.
    const good = await postRaw({ ...target(), path: `/api/broker/v0/upload/${flightId}?hiddenRows=import&dateOrder=mdy&defaultPhoneRegion=gb` }, restForm(await buildPassengerWorkbook([passenger()])));
    expect(good.status).toBe(200);
  });

  it('answers an empty form to a bad id with the id’s 400, not with the missing file', async () => {
    const empty = Buffer.from('--upload-boundary-7f1c--\r\n');
    const answer = await postRaw({ ...target(), path: '/api/broker/v0/upload/0' }, empty);
    expect(answer.status).toBe(400);
    expect(answer.body.error.message).toBe('path parameter id must be a positive integer, got "0"');
    const missing = await postRaw(target(), empty);
    expect(missing.status).toBe(400);
    expect(missing.body.error.message).toBe('The form has no file in the field "paxlist"');
  });

  it('refuses a Content-Length no upload can need with 413 at once, without reading the body', async () => {
    const answer = await answerWithoutBody(target(), 100 * 1024 * 1024);
    expect(answer.status).toBe(413);
    expect(answer.headers.connection).toBe('close');
    expect(answer.body.error.code).toBe('PAYLOAD_TOO_LARGE');
    // The same words as a file found over the limit while reading it.
    expect(answer.body.error.message).toBe('The spreadsheet is larger than the limit of 200000 bytes');
  });

  it('takes a file of exactly UPLOAD_MAX_BYTES and refuses one byte more with 413', async () => {
    const exact = await postRaw(target(), restForm(await workbookOfSize(LIMIT)));
    expect(exact.status).toBe(200);
    expect(exact.body).toHaveLength(1);
    const over = await postRaw(target(), restForm(await workbookOfSize(LIMIT + 1)));
    expect(over.status).toBe(413);
    expect(over.body.error).toEqual({ code: 'PAYLOAD_TOO_LARGE', message: 'The spreadsheet is larger than the limit of 200000 bytes', details: [] });
  });

  it('stops parsing a chunked body as soon as the file passes the limit, and closes the connection', async () => {
    const connection = new Promise<Socket>((resolve) => server.once('connection', resolve));
    const head = restForm(Buffer.alloc(0), { closed: false });
    const answer = await streamUntilAnswered(target(), head, Buffer.alloc(16 * 1024, 1), 200 * LIMIT);
    expect(answer.status).toBe(413);
    expect(answer.body.error.message).toBe('The spreadsheet is larger than the limit of 200000 bytes');
    expect(answer.closedByServer).toBe(true);
    // The client would have sent 40 MB. The server parsed the limit; after the answer it only dropped
    // what was already on its way, at most HTTP_LINGER_MAX_BYTES, and a socket read or two more.
    expect((await connection).bytesRead).toBeLessThan(LIMIT + TRANSPORT_LINGER_MAX_BYTES + 256 * 1024);
  });

  it('keeps serving, with no listener warning, when clients drop the connection halfway through uploads', async () => {
    const body = restForm(Buffer.alloc(LIMIT - 1000, 7));
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on('warning', onWarning);
    try {
      for (let i = 0; i < 20; i += 1) await abandonUpload(target(), body.length, body.subarray(0, body.length / 2));
      const good = await postRaw(target(), restForm(await buildPassengerWorkbook([passenger()])));
      expect(good.status).toBe(200);
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning')).toEqual([]);
  });

  it('keeps a connection reusable after a refused upload, with the same listeners on its socket', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const sockets = new Set<Socket>();
    const onConnection = (socket: Socket) => sockets.add(socket);
    server.on('connection', onConnection);
    try {
      const send = () =>
        request(`http://127.0.0.1:${port}`).post(`/api/broker/v0/upload/${flightId}`).agent(agent).set(restUploadHeaders(writer)).set('Content-Type', BOUNDARY_B).send(UNCLOSED_FILE_PART);
      await send().expect(400);
      const [socket] = [...sockets];
      const counts = () => socket.eventNames().map((name) => `${String(name)}:${socket.listenerCount(name)}`);
      const after1 = counts();
      for (let i = 0; i < 10; i += 1) await send().expect(400);
      expect(sockets.size).toBe(1);
      expect(counts()).toEqual(after1);
    } finally {
      server.off('connection', onConnection);
      agent.destroy();
    }
  });
});
