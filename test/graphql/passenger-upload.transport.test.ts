import type { Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { print } from 'graphql';
import { UploadPassengerListDocument } from '../../src/graphql/generated/operations';
import { MULTIPART_OVERHEAD_BYTES } from '../../src/http/multipart';
import { buildPassengerWorkbook, passenger } from '../helpers/passenger-workbook';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { createFlight, createReferenceData } from '../helpers/timeline-fixtures';
import {
  abandonUpload,
  answerWithoutBody,
  graphqlForm,
  graphqlFormHead,
  graphqlUploadHeaders,
  postRaw,
  restForm,
  restUploadHeaders,
  streamUntilAnswered,
  workbookOfSize,
  UPLOAD_BOUNDARY,
  type RawResponse,
  type Target,
} from '../helpers/upload-requests';
import { TRANSPORT_LINGER_MAX_BYTES, startUploadTransportApp, type UploadTransportApp } from '../helpers/upload-transport-app';

const textPart = (name: string, value: string) => `--${UPLOAD_BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
const filePartHead = (name: string) => `--${UPLOAD_BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"; filename="list.xlsx"\r\nContent-Type: application/octet-stream\r\n\r\n`;

/** A GraphQL multipart request with the map given and its one file in the part named `fileField`, left open when `file` is undefined. */
function mappedForm(flightId: number, map: unknown, fileField: string, file?: Buffer): Buffer {
  const operations = JSON.stringify({ query: print(UploadPassengerListDocument), variables: { flightId, file: null } });
  const head = textPart('operations', operations) + textPart('map', JSON.stringify(map)) + filePartHead(fileField);
  return file ? Buffer.concat([Buffer.from(head), file, Buffer.from(`\r\n--${UPLOAD_BOUNDARY}--\r\n`)]) : Buffer.from(head);
}

/** uploadPassengerList through the GraphQL multipart request spec: truncated, over-size and abandoned bodies. */
describe('uploadPassengerList over GraphQL multipart: the transport', () => {
  const LIMIT = 200_000;
  let setup: UploadTransportApp;
  let testApp: TestApp;
  let server: Server;
  let port: number;
  let writer: string;
  let flightId: number;

  beforeAll(async () => {
    setup = await startUploadTransportApp('upload_transport_graphql', LIMIT);
    ({ testApp, server, port, writer, flightId } = setup);
  });
  afterAll(() => setup.close());
  afterEach(() => expect(setup.uncaught).toEqual([]));

  const graphql = (token = writer): Target => ({ port, path: '/graphql', headers: graphqlUploadHeaders(token) });
  const rest = (): Target => ({ port, path: `/api/broker/v0/upload/${flightId}`, headers: restUploadHeaders(writer) });

  /** The one GraphQL error of a refused upload, as the error model carries it. */
  function expectRefused(answer: RawResponse, status: number, code: string): { message: string } {
    expect({ status: answer.status, code: answer.body?.errors?.[0]?.extensions?.code, data: answer.body?.data ?? null }).toEqual({ status, code, data: null });
    expect(answer.body.errors).toHaveLength(1);
    expect(answer.text).not.toMatch(/\n\s+at /);
    return answer.body.errors[0];
  }

  it('answers 400 when the file part never closes', async () => {
    const error = expectRefused(await postRaw(graphql(), graphqlForm(flightId, Buffer.from('abc'), { closed: false })), 400, 'BAD_REQUEST');
    expect(error.message).toMatch(/^The file could not be received: Unexpected end of form/);
  });

  it('answers 400 when the body ends inside the operations field', async () => {
    const head = graphqlFormHead(flightId);
    const error = expectRefused(await postRaw(graphql(), head.subarray(0, 60)), 400, 'BAD_REQUEST');
    expect(error.message).toBe('The multipart GraphQL request cannot be read: Unexpected end of form');
  });

  it('answers 400 for a part header that is not a header (and the parser\'s second error does not escape)', async () => {
    const malformed = Buffer.concat([graphqlFormHead(flightId).subarray(0, 0), Buffer.from(`--upload-boundary-7f1c\r\nContent-Disposition: form-data; name="operations"\r\n${'X'.repeat(17 * 1024)}\r\n\r\n{}\r\n--upload-boundary-7f1c--\r\n`)]);
    const error = expectRefused(await postRaw(graphql(), malformed), 400, 'BAD_REQUEST');
    expect(error.message).toBe('The multipart GraphQL request cannot be read: Malformed part header');
    const viaRest = await postRaw(rest(), malformed);
    expect(viaRest.status).toBe(400);
    expect(viaRest.body.error.message).toBe('The multipart body cannot be read: Malformed part header');
    // Both errors of the parser were handled: the process is still here to serve this.
    const good = await postRaw(graphql(), graphqlForm(flightId, Buffer.from('abc'), { closed: false }));
    expect(good.status).toBe(400);
  });

  it('answers 400 for a multipart Content-Type without a boundary, through both transports', async () => {
    const body = graphqlForm(flightId, Buffer.from('abc'));
    const error = expectRefused(await postRaw({ ...graphql(), headers: { ...graphql().headers, 'Content-Type': 'multipart/form-data' } }, body), 400, 'BAD_REQUEST');
    expect(error.message).toMatch(/^The multipart GraphQL request cannot be read: /);
    const viaRest = await postRaw({ ...rest(), headers: { ...rest().headers, 'Content-Type': 'multipart/form-data' } }, body);
    expect(viaRest.status).toBe(400);
    expect(viaRest.body.error.message).toBe('The multipart body cannot be read: Multipart: Boundary not found');
  });

  it('takes a file of exactly UPLOAD_MAX_BYTES and refuses one byte more with the 413 REST gives', async () => {
    const exact = await postRaw(graphql(), graphqlForm(flightId, await workbookOfSize(LIMIT)));
    expect({ status: exact.status, errors: exact.body.errors }).toEqual({ status: 200, errors: undefined });
    expect(exact.body.data.uploadPassengerList).toHaveLength(1);

    const over = await workbookOfSize(LIMIT + 1);
    const error = expectRefused(await postRaw(graphql(), graphqlForm(flightId, over)), 413, 'PAYLOAD_TOO_LARGE');
    const viaRest = await postRaw(rest(), restForm(over));
    expect(viaRest.status).toBe(413);
    expect(error.message).toBe(viaRest.body.error.message);
    expect(error.message).toBe('The spreadsheet is larger than the limit of 200000 bytes');
  });

  it('refuses a Content-Length no upload can need with 413 at once, without reading the body', async () => {
    const answer = await answerWithoutBody(graphql(), 100 * 1024 * 1024);
    const error = expectRefused(answer, 413, 'PAYLOAD_TOO_LARGE');
    expect(answer.headers.connection).toBe('close');
    // The same words as a file found over the limit while reading it, and as REST's.
    expect(error.message).toBe('The spreadsheet is larger than the limit of 200000 bytes');
  });

  it('stops parsing a chunked body as soon as the file passes the limit, and closes the connection', async () => {
    const connection = new Promise<Socket>((resolve) => server.once('connection', resolve));
    const answer = await streamUntilAnswered(graphql(), graphqlFormHead(flightId), Buffer.alloc(16 * 1024, 1), 200 * LIMIT);
    const error = expectRefused(answer, 413, 'PAYLOAD_TOO_LARGE');
    expect(error.message).toBe('The spreadsheet is larger than the limit of 200000 bytes');
    expect(answer.closedByServer).toBe(true);
    // The client would have sent 40 MB. The server parsed the limit; after the answer it only dropped
    // what was already on its way, at most HTTP_LINGER_MAX_BYTES, and a socket read or two more.
    expect((await connection).bytesRead).toBeLessThan(LIMIT + TRANSPORT_LINGER_MAX_BYTES + 256 * 1024);
  });

  it('refuses a token without passengers:write with 403 and does not read the file', async () => {
    const reader = await testApp.token(['timeline:read']);
    const body = graphqlForm(flightId, Buffer.alloc(LIMIT, 7));
    const head = graphqlFormHead(flightId);
    expectRefused(await answerWithoutBody(graphql(reader), body.length, head), 403, 'FORBIDDEN');
  });

  it('refuses a map path that walks into a prototype with 400, and sets nothing there', async () => {
    const error = expectRefused(await postRaw(graphql(), mappedForm(flightId, { 0: ['__proto__.polluted'] }, '0', Buffer.from('abc'))), 400, 'BAD_REQUEST');
    expect(error.message).toBe('The multipart GraphQL request cannot be read: the map path "__proto__.polluted" names no place in the operations (https://github.com/jaydenseric/graphql-multipart-request-spec)');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('answers 400 naming the file part the map names when the body does not carry it', async () => {
    const error = expectRefused(await postRaw(graphql(), mappedForm(flightId, { 0: ['variables.file'] }, '1', await buildPassengerWorkbook([passenger()]))), 400, 'BAD_REQUEST');
    expect(error.message).toBe("The file could not be received: the body has no file part '0', which the map field names. Send the whole multipart body, ending with its closing boundary.");
  });

  it('refuses a chunked body past its allowance even when the file being sent is one the map does not name', async () => {
    // The file limit, the operations and map fields at their limit, and the multipart framing.
    const allowance = LIMIT + 2 * testApp.config.limits.jsonMaxBytes + MULTIPART_OVERHEAD_BYTES;
    // A little more than that, then the end of the body (within what lingering reads on after an answer).
    const answer = await streamUntilAnswered(graphql(), mappedForm(flightId, { 0: ['variables.file'] }, 'unmapped'), Buffer.alloc(16 * 1024, 1), allowance + 256 * 1024);
    const error = expectRefused(answer, 413, 'PAYLOAD_TOO_LARGE');
    expect(error.message).toBe('The spreadsheet is larger than the limit of 200000 bytes');
  });

  it('reads the REST paxlist part after file parts of other names', async () => {
    const other = `--${UPLOAD_BOUNDARY}\r\nContent-Disposition: form-data; name="attachment"; filename="notes.txt"\r\nContent-Type: text/plain\r\n\r\nnot the list\r\n`;
    const answer = await postRaw(rest(), Buffer.concat([Buffer.from(other), restForm(await buildPassengerWorkbook([passenger()]))]));
    expect({ status: answer.status, records: Array.isArray(answer.body) ? answer.body.length : answer.text }).toEqual({ status: 200, records: 1 });
  });

  it('refuses a REST form with more file parts than the reader skips with 413', async () => {
    const other = (index: number) => `--${UPLOAD_BOUNDARY}\r\nContent-Disposition: form-data; name="other${index}"; filename="${index}.txt"\r\nContent-Type: text/plain\r\n\r\nx\r\n`;
    const answer = await postRaw(rest(), Buffer.concat([Buffer.from([0, 1, 2, 3, 4, 5].map(other).join('')), restForm(Buffer.from('abc'))]));
    expect({ status: answer.status, message: answer.body?.error?.message }).toEqual({ status: 413, message: 'A multipart body may carry at most 5 files' });
  });

  it('keeps serving when clients drop the connection halfway through uploads', async () => {
    const body = graphqlForm(flightId, Buffer.alloc(LIMIT - 1000, 7));
    const half = graphqlFormHead(flightId).length + (LIMIT - 1000) / 2;
    for (let i = 0; i < 20; i += 1) await abandonUpload(graphql(), body.length, body.subarray(0, half));
    const good = await postRaw(graphql(), graphqlForm(flightId, await buildPassengerWorkbook([passenger()])));
    expect({ status: good.status, errors: good.body.errors }).toEqual({ status: 200, errors: undefined });
  });
});

describe('uploadPassengerList over GraphQL multipart: a file over a small limit', () => {
  it('answers the 413 of the service even when the library cut the file before the resolver read it', async () => {
    const testApp = await startTestApp('upload_transport_small', { UPLOAD_MAX_BYTES: '1024' });
    const server = testApp.app.listen(0, '127.0.0.1');
    try {
      await new Promise((resolve) => server.once('listening', resolve));
      await createReferenceData(testApp);
      const flightId = await createFlight(testApp, { resourceId: 1, from: 'LIRF', to: 'LGAV', departureAt: '2026-12-10T09:00:00Z', arrivalAt: '2026-12-10T11:30:00Z' });
      const target = { port: (server.address() as AddressInfo).port, path: '/graphql', headers: graphqlUploadHeaders(await testApp.token(['passengers:write'])) };
      // One write: the whole file reaches the parser (and its limit) while the resolver still looks up the flight.
      const answer = await postRaw(target, graphqlForm(flightId, Buffer.alloc(5000, 7)));
      expect({ status: answer.status, errors: answer.body.errors.map((e: { message: string; extensions: { code: string } }) => [e.extensions.code, e.message]) }).toEqual({
        status: 413,
        errors: [['PAYLOAD_TOO_LARGE', 'The spreadsheet is larger than the limit of 1024 bytes']],
      });
    } finally {
      await new Promise((resolve) => server.close(resolve));
      await testApp.close();
    }
  });
});
