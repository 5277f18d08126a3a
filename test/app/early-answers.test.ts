import type { Server } from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { ApolloClient, InMemoryCache, gql } from '@apollo/client';
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import UploadHttpLink from 'apollo-upload-client/UploadHttpLink.mjs';
import { print } from 'graphql';
import { mintToken } from '../../src/auth';
import { loadConfig } from '../../src/config';
import { CreateFlightDocument, UpsertAirportDocument, UpsertResourceDocument } from '../../src/graphql/generated/operations';
import { testDatabaseUri, uniqueDatabaseName } from '../helpers/database';
import { CLIENTS, hasCurl, send, type BodySpec, type ClientName, type ClientOutcome } from '../helpers/http-clients';
import { createHttpServer } from '../../src/http/http-server';
import { TEST_SECRET, startTestApp, type TestApp } from '../helpers/test-app';
import { AIRPORTS, RESOURCES } from '../helpers/timeline-fixtures';
import { MULTIPART_TYPE, UPLOAD_BOUNDARY, graphqlFormHead, restForm } from '../helpers/upload-requests';
import { getStatus } from '../helpers/upload-requests';
import { killAll, startTypeScript, waitFor, type Started } from './child-processes';

/**
 * Answers the service sends before it has read the body (a refused upload, a missing token, a wrong
 * Content-Type) reach the clients people use, whatever the body's size: Node's fetch, got, axios
 * and curl, against the service running as its own process with its default limits.
 */

const UPLOAD_MAX_BYTES = 5 * 1024 * 1024;
const MB = 1_000_000;
const CLOSING = Buffer.from(`\r\n--${UPLOAD_BOUNDARY}--\r\n`);
/** The small body of a GraphQL upload that answered EPIPE instead of 401 in 8 of 30 tries. */
const SMALL = 9_600;
/** Small bodies race the answer more often when tried several times. */
const SMALL_TRIES = 10;

interface Expected {
  status: number;
  code: string;
  message?: string;
}

interface Scenario {
  name: string;
  path(): string;
  headers(): Record<string, string>;
  head(): Buffer;
  expected: Expected;
  /** Body sizes in bytes; `streamed` sends the body chunked, without Content-Length. */
  sizes: Array<{ bytes: number; streamed?: boolean }>;
}

describe('early answers reach Node fetch, got, axios and curl', () => {
  let service: Started;
  let base: string;
  let flightId: number;
  const config = loadConfig({ NODE_ENV: 'test', JWT_SECRET: TEST_SECRET, PUBLIC_HOST: 'broker.test' });
  const tokens: Record<'uploader' | 'reader' | 'admin', string> = { uploader: '', reader: '', admin: '' };

  async function graphql<Data, Variables>(document: TypedDocumentNode<Data, Variables>, variables: Variables): Promise<Data> {
    const response = await fetch(`${base}/graphql`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${tokens.admin}` },
      body: JSON.stringify({ query: print(document), variables }),
    });
    const body = (await response.json()) as { data?: Data; errors?: unknown };
    if (body.errors || !body.data) throw new Error(JSON.stringify(body.errors));
    return body.data;
  }

  beforeAll(async () => {
    service = startTypeScript('src/main.ts', [], {
      NODE_ENV: 'test',
      PORT: '0',
      HOST: '127.0.0.1',
      MONGODB_URI: testDatabaseUri(uniqueDatabaseName('early_answers')),
      JWT_SECRET: TEST_SECRET,
      PUBLIC_HOST: 'broker.test',
      RATE_LIMIT_PER_MINUTE: '0',
      LOG_LEVEL: 'info',
      UPLOAD_MAX_BYTES: String(UPLOAD_MAX_BYTES),
    });
    await waitFor(() => /listening on 127\.0\.0\.1:\d+/.test(service.output()) || service.child.exitCode !== null, 60_000);
    const port = /listening on 127\.0\.0\.1:(\d+)/.exec(service.output())?.[1];
    if (!port) throw new Error(`the service did not start:\n${service.output()}`);
    base = `http://127.0.0.1:${port}`;
    const mint = (scope: string[]) => mintToken(config.auth, { sub: 'early', scope, ttlSeconds: 3600 });
    tokens.uploader = await mint(['passengers:write']);
    tokens.reader = await mint(['timeline:read']);
    tokens.admin = await mint(['flights:write', 'timeline:read']);
    for (const input of Object.values(AIRPORTS)) await graphql(UpsertAirportDocument, { input });
    for (const input of RESOURCES) await graphql(UpsertResourceDocument, { input });
    const created = await graphql(CreateFlightDocument, {
      input: {
        flightNumber: 'IFL700', resourceId: 1, departureAt: '2026-12-10T09:00:00Z', departureIcao: 'LIRF', arrivalAt: '2026-12-10T11:30:00Z',
        arrivalIcao: 'LGAV', backgroundColor: null, textColor: null, borderColor: null,
      },
    });
    flightId = created.createFlight.flightId;
  }, 90_000);

  afterAll(() => { console.log(service.output().split('\n').filter((l) => l.startsWith('LINGER')).join('\n')); return killAll(); });

  const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });
  const restUpload = () => `/api/broker/v0/upload/${flightId}`;
  const restHead = () => restForm(Buffer.alloc(0), { closed: false });
  const graphqlHead = () => graphqlFormHead(flightId);
  const preflight = { 'Apollo-Require-Preflight': 'true' };
  const tooLarge = { status: 413, code: 'PAYLOAD_TOO_LARGE', message: `The spreadsheet is larger than the limit of ${UPLOAD_MAX_BYTES} bytes` };

  const scenarios: Scenario[] = [
    {
      name: 'REST upload over UPLOAD_MAX_BYTES: 413',
      path: restUpload,
      headers: () => ({ ...bearer(tokens.uploader), 'Content-Type': MULTIPART_TYPE }),
      head: restHead,
      expected: tooLarge,
      // axios sends a whole body even after the answer: the service must read 100 MB of it.
      sizes: [{ bytes: 6 * MB }, { bytes: 20 * MB }, { bytes: 100 * MB }, { bytes: 100 * MB, streamed: true }],
    },
    {
      name: 'REST upload without a token: 401',
      path: restUpload,
      headers: () => ({ 'Content-Type': MULTIPART_TYPE }),
      head: restHead,
      expected: { status: 401, code: 'UNAUTHENTICATED' },
      sizes: [{ bytes: SMALL }, { bytes: 6 * MB }, { bytes: 20 * MB }],
    },
    {
      name: 'REST upload with a token lacking passengers:write: 403',
      path: restUpload,
      headers: () => ({ ...bearer(tokens.reader), 'Content-Type': MULTIPART_TYPE }),
      head: restHead,
      expected: { status: 403, code: 'FORBIDDEN' },
      sizes: [{ bytes: SMALL }, { bytes: 20 * MB }],
    },
    {
      name: 'REST upload that is not multipart: 400',
      path: restUpload,
      headers: () => ({ ...bearer(tokens.uploader), 'Content-Type': 'text/csv' }),
      head: () => Buffer.alloc(0),
      expected: { status: 400, code: 'BAD_REQUEST' },
      sizes: [{ bytes: 20 * MB }],
    },
    {
      name: 'REST upload to a flight id that is not one: 400',
      path: () => '/api/broker/v0/upload/0',
      headers: () => ({ ...bearer(tokens.uploader), 'Content-Type': MULTIPART_TYPE }),
      head: restHead,
      expected: { status: 400, code: 'BAD_REQUEST', message: 'path parameter id must be a positive integer, got "0"' },
      // Within every size limit: refused on the URL, before a byte of the file is read.
      sizes: [{ bytes: 4 * MB }],
    },
    {
      name: 'REST upload with a bad query parameter: 400',
      path: () => `${restUpload()}?hiddenRows=zz`,
      headers: () => ({ ...bearer(tokens.uploader), 'Content-Type': MULTIPART_TYPE }),
      head: restHead,
      expected: { status: 400, code: 'BAD_REQUEST', message: 'query parameter hiddenRows must be SKIP or IMPORT, got "zz"' },
      sizes: [{ bytes: 4 * MB }],
    },
    {
      name: 'REST push that is not JSON: 415',
      path: () => `/api/broker/v0/flight/${flightId}/passenger`,
      headers: () => ({ ...bearer(tokens.uploader), 'Content-Type': 'text/plain' }),
      head: () => Buffer.alloc(0),
      expected: { status: 415, code: 'UNSUPPORTED_MEDIA_TYPE' },
      sizes: [{ bytes: 20 * MB }],
    },
    {
      name: 'GraphQL upload without a token: 401',
      path: () => '/graphql',
      headers: () => ({ 'Content-Type': MULTIPART_TYPE, ...preflight }),
      head: graphqlHead,
      expected: { status: 401, code: 'UNAUTHENTICATED' },
      sizes: [{ bytes: SMALL }, { bytes: 6 * MB }, { bytes: 20 * MB }],
    },
    {
      name: 'GraphQL upload over UPLOAD_MAX_BYTES: 413',
      path: () => '/graphql',
      headers: () => ({ ...bearer(tokens.uploader), 'Content-Type': MULTIPART_TYPE, ...preflight }),
      head: graphqlHead,
      expected: tooLarge,
      sizes: [{ bytes: 6 * MB }, { bytes: 20 * MB }, { bytes: 100 * MB, streamed: true }],
    },
    {
      name: 'GraphQL upload whose operations field is not JSON: 400',
      path: () => '/graphql',
      headers: () => ({ ...bearer(tokens.uploader), 'Content-Type': MULTIPART_TYPE, ...preflight }),
      head: () => Buffer.from(graphqlFormHead(flightId).toString('latin1').replace('{"query"', '{query'), 'latin1'),
      expected: { status: 400, code: 'BAD_REQUEST' },
      // Within every size limit: refused once the fields are read, before the file.
      sizes: [{ bytes: 4 * MB }],
    },
    {
      name: 'GraphQL JSON body in an encoding the service does not take: 415',
      path: () => '/graphql',
      headers: () => ({ ...bearer(tokens.uploader), 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' }),
      head: () => Buffer.alloc(0),
      expected: { status: 415, code: 'UNSUPPORTED_MEDIA_TYPE' },
      sizes: [{ bytes: 6 * MB }],
    },
  ];

  /** The status and error code (and message) of an answer, REST's or GraphQL's shape alike. */
  function seen(outcome: ClientOutcome): { status: number; code?: string; message?: string } | { error: string } {
    if ('error' in outcome) return outcome;
    try {
      const body = JSON.parse(outcome.text) as { error?: { code: string; message: string }; errors?: Array<{ message: string; extensions: { code: string } }> };
      const error = body.error ?? (body.errors && { code: body.errors[0].extensions.code, message: body.errors[0].message });
      return { status: outcome.status, code: error?.code, message: error?.message };
    } catch {
      return { status: outcome.status, message: outcome.text.slice(0, 200) };
    }
  }

  const curl = hasCurl();
  for (const scenario of scenarios) {
    for (const size of scenario.sizes) {
      for (const client of CLIENTS) {
        const name = `${scenario.name}, ${size.bytes} bytes${size.streamed ? ' streamed' : ''}, ${client}`;
        if (client === 'curl' && !curl) it.skip(`${name} (skipped: curl is not installed on this machine)`, () => undefined);
        else it(name, () => expectAnswered(scenario, size, client), 120_000);
      }
    }
  }

  async function expectAnswered(scenario: Scenario, size: Scenario['sizes'][number], client: ClientName): Promise<void> {
    const head = scenario.head();
    const body: BodySpec = { head, fill: size.bytes - head.length - CLOSING.length, tail: CLOSING, streamed: size.streamed };
    const expected = scenario.expected.message ? scenario.expected : { status: scenario.expected.status, code: scenario.expected.code };
    const tries = size.bytes === SMALL ? SMALL_TRIES : 1;
    const outcomes = (await send(client, { url: `${base}${scenario.path()}`, headers: scenario.headers(), body }, tries)).map((outcome) => {
      const answer = seen(outcome);
      return 'error' in answer || scenario.expected.message ? answer : { status: answer.status, code: answer.code };
    });
    expect(outcomes).toEqual(Array.from({ length: tries }, () => expected));
  }

  it('apollo-upload-client reads the 413 of a 20 MB spreadsheet (it reported "fetch failed")', async () => {
    const client = new ApolloClient({ link: new UploadHttpLink({ uri: `${base}/graphql`, headers: bearer(tokens.uploader) }), cache: new InMemoryCache() });
    const upload = gql`
      mutation Upload($flightId: Int!, $file: Upload!) {
        uploadPassengerList(flightId: $flightId, file: $file) {
          surname
        }
      }
    `;
    const file = new Blob([Buffer.alloc(20 * MB, 0x61)], { type: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet' });
    const error = await client.mutate({ mutation: upload, variables: { flightId, file } }).then(
      (result) => result.error,
      (thrown: unknown) => thrown,
    );
    // Apollo Client reports a non-2xx answer as a ServerError that carries the status and the body.
    const failure = error as { name?: string; statusCode?: number; bodyText?: string };
    const body = JSON.parse(failure.bodyText ?? '{}') as { errors?: Array<{ message: string }> };
    expect({ name: failure.name, status: failure.statusCode, message: body.errors?.[0]?.message }).toEqual({ name: 'ServerError', status: 413, message: tooLarge.message });
  }, 60_000);

  it('kept running and logged no uncaught error', async () => {
    expect(service.child.exitCode).toBeNull();
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    expect(service.output()).not.toMatch(/Unhandled 'error' event|uncaught|unhandledRejection|"level":50/i);
  });
});

/**
 * A client that sends a chunked upload without a token and ignores what comes back: it reads the
 * answer only to report it, does not stop at the server's end of stream (allowHalfOpen), and
 * sends `chunk` after chunk for as long as the connection takes them (`forever`) or only once.
 */
function stubbornUpload(port: number, { forever }: { forever: boolean }) {
  const socket = net.connect({ port, host: '127.0.0.1', allowHalfOpen: true });
  const chunk = Buffer.alloc(64 * 1024, 0x61);
  const frame = Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n')]);
  let received = '';
  let closed = false;
  socket.on('data', (data: Buffer) => (received += data.toString('latin1')));
  // The server cutting the connection is what some of these tests wait for.
  socket.on('error', () => undefined);
  socket.on('close', () => (closed = true));
  const pump = () => {
    while (!closed && socket.writable) {
      if (!socket.write(frame)) {
        socket.once('drain', pump);
        return;
      }
    }
  };
  socket.on('connect', () => {
    socket.write(`POST /api/broker/v0/upload/1 HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: ${MULTIPART_TYPE}\r\nTransfer-Encoding: chunked\r\n\r\n`);
    socket.write(frame);
    if (forever) pump();
  });
  return {
    socket,
    status: () => Number(/^HTTP\/1\.1 (\d{3})/.exec(received)?.[1] ?? 0),
    answered: () => /\r\n\r\n/.test(received),
    closed: () => closed,
  };
}

describe('lingering after an early answer is bounded', () => {
  let testApp: TestApp | undefined;
  let server: Server | undefined;

  afterEach(async () => {
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
    await testApp?.close();
    server = undefined;
    testApp = undefined;
  });

  /** The server's side of a connection: what it read, and whether it closed it. */
  interface ServerSide {
    socket: net.Socket;
    closed: boolean;
  }

  /** The app on the real HTTP server (main.ts's), with the lingering limits of `env`. */
  async function listening(env: Record<string, string>): Promise<{ port: number; connections: ServerSide[] }> {
    testApp = await startTestApp('early_answers_caps', env);
    server = createHttpServer(testApp.app, testApp.config);
    const connections: ServerSide[] = [];
    server.on('connection', (socket: net.Socket) => {
      const side = { socket, closed: false };
      socket.on('close', () => (side.closed = true));
      connections.push(side);
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    return { port: (server.address() as AddressInfo).port, connections };
  }

  it('cuts off a client that sends for ever after HTTP_LINGER_MAX_BYTES, and serves others meanwhile', async () => {
    const maxBytes = 1024 * 1024;
    const { port, connections } = await listening({ HTTP_LINGER_MAX_BYTES: String(maxBytes), HTTP_LINGER_MS: '600000' });
    const client = stubbornUpload(port, { forever: true });
    await waitFor(client.answered, 20_000);
    expect(client.status()).toBe(401);
    // Another client, while the first one is still being read.
    expect(await getStatus(port, '/healthz')).toBe(200);
    await waitFor(client.closed, 20_000);
    // The body read before the answer (a socket read or two), then the cap and one more read at most.
    expect(connections[0].socket.bytesRead).toBeLessThan(maxBytes + 512 * 1024);
  });

  it('closes a connection whose client goes quiet after HTTP_LINGER_MS', async () => {
    const { port, connections } = await listening({ HTTP_LINGER_MS: '300' });
    const client = stubbornUpload(port, { forever: false });
    await waitFor(client.answered, 20_000);
    expect(client.status()).toBe(401);
    // Far below HTTP_REQUEST_TIMEOUT_MS (60 s), which would close it too.
    await waitFor(() => connections[0].closed, 20_000);
    client.socket.destroy();
  });

  it('lets at most HTTP_LINGER_MAX_CONNECTIONS linger at once; beyond, an early answer closes at once', async () => {
    const { port, connections } = await listening({ HTTP_LINGER_MAX_CONNECTIONS: '2', HTTP_LINGER_MS: '600000' });
    const clients: Array<ReturnType<typeof stubbornUpload>> = [];
    const answered = async () => {
      const client = stubbornUpload(port, { forever: false });
      clients.push(client);
      await waitFor(client.answered, 20_000);
      expect(client.status()).toBe(401);
      return connections.length - 1;
    };
    const closed = (...indexes: number[]) => indexes.map((index) => connections[index].closed);
    try {
      const [first, second, third] = [await answered(), await answered(), await answered()];
      await waitFor(() => connections[third].closed, 20_000);
      expect(closed(first, second)).toEqual([false, false]);
      // A connection that stops lingering (here: its client goes away) frees its place.
      clients[first].socket.destroy();
      await waitFor(() => connections[first].closed, 20_000);
      const [fourth, fifth] = [await answered(), await answered()];
      await waitFor(() => connections[fifth].closed, 20_000);
      expect(closed(second, fourth)).toEqual([false, false]);
    } finally {
      for (const client of clients) client.socket.destroy();
    }
  });
});
