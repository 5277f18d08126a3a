import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestHandler } from 'express';
import type { Config } from '../config';
import { asAppError, badRequest, payloadTooLarge, type AppError } from '../errors';
import { IncomingFile } from '../graphql-kit/upload';
import { readMultipart, type MultipartLimits, type MultipartReceiver } from '../http/multipart';
import { checkJsonDepth } from '../shared/json-depth';
import { clientGoneSignal } from '../shared/read-stream';
import type { ReceivedFile } from '../shared/received-file';

/** Where the protocol is written down; named in the answers to requests that break it. */
const SPEC = 'https://github.com/jaydenseric/graphql-multipart-request-spec';

/** Path segments a `map` entry may not walk or write: they reach an object's prototype. */
const FORBIDDEN_SEGMENTS = new Set(['__proto__', 'prototype', 'constructor']);

/**
 * GraphQL multipart requests (file uploads, as apollo-upload-client sends them) read with the one
 * multipart reader (src/http/multipart.ts); other requests pass untouched. The request goes on to
 * Apollo as soon as its `operations` and `map` fields are read, each file an IncomingFile where the
 * map puts it: the operation starts while the file arrives, and what it refuses without the file
 * (an unknown flight, a bad option) is answered without reading it. Apollo's CSRF prevention still
 * demands a preflight header. A file over uploadMaxBytes is 413, as through REST; a request that
 * breaks the spec, is malformed or ends early is 400; the upload stops when the client goes away.
 */
export function graphqlMultipartRequests(config: Config): RequestHandler {
  // The `operations` and `map` fields (each at most jsonMaxBytes) and the one file.
  const limits: MultipartLimits = { fileBytes: config.limits.uploadMaxBytes, files: 1, fields: 2, fieldBytes: config.limits.jsonMaxBytes };
  return (req, res, next) => {
    if (!req.is('multipart/form-data')) {
      next();
      return;
    }
    const signal = clientGoneSignal(res);
    readOperations(req, res, limits, signal).then(
      (operations) => {
        if (signal.aborted) return;
        req.body = operations;
        next();
      },
      (error: unknown) => {
        if (signal.aborted || res.headersSent) return;
        next(error);
      },
    );
  };
}

/** The request's operations with its files placed, once the `map` field is read. */
function readOperations(req: IncomingMessage, res: ServerResponse, limits: MultipartLimits, signal: AbortSignal): Promise<unknown> {
  const request = new MultipartOperations(limits);
  readMultipart(req, res, { limits, signal, receiver: request }).then(
    () => request.ended(),
    (error: unknown) => request.failed(error),
  );
  return request.mapped;
}

/** The spec's fields and files as the reader hands them over: operations, then map, then the files it names. */
class MultipartOperations implements MultipartReceiver {
  readonly mapped: Promise<unknown>;
  private operations: unknown;
  private files: Map<string, IncomingFile> | undefined;
  private settleMapped!: { resolve(operations: unknown): void; reject(error: AppError): void };

  constructor(private readonly limits: MultipartLimits) {
    this.mapped = new Promise((resolve, reject) => {
      this.settleMapped = { resolve, reject };
    });
  }

  field(name: string, value: string, truncated: boolean): void {
    if (truncated) throw payloadTooLarge(`The multipart GraphQL request is over a limit: its '${name}' field is larger than ${this.limits.fieldBytes} bytes`);
    if (name === 'operations') {
      this.operations = parseField(value, 'operations');
      if (typeof this.operations !== 'object' || this.operations === null) throw unreadableRequest(`the 'operations' field must be a JSON object or array (${SPEC})`);
      checkJsonDepth(this.operations, 'The multipart request’s operations field', 'operations');
    } else if (name === 'map') {
      if (this.operations === undefined) throw unreadableRequest(`the 'map' field must follow the 'operations' field (${SPEC})`);
      this.files = placeFiles(this.operations, parseField(value, 'map'), this.limits.files);
      this.settleMapped.resolve(this.operations);
    }
  }

  wantsFile(name: string): boolean {
    if (!this.files) throw unreadableRequest(`the files must follow the 'operations' and 'map' fields (${SPEC})`);
    return this.files.has(name);
  }

  file(name: string, file: ReceivedFile): void {
    this.files?.get(name)?.arrived(file);
  }

  /** The body ended: a file the map named and the body did not carry is missing. */
  ended(): void {
    if (!this.files) {
      this.settleMapped.reject(unreadableRequest(`it has no ${this.operations === undefined ? "'operations'" : "'map'"} field (${SPEC})`));
      return;
    }
    // A file that arrived is settled already: failing it changes nothing.
    for (const [name, incoming] of this.files) incoming.failed(notReceived(`the body has no file part '${name}', which the map field names`));
  }

  failed(error: unknown): void {
    const known = asAppError(error);
    this.settleMapped.reject(known ?? unreadableRequest((error as Error).message));
    for (const incoming of this.files?.values() ?? []) incoming.failed(known ?? notReceived((error as Error).message));
  }
}

function parseField(value: string, name: 'operations' | 'map'): unknown {
  try {
    return JSON.parse(value);
  } catch {
    throw unreadableRequest(`the '${name}' field is not JSON (${SPEC})`);
  }
}

/**
 * Puts an IncomingFile wherever the map says each file goes ("variables.file", "0.variables.files.1"):
 * each path walks the operations' own members down to an object or array, which receives the file.
 */
function placeFiles(operations: unknown, map: unknown, maxFiles: number): Map<string, IncomingFile> {
  if (typeof map !== 'object' || map === null || Array.isArray(map)) throw unreadableRequest(`the 'map' field must be a JSON object (${SPEC})`);
  const entries = Object.entries(map);
  if (entries.length > maxFiles) throw payloadTooLarge(`The multipart GraphQL request is over a limit: its map names ${entries.length} files; at most ${maxFiles} is accepted`);
  const files = new Map<string, IncomingFile>();
  for (const [name, paths] of entries) {
    if (!Array.isArray(paths) || paths.length === 0) throw unreadableRequest(`the map entry '${name}' must be a non-empty array of paths (${SPEC})`);
    const incoming = new IncomingFile();
    files.set(name, incoming);
    for (const path of paths) placeAt(operations, path, incoming);
  }
  return files;
}

function placeAt(operations: unknown, path: unknown, incoming: IncomingFile): void {
  const segments = typeof path === 'string' ? path.split('.') : [];
  const last = segments.pop();
  let node = operations;
  for (const segment of segments) {
    node = typeof node === 'object' && node !== null && !FORBIDDEN_SEGMENTS.has(segment) && Object.hasOwn(node, segment) ? (node as Record<string, unknown>)[segment] : undefined;
  }
  if (!last || FORBIDDEN_SEGMENTS.has(last) || typeof node !== 'object' || node === null) {
    throw unreadableRequest(`the map path ${JSON.stringify(path)?.slice(0, 100)} names no place in the operations (${SPEC})`);
  }
  (node as Record<string, unknown>)[last] = incoming;
}

/** The request as a whole cannot be read (before its operations could go on). */
function unreadableRequest(reason: string): AppError {
  return badRequest(`The multipart GraphQL request cannot be read: ${reason}`, [
    { field: 'body', message: 'expected a complete GraphQL multipart request: operations, map, then the files, ending with the closing boundary' },
  ]);
}

/** A file the operation waits for could not be received: its resolver answers with this. */
function notReceived(reason: string): AppError {
  return badRequest(`The file could not be received: ${reason}. Send the whole multipart body, ending with its closing boundary.`, [
    { field: 'file', message: 'the multipart body ended, or broke, before the file was complete' },
  ]);
}
