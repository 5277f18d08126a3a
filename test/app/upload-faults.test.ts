import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import express from 'express';
import { print } from 'graphql';
import { mintToken } from '../../src/auth';
import { loadConfig } from '../../src/config';
import { CreateFlightDocument, UpsertAirportDocument, UpsertResourceDocument } from '../../src/graphql/generated/operations';
import { graphqlMultipartRequests } from '../../src/graphql/multipart-request';
import { IncomingFile } from '../../src/graphql-kit/upload';
import { PassengerUploadService } from '../../src/passengers/passenger-upload.service';
import { clientGoneSignal } from '../../src/shared/read-stream';
import type { ReceivedFile } from '../../src/shared/received-file';
import { testDatabaseUri, uniqueDatabaseName } from '../helpers/database';
import { buildPassengerWorkbook, passenger } from '../helpers/passenger-workbook';
import { TEST_SECRET, startTestApp } from '../helpers/test-app';
import { AIRPORTS, RESOURCES, createFlight, createReferenceData } from '../helpers/timeline-fixtures';
import {
  BOUNDARY_B,
  UNCLOSED_FILE_PART,
  abandonUpload,
  getStatus,
  graphqlForm,
  graphqlFormHead,
  graphqlUploadHeaders,
  postRaw,
  restForm,
  restUploadHeaders,
} from '../helpers/upload-requests';
import { waitFor } from './child-processes';

/**
 * Issue 9, defect 1: hostile and broken uploads against the service run as its own process, so a
 * crash shows as the process exiting (inside jest an uncaught error would only fail one test).
 */

const ROOT = path.join(__dirname, '../..');
const UPLOAD_MAX_BYTES = 1_000_000;

interface Service {
  child: ChildProcessWithoutNullStreams;
  port: number;
  output(): string;
}

async function startService(databaseUri: string): Promise<Service> {
  const child = spawn(process.execPath, ['-r', './scripts/register-ts.cjs', 'src/main.ts'], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      NODE_ENV: 'test',
      PORT: '0',
      HOST: '127.0.0.1',
      MONGODB_URI: databaseUri,
      JWT_SECRET: TEST_SECRET,
      PUBLIC_HOST: 'broker.test',
      TIMEZONE: 'Europe/Rome',
      RATE_LIMIT_PER_MINUTE: '0',
      LOG_LEVEL: 'info',
      UPLOAD_MAX_BYTES: String(UPLOAD_MAX_BYTES),
    },
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const port = await new Promise<number>((resolve, reject) => {
    const look = () => {
      const match = /listening on 127\.0\.0\.1:(\d+)/.exec(output);
      if (match) resolve(Number(match[1]));
    };
    child.stdout.on('data', look);
    child.on('exit', (code) => reject(new Error(`the service exited with ${code} before listening:\n${output}`)));
  });
  return { child, port, output: () => output };
}

describe('the service process under broken and hostile uploads', () => {
  let service: Service | undefined;
  let databaseUri: string | undefined;
  let exits: Array<number | null>;
  const config = loadConfig({ NODE_ENV: 'test', JWT_SECRET: TEST_SECRET, PUBLIC_HOST: 'broker.test' });
  const token = (scopes: string[]) => mintToken(config.auth, { sub: 'attacker', scope: scopes, ttlSeconds: 3600 });
  let uploader: string;
  let reader: string;
  let flightId: number;

  const running = (): Service => {
    if (!service) throw new Error('the service did not start');
    return service;
  };

  async function graphql<Data, Variables>(document: TypedDocumentNode<Data, Variables>, variables: Variables): Promise<Data> {
    const response = await fetch(`http://127.0.0.1:${running().port}/graphql`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${await token(['flights:write', 'timeline:read'])}` },
      body: JSON.stringify({ query: print(document), variables }),
    });
    const body = (await response.json()) as { data?: Data; errors?: unknown };
    if (body.errors || !body.data) throw new Error(JSON.stringify(body.errors));
    return body.data;
  }

  /** The process is still there and answers; the exit code it had is shown when it is not. */
  async function expectServing(): Promise<void> {
    expect({ exits, alive: running().child.exitCode === null }).toEqual({ exits: [], alive: true });
    expect(await getStatus(running().port, '/healthz')).toBe(200);
  }

  /** A crash fails the test that caused it; the next test gets a fresh process on the same database. */
  async function ensureService(): Promise<void> {
    if (service && service.child.exitCode === null) return;
    databaseUri ??= testDatabaseUri(uniqueDatabaseName('upload_faults'));
    service = await startService(databaseUri);
    exits = [];
    service.child.on('exit', (code) => exits.push(code));
  }

  beforeEach(ensureService, 30_000);

  beforeAll(async () => {
    await ensureService();
    uploader = await token(['passengers:write']);
    reader = await token(['timeline:read']);
    for (const input of Object.values(AIRPORTS)) await graphql(UpsertAirportDocument, { input });
    for (const input of RESOURCES) await graphql(UpsertResourceDocument, { input });
    const created = await graphql(CreateFlightDocument, {
      input: {
        flightNumber: 'IFL900', resourceId: 1, departureIcao: 'LIRF', departureAt: '2026-12-10T09:00:00Z', arrivalIcao: 'LGAV',
        arrivalAt: '2026-12-10T11:30:00Z', backgroundColor: null, textColor: null, borderColor: null,
      },
    });
    flightId = created.createFlight.flightId;
  });

  afterAll(() => {
    service?.child.kill('SIGKILL');
  });

  const rest = (bearer: string) => ({ port: running().port, path: `/api/broker/v0/upload/${flightId}`, headers: { ...restUploadHeaders(bearer), 'Content-Type': BOUNDARY_B } });

  it('answers the unclosed file part of issue 9 with 403 to a timeline:read token, and keeps running', async () => {
    const answer = await postRaw(rest(reader), UNCLOSED_FILE_PART);
    expect(answer.status).toBe(403);
    expect(answer.body.error.code).toBe('FORBIDDEN');
    await expectServing();
  });

  it('answers the unclosed file part with 400 to an uploader, and keeps running', async () => {
    const answer = await postRaw(rest(uploader), UNCLOSED_FILE_PART);
    expect(answer.status).toBe(400);
    expect(answer.body.error).toMatchObject({ code: 'BAD_REQUEST', message: expect.stringMatching(/multipart body/) });
    await expectServing();
  });

  it('keeps running when a client drops the connection halfway through a REST upload', async () => {
    const body = restForm(Buffer.alloc(800_000, 7));
    await abandonUpload({ port: running().port, path: `/api/broker/v0/upload/${flightId}`, headers: restUploadHeaders(uploader) }, body.length, body.subarray(0, 400_000));
    await expectServing();
  });

  it('answers a GraphQL upload whose file part never closes with 400, and keeps running', async () => {
    const answer = await postRaw({ port: running().port, path: '/graphql', headers: graphqlUploadHeaders(uploader) }, graphqlForm(flightId, Buffer.from('abc'), { closed: false }));
    expect(answer.status).toBe(400);
    expect(answer.body.errors[0].extensions.code).toBe('BAD_REQUEST');
    await expectServing();
  });

  it('answers a GraphQL upload with a malformed part header with 400, and keeps running', async () => {
    const malformed = Buffer.from(`--upload-boundary-7f1c\r\nContent-Disposition: form-data; name="operations"\r\n${'X'.repeat(17 * 1024)}\r\n\r\n{}\r\n--upload-boundary-7f1c--\r\n`);
    const answer = await postRaw({ port: running().port, path: '/graphql', headers: graphqlUploadHeaders(uploader) }, malformed);
    expect(answer.status).toBe(400);
    await expectServing();
  });

  it('keeps running when a client drops the connection halfway through a GraphQL upload', async () => {
    const head = graphqlFormHead(flightId);
    const body = graphqlForm(flightId, Buffer.alloc(800_000, 7));
    await abandonUpload({ port: running().port, path: '/graphql', headers: graphqlUploadHeaders(uploader) }, body.length, body.subarray(0, head.length + 400_000));
    await expectServing();
  });

  it('still parses a real upload after all of the above, and never logged an uncaught error', async () => {
    const answer = await postRaw(
      { port: running().port, path: `/api/broker/v0/upload/${flightId}`, headers: restUploadHeaders(uploader) },
      restForm(await buildPassengerWorkbook([passenger()])),
    );
    expect({ status: answer.status, records: Array.isArray(answer.body) ? answer.body.length : answer.text }).toEqual({ status: 200, records: 1 });
    await expectServing();
    expect(running().output()).not.toMatch(/Unhandled 'error' event|uncaught|unhandledRejection|"level":50/i);
  });
});

describe('an upload whose client went away', () => {
  it('has its signal fire when the connection closes before the answer, and not after an answer', async () => {
    const signals: AbortSignal[] = [];
    const server = http.createServer((_req, res) => {
      signals.push(clientGoneSignal(res));
      if (signals.length === 2) res.end('answered');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const abandoned = http.get({ host: '127.0.0.1', port, agent: false });
      abandoned.on('error', () => undefined);
      while (signals.length < 1) await new Promise((resolve) => setImmediate(resolve));
      const aborted = new Promise((resolve) => signals[0].addEventListener('abort', resolve));
      abandoned.destroy();
      await aborted;
      expect(signals[0].reason).toMatchObject({ code: 'BAD_REQUEST', message: 'The client closed the connection before the answer was sent' });

      expect(await getStatus(port, '/')).toBe(200);
      expect(signals[1].aborted).toBe(false);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('is not parsed once the signal fired, and the GraphQL transport hands the signal to the file', async () => {
    const testApp = await startTestApp('upload_gone');
    // The GraphQL multipart transport alone, before an operation that never answers: the client goes first.
    const files: ReceivedFile[] = [];
    const app = express();
    app.post('/graphql', graphqlMultipartRequests(testApp.config), (req) => {
      const incoming = (req.body as { variables: { file: unknown } }).variables.file;
      if (incoming instanceof IncomingFile) incoming.file.then((file) => files.push(file), () => undefined);
    });
    const server = app.listen(0, '127.0.0.1');
    try {
      await new Promise((resolve) => server.once('listening', resolve));
      await createReferenceData(testApp);
      const flightId = await createFlight(testApp, { resourceId: 1, from: 'LIRF', to: 'LGAV', departureAt: '2026-12-10T09:00:00Z', arrivalAt: '2026-12-10T11:30:00Z' });
      // Not an .xlsx: parsed, it would be refused with 415.
      const body = graphqlForm(flightId, Buffer.from('not a workbook'));
      const request = http.request({ host: '127.0.0.1', port: (server.address() as AddressInfo).port, path: '/graphql', method: 'POST', agent: false, headers: { ...graphqlUploadHeaders('unused'), 'Content-Length': body.length } });
      request.on('error', () => undefined);
      request.end(body);
      await waitFor(() => files.length === 1, 60_000);
      const [file] = files;
      expect(file.signal.aborted).toBe(false);
      request.destroy();
      await waitFor(() => file.signal.aborted, 60_000);
      const service = new PassengerUploadService({ flights: testApp.database.models.flights, limits: testApp.config.limits });
      await expect(service.preview(flightId, file)).rejects.toMatchObject({ code: 'BAD_REQUEST', message: 'The client closed the connection before the answer was sent' });
      expect({ bytes: file.bytes.toString(), filename: file.filename }).toEqual({ bytes: 'not a workbook', filename: 'list.xlsx' });
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await testApp.close();
    }
  });
});
