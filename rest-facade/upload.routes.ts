import { Readable } from 'node:stream';
import busboy from 'busboy';
import type { Request, RequestHandler, Response } from 'express';
import { Upload } from 'graphql-upload-minimal';
import { requireScope, Scope } from '../src/auth';
import type { Config } from '../src/config';
import type { GraphQLContext } from '../src/graphql-kit/context';
import { asAppError, badRequest, truncateText, type AppError } from '../src/errors';
import { UploadPassengerListDocument, type DateOrder } from '../src/graphql/generated/operations';
import type { ReceivedFileUpload } from '../src/passengers/passenger-upload.service';
import { buildPassengerTemplate } from '../src/passengers/sheet/passenger-template';
import { HIDDEN_ROWS_POLICIES, type HiddenRowsPolicy } from '../src/passengers/sheet/row-visibility';
import { MULTIPART_OVERHEAD_BYTES, clientGoneSignal, declaredLength, readStreamWithLimit, uploadTooLarge, watchBodySize } from '../src/shared/read-stream';
import { readIdParameter, readQueryParameters } from './query';
import { defineRoute } from './route';
import { uploadDoc } from './upload.doc';

/** The multipart form field that carries the spreadsheet (the interface's name). */
export const PAXLIST_FIELD = 'paxlist';

/** Other form fields a legacy client may send alongside the file (read and ignored). */
const FORM_FIELDS = { count: 20, bytes: 1024 };

interface ReceivedFile {
  bytes: Buffer;
  filename: string;
  mimetype: string;
  encoding: string;
  /** Fires when the client goes away before its answer: the parse stops. */
  signal: AbortSignal;
}

/**
 * Reads the `paxlist` file of a multipart form into memory: at most uploadMaxBytes (a file of
 * exactly that size is taken, one byte more is 413). Everything that can be decided without the
 * body is decided first, without reading it: the token's scope (403), the Content-Type (400), a
 * Content-Length no upload can need (413). A body that ends inside a part or is malformed is 400.
 * A refused body is not parsed further (its rest lingers: src/http/lingering-close.ts); a client
 * that goes away stops the reading.
 */
export function paxlistForm(config: Config): RequestHandler {
  const maxFileBytes = config.limits.uploadMaxBytes;
  const maxBodyBytes = maxFileBytes + FORM_FIELDS.count * FORM_FIELDS.bytes + MULTIPART_OVERHEAD_BYTES;
  return (req, res, next) => {
    try {
      requireScope((res.locals.graphqlContext as GraphQLContext).principal, Scope.PassengersWrite);
    } catch (error) {
      next(error);
      return;
    }
    if (!req.is('multipart/form-data')) {
      next(badRequest(`Send the spreadsheet as multipart/form-data with the file in the field "${PAXLIST_FIELD}", got Content-Type ${req.get('Content-Type') ?? 'none'}`, [{ field: PAXLIST_FIELD, message: 'expected a multipart/form-data body' }]));
      return;
    }
    const declared = declaredLength(req);
    if (declared !== undefined && declared > maxBodyBytes) {
      next(uploadTooLarge(maxFileBytes));
      return;
    }
    const signal = clientGoneSignal(res);
    receivePaxlist(req, { maxFileBytes, maxBodyBytes, signal }).then(
      (file) => {
        res.locals.paxlist = file;
        next();
      },
      (error: AppError) => {
        // Nobody is left to answer; the socket is already gone.
        if (signal.aborted) return;
        next(error);
      },
    );
  };
}

const unreadable = (error: unknown) => badRequest(`The multipart body cannot be read: ${(error as Error).message}`);

/**
 * busboy over the request, every stream with its error handled: the first failure (malformed or
 * truncated body, file over the limit, body over its allowance, client gone) settles the promise,
 * stops the reading and destroys the parser (and with it the file stream).
 */
function receivePaxlist(req: Request, limits: { maxFileBytes: number; maxBodyBytes: number; signal: AbortSignal }): Promise<ReceivedFile> {
  const { maxFileBytes, maxBodyBytes, signal } = limits;
  return new Promise((resolve, reject) => {
    let form: busboy.Busboy;
    try {
      // busboy reports `limit` when a file reaches fileSize: one byte more lets a file of exactly the limit through.
      form = busboy({ headers: req.headers, limits: { files: 1, fileSize: maxFileBytes + 1, fields: FORM_FIELDS.count, fieldSize: FORM_FIELDS.bytes, parts: FORM_FIELDS.count + 5, headerPairs: 20 } });
    } catch (error) {
      reject(unreadable(error));
      return;
    }
    let file: Promise<ReceivedFile> | undefined;
    let settled = false;
    const fail = (error: unknown) => {
      if (settled) return;
      settled = true;
      req.unpipe(form);
      // Not from inside busboy's own event: it is still walking the chunk that raised it.
      process.nextTick(() => form.destroy());
      reject(asAppError(error) ?? unreadable(error));
    };
    form.on('file', (name, stream, info) => {
      if (name !== PAXLIST_FIELD || file) {
        stream.on('error', () => undefined);
        stream.resume();
        return;
      }
      stream.once('limit', () => fail(uploadTooLarge(maxFileBytes)));
      file = readStreamWithLimit(stream, maxFileBytes, () => uploadTooLarge(maxFileBytes)).then((bytes) => ({
        bytes,
        filename: info.filename ?? 'paxlist',
        mimetype: info.mimeType,
        encoding: info.encoding,
        signal,
      }));
      file.catch(fail);
    });
    form.on('error', fail);
    form.on('close', () => {
      if (settled) return;
      if (!file) {
        fail(badRequest(`The form has no file in the field "${PAXLIST_FIELD}"`, [{ field: PAXLIST_FIELD, message: 'expected the passenger list (.xlsx, .ods or CSV) in this multipart field' }]));
        return;
      }
      file.then((received) => {
        if (settled) return;
        settled = true;
        resolve(received);
      }, fail);
    });
    signal.addEventListener('abort', () => fail(signal.reason), { once: true });
    // A chunked body announces no length: count it as it comes.
    watchBodySize(req, maxBodyBytes, () => fail(uploadTooLarge(maxFileBytes)));
    req.pipe(form);
  });
}

/** `?hiddenRows=skip|import` (any case), as the operation's enum; absent means the default. */
function readHiddenRows(raw: string | undefined): HiddenRowsPolicy | null {
  if (raw === undefined) return null;
  const policy = HIDDEN_ROWS_POLICIES.find((name) => name === raw.trim().toUpperCase());
  if (!policy) {
    throw badRequest(`query parameter hiddenRows must be SKIP or IMPORT, got "${raw.slice(0, 40)}"`, [
      { field: 'hiddenRows', message: 'expected SKIP (leave rows hidden by hand or by a filter out, the default) or IMPORT (read them as passengers)' },
    ]);
  }
  return policy;
}

/**
 * Longest X-Sheet-Warnings value: HTTP clients refuse an answer whose headers pass 16 KiB (Node's
 * fetch and http, Go, nginx as a proxy by default 4 to 8 KiB), and a list can warn once per passenger.
 */
export const MAX_WARNINGS_HEADER_CHARS = 6000;

/**
 * The warnings URL-encoded and joined by " | ", as many whole ones as fit, then how many were left
 * out (counting those the parser's own last line, "… and N more warnings", already stood for).
 */
function warningsHeader(warnings: readonly string[]): string {
  const summary = /^… and (\d+) more warnings$/.exec(warnings[warnings.length - 1]);
  const listed = summary ? warnings.slice(0, -1) : warnings;
  const separator = encodeURIComponent(' | ');
  let header = '';
  for (let i = 0; i < listed.length; i += 1) {
    const next = `${header}${header ? separator : ''}${encodeURIComponent(listed[i])}`;
    if (next.length > MAX_WARNINGS_HEADER_CHARS - 200) {
      const rest = listed.length - i + (summary ? Number(summary[1]) : 0);
      return `${header}${header ? separator : ''}${encodeURIComponent(`… and ${rest} more warnings (the GraphQL upload lists up to 100 in extensions.warnings)`)}`;
    }
    header = next;
  }
  return summary ? `${header}${separator}${encodeURIComponent(summary[0])}` : header;
}

const DATE_ORDERS: Record<string, DateOrder> = { dmy: 'DMY', mdy: 'MDY' };

/** `dateOrder=DMY` or `MDY` (any case), or null when absent. */
function readDateOrder(value: string | undefined): DateOrder | null {
  if (value === undefined) return null;
  const order = DATE_ORDERS[value.trim().toLowerCase()];
  if (order) return order;
  throw badRequest(`query parameter dateOrder must be DMY (day first, 05/06/1980 is 5 June) or MDY (month first, 6 May), got "${truncateText(value, 20)}"`, [
    { field: 'dateOrder', message: 'expected DMY or MDY' },
  ]);
}

/** The received file as graphql-upload-minimal's Upload, so the operation's `file: Upload!` takes it. */
function asUpload(file: ReceivedFile): Upload {
  const upload = new Upload();
  const received: ReceivedFileUpload = {
    filename: file.filename,
    mimetype: file.mimetype,
    encoding: file.encoding,
    fieldName: PAXLIST_FIELD,
    createReadStream: () => Readable.from([file.bytes]) as unknown as ReturnType<ReceivedFileUpload['createReadStream']>,
    signal: file.signal,
  };
  (upload as unknown as { resolve(file: ReceivedFileUpload): void }).resolve(received);
  return upload;
}

export function uploadRoutes(config: Config) {
  return [
    defineRoute({
      method: 'POST',
      path: '/upload/:id',
      middleware: [paxlistForm(config)],
      operation: UploadPassengerListDocument,
      toVariables: (req) => {
        const query = readQueryParameters(req, ['hiddenRows', 'dateOrder', 'defaultPhoneRegion']);
        const flightId = readIdParameter(req, 'id');
        return {
          flightId,
          file: asUpload((req.res as Response).locals.paxlist as ReceivedFile),
          hiddenRows: readHiddenRows(query.hiddenRows),
          dateOrder: readDateOrder(query.dateOrder),
          // Checked by the upload service, which answers 400 naming the parameter.
          defaultPhoneRegion: query.defaultPhoneRegion ?? null,
        };
      },
      // Ignored columns and similar remarks travel in a header: the body is the bare array.
      toHeaders: (_data, extensions): Record<string, string> => {
        const warnings = (extensions.warnings as string[] | undefined) ?? [];
        return warnings.length ? { 'X-Sheet-Warnings': warningsHeader(warnings) } : {};
      },
      toResponse: (data) => data.uploadPassengerList,
      doc: uploadDoc,
    }),
  ];
}

let template: Promise<Buffer> | undefined;

/** GET /upload/template.xlsx: the spreadsheet template (no token: it holds no data). */
export const templateHandler: RequestHandler = async (_req, res, next) => {
  try {
    template ??= buildPassengerTemplate();
    const bytes = await template;
    res.setHeader('Content-Type', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
    res.setHeader('Content-Disposition', 'attachment; filename="passenger-list-template.xlsx"');
    res.setHeader('Cache-Control', 'public, max-age=3600');
    res.send(bytes);
  } catch (error) {
    template = undefined;
    next(error);
  }
};
