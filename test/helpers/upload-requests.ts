import http from 'node:http';
import { print } from 'graphql';
import { UploadPassengerListDocument } from '../../src/graphql/generated/operations';
import { buildPassengerWorkbook, passenger, storedOrDeflated, withPart } from './passenger-workbook';

/**
 * Uploads spoken at the socket level, for what supertest cannot do: end a body early, declare a
 * length and never send it, stream a body until the server answers, vanish mid-upload.
 */

const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

/** The attack of issue 9: a file part that never closes, then the end of the request. */
export const UNCLOSED_FILE_PART = Buffer.from('--B\r\nContent-Disposition: form-data; name="paxlist"; filename="a.xlsx"\r\n\r\nabc');
export const BOUNDARY_B = 'multipart/form-data; boundary=B';

export const UPLOAD_BOUNDARY = 'upload-boundary-7f1c';
export const MULTIPART_TYPE = `multipart/form-data; boundary=${UPLOAD_BOUNDARY}`;

function filePartHead(field: string, filename = 'list.xlsx'): string {
  return `--${UPLOAD_BOUNDARY}\r\nContent-Disposition: form-data; name="${field}"; filename="${filename}"\r\nContent-Type: ${XLSX}\r\n\r\n`;
}

function fieldPart(name: string, value: string): string {
  return `--${UPLOAD_BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
}

const CLOSING = `\r\n--${UPLOAD_BOUNDARY}--\r\n`;

/** The REST form: the file in `paxlist`. `closed: false` leaves the file part open (a truncated body). */
export function restForm(file: Buffer, { closed = true } = {}): Buffer {
  return Buffer.concat([Buffer.from(filePartHead('paxlist')), file, Buffer.from(closed ? CLOSING : '')]);
}

/** The fields of a GraphQL multipart request (spec order: operations, map) before the file part. */
export function graphqlFormHead(flightId: number): Buffer {
  const operations = JSON.stringify({ query: print(UploadPassengerListDocument), variables: { flightId, file: null } });
  return Buffer.from(fieldPart('operations', operations) + fieldPart('map', JSON.stringify({ 0: ['variables.file'] })) + filePartHead('0'));
}

export function graphqlForm(flightId: number, file: Buffer, { closed = true } = {}): Buffer {
  return Buffer.concat([graphqlFormHead(flightId), file, Buffer.from(closed ? CLOSING : '')]);
}

/** Headers of a GraphQL multipart upload (Apollo's CSRF prevention wants the preflight header). */
export function graphqlUploadHeaders(token: string): Record<string, string> {
  return { Authorization: `Bearer ${token}`, 'Content-Type': MULTIPART_TYPE, 'Apollo-Require-Preflight': 'true' };
}

export function restUploadHeaders(token: string): Record<string, string> {
  return { Authorization: `Bearer ${token}`, 'Content-Type': MULTIPART_TYPE };
}

/** A valid one-passenger workbook of exactly `size` bytes (a stored padding part makes up the rest). */
export async function workbookOfSize(size: number): Promise<Buffer> {
  const base = await buildPassengerWorkbook([passenger()]);
  const name = 'customXml/padding.bin';
  const overhead = base.length + 30 + 46 + 2 * Buffer.byteLength(name);
  if (size < overhead) throw new Error(`a workbook cannot be as small as ${size} bytes`);
  const padded = withPart(base, storedOrDeflated(name, Buffer.alloc(size - overhead, 0x20), 0));
  if (padded.length !== size) throw new Error(`padding went wrong: ${padded.length} bytes instead of ${size}`);
  return padded;
}

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

function readResponse(response: http.IncomingMessage): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    response.on('data', (chunk: Buffer) => chunks.push(chunk));
    response.on('error', reject);
    response.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        body = undefined;
      }
      resolve({ status: response.statusCode ?? 0, headers: response.headers, text, body });
    });
  });
}

export interface Target {
  port: number;
  path: string;
  headers: Record<string, string>;
}

function open(target: Target, headers: Record<string, string | number>): http.ClientRequest {
  return http.request({ host: '127.0.0.1', port: target.port, path: target.path, method: 'POST', agent: false, headers: { ...target.headers, ...headers } });
}

/** A whole request with an exact Content-Length; the body may itself be malformed. */
export function postRaw(target: Target, body: Buffer): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const request = open(target, { 'Content-Length': body.length });
    request.on('error', reject);
    request.on('response', (response) => readResponse(response).then(resolve, reject));
    request.end(body);
  });
}

/**
 * Declares `declaredLength` bytes but sends only `head`, and keeps the request open: the answer can
 * only arrive if the server decided without reading the body. The socket is closed afterwards.
 */
export function answerWithoutBody(target: Target, declaredLength: number, head: Buffer = Buffer.alloc(0)): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const request = open(target, { 'Content-Length': declaredLength });
    request.on('error', reject);
    request.on('response', (response) =>
      readResponse(response).then((answer) => {
        request.destroy();
        resolve(answer);
      }, reject),
    );
    request.flushHeaders();
    if (head.length) request.write(head);
  });
}

/** Sends `head` of a body announced as `declaredLength` bytes, then drops the connection. */
export function abandonUpload(target: Target, declaredLength: number, head: Buffer): Promise<void> {
  return new Promise((resolve) => {
    const request = open(target, { 'Content-Length': declaredLength });
    // The client itself ends the request: its own "socket hang up" is expected.
    request.on('error', () => undefined);
    request.on('close', () => resolve());
    request.write(head, () => request.destroy());
  });
}

export interface StreamedAnswer extends RawResponse {
  /** Whether the server closed the connection after answering. */
  closedByServer: boolean;
}

/**
 * A chunked body (no Content-Length): `head`, then `chunk` again and again until the server answers
 * or `maxBytes` were sent, the way a client streaming a huge file behaves.
 */
export function streamUntilAnswered(target: Target, head: Buffer, chunk: Buffer, maxBytes: number): Promise<StreamedAnswer> {
  return new Promise((resolve, reject) => {
    const request = open(target, { 'Transfer-Encoding': 'chunked' });
    let sent = 0;
    let answered = false;
    request.on('error', (error) => {
      if (!answered) reject(error);
    });
    request.on('response', (response) => {
      answered = true;
      readResponse(response).then((answer) => {
        const socket = request.socket;
        const closed = () => resolve({ ...answer, closedByServer: true });
        if (!socket || socket.destroyed || socket.readableEnded) closed();
        else socket.once('close', closed);
      }, reject);
    });
    const pump = (): void => {
      while (!answered && sent < maxBytes) {
        const piece = sent === 0 ? head : chunk;
        sent += piece.length;
        if (!request.write(piece)) {
          request.once('drain', pump);
          return;
        }
      }
      if (!answered) request.end();
    };
    pump();
  });
}

/** GET on a fresh connection, e.g. /healthz after an attack. */
export function getStatus(port: number, path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path, agent: false }, (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
      })
      .on('error', reject);
  });
}
