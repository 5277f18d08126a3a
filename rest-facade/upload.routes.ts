import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Request, RequestHandler } from 'express';
import { requireScope, Scope } from '../src/auth';
import type { Config } from '../src/config';
import type { GraphQLContext } from '../src/graphql-kit/context';
import { IncomingFile } from '../src/graphql-kit/upload';
import { badRequest, truncateText } from '../src/errors';
import { UploadPassengerListDocument, type DateOrder } from '../src/graphql/generated/operations';
import { readMultipart, UnreadableMultipart, type MultipartLimits } from '../src/http/multipart';
import { GRAPHQL_CONTEXT, takeLocal } from '../src/http/request-state';
import { readPhoneRegion } from '../src/passengers/passenger-upload.service';
import { buildPassengerTemplate } from '../src/passengers/sheet/passenger-template';
import { HIDDEN_ROWS_POLICIES, type HiddenRowsPolicy } from '../src/passengers/sheet/row-visibility';
import { clientGoneSignal } from '../src/shared/read-stream';
import type { ReceivedFile } from '../src/shared/received-file';
import { readIdParameter, readQueryParameters } from './query';
import { defineRoute } from './route';
import { uploadDoc } from './upload.doc';

/** The multipart form field that carries the spreadsheet (the interface's name). */
export const PAXLIST_FIELD = 'paxlist';

/** The file, and other form fields a legacy client may send alongside it (read and ignored). */
const PAXLIST_FORM: Omit<MultipartLimits, 'fileBytes'> = { files: 1, fields: 20, fieldBytes: 1024 };

/** Where paxlistForm leaves the file it read for the route's handler, which takes it off (src/http/request-state.ts). */
const PAXLIST = 'paxlist';

/**
 * Reads the `paxlist` file of a multipart form into memory with the service's multipart reader
 * (src/http/multipart.ts): at most uploadMaxBytes (a file of exactly that size is taken, one byte
 * more is 413). Everything that can be decided without the body is decided first, without reading
 * it: the token's scope (403), the flight id and the query parameters (400 naming the one that is
 * wrong), the Content-Type (400), a Content-Length no upload can need (413). A body that ends
 * inside a part or is malformed is 400. A refused body is not parsed further (its rest lingers:
 * src/http/lingering-close.ts); a client that goes away stops the reading.
 */
export function paxlistForm(config: Config): RequestHandler {
  const limits: MultipartLimits = { fileBytes: config.limits.uploadMaxBytes, ...PAXLIST_FORM };
  return (req, res, next) => {
    try {
      requireScope((res.locals[GRAPHQL_CONTEXT] as GraphQLContext).principal, Scope.PassengersWrite);
      // A file sent to a wrong address or with a wrong option would be read for nothing (up to UPLOAD_MAX_BYTES).
      readUploadParameters(req);
    } catch (error) {
      next(error);
      return;
    }
    if (!req.is('multipart/form-data')) {
      next(badRequest(`Send the spreadsheet as multipart/form-data with the file in the field "${PAXLIST_FIELD}", got Content-Type ${req.get('Content-Type') ?? 'none'}`, [{ field: PAXLIST_FIELD, message: 'expected a multipart/form-data body' }]));
      return;
    }
    const signal = clientGoneSignal(res);
    readPaxlist(req, res, limits, signal).then(
      (file) => {
        res.locals[PAXLIST] = file;
        next();
      },
      (error: unknown) => {
        // Nobody is left to answer (the socket is already gone), or the answer was sent.
        if (signal.aborted || res.headersSent) return;
        next(error instanceof UnreadableMultipart ? unreadableForm(error) : error);
      },
    );
  };
}

/** A body the multipart reader cannot read (no boundary, cut short, malformed): 400, the detail saying what a form needs. */
function unreadableForm(error: UnreadableMultipart) {
  return badRequest(`The multipart body cannot be read: ${error.message}`, [
    { field: 'body', message: `expected a complete multipart/form-data body: the boundary its Content-Type names, the file in the field "${PAXLIST_FIELD}", then the closing boundary` },
  ]);
}

/** The form's first `paxlist` file part; other parts are read past. */
async function readPaxlist(req: IncomingMessage, res: ServerResponse, limits: MultipartLimits, signal: AbortSignal): Promise<ReceivedFile> {
  let claimed = false;
  let paxlist: ReceivedFile | undefined;
  await readMultipart(req, res, {
    limits,
    signal,
    receiver: {
      field: () => undefined,
      wantsFile: (name) => {
        if (name !== PAXLIST_FIELD || claimed) return false;
        claimed = true;
        return true;
      },
      file: (_name, file) => {
        paxlist = { ...file, filename: file.filename || PAXLIST_FIELD };
      },
    },
  });
  if (!paxlist) {
    throw badRequest(`The form has no file in the field "${PAXLIST_FIELD}"`, [{ field: PAXLIST_FIELD, message: 'expected the passenger list (.xlsx, .ods or CSV) in this multipart field' }]);
  }
  if (paxlist.bytes.length === 0) {
    throw badRequest('The uploaded file is empty', [{ field: PAXLIST_FIELD, message: 'expected a passenger list (.xlsx, .ods or CSV) with at least its heading row, got a file of 0 bytes' }]);
  }
  return paxlist;
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

/**
 * The upload's flight id and query parameters, each checked (a 400 naming it): `hiddenRows`,
 * `dateOrder` and `defaultPhoneRegion` (checked with the upload service's own check, which runs
 * again when the operation does and applies the configured default). A function of the URL alone:
 * paxlistForm calls it before reading the body, the route again for the operation's variables.
 */
function readUploadParameters(req: Request) {
  const query = readQueryParameters(req, ['hiddenRows', 'dateOrder', 'defaultPhoneRegion']);
  const flightId = readIdParameter(req, 'id');
  const hiddenRows = readHiddenRows(query.hiddenRows);
  const dateOrder = readDateOrder(query.dateOrder);
  if (query.defaultPhoneRegion !== undefined) readPhoneRegion(query.defaultPhoneRegion);
  return { flightId, hiddenRows, dateOrder, defaultPhoneRegion: query.defaultPhoneRegion ?? null };
}

/** The file paxlistForm read in full for this request, before the operation runs. */
function receivedPaxlist(req: Request): ReceivedFile {
  const file = req.res && takeLocal<ReceivedFile>(req.res, PAXLIST);
  if (!file) throw new Error('POST /upload/:id ran without its paxlistForm middleware');
  return file;
}

export function uploadRoutes(config: Config) {
  return [
    defineRoute({
      method: 'POST',
      path: '/upload/:id',
      middleware: [paxlistForm(config)],
      operation: UploadPassengerListDocument,
      toVariables: (req) => {
        const { flightId, hiddenRows, dateOrder, defaultPhoneRegion } = readUploadParameters(req);
        return { flightId, file: IncomingFile.received(receivedPaxlist(req)), hiddenRows, dateOrder, defaultPhoneRegion };
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
