import { Readable } from 'node:stream';
import busboy from 'busboy';
import type { RequestHandler } from 'express';
import { Upload } from 'graphql-upload-minimal';
import type { Config } from '../src/config';
import { badRequest, payloadTooLarge } from '../src/errors';
import { UploadPassengerListDocument } from '../src/graphql/generated/operations';
import { buildPassengerTemplate } from '../src/passengers/sheet/passenger-template';
import { readIdParameter, readQueryParameters } from './query';
import { defineRoute } from './route';

/** The multipart form field that carries the spreadsheet (the interface's name). */
export const PAXLIST_FIELD = 'paxlist';

interface ReceivedFile {
  bytes: Buffer;
  filename: string;
  mimetype: string;
  encoding: string;
}

/**
 * Reads the `paxlist` file of a multipart form into memory (at most uploadMaxBytes: 413 beyond).
 * Not multipart, or no `paxlist` file: 400 saying what is expected.
 */
export function paxlistForm(config: Config): RequestHandler {
  const maxBytes = config.limits.uploadMaxBytes;
  return (req, res, next) => {
    if (!req.is('multipart/form-data')) {
      next(badRequest(`Send the spreadsheet as multipart/form-data with the file in the field "${PAXLIST_FIELD}", got Content-Type ${req.get('Content-Type') ?? 'none'}`, [{ field: PAXLIST_FIELD, message: 'expected a multipart/form-data body' }]));
      return;
    }
    let form: busboy.Busboy;
    try {
      form = busboy({ headers: req.headers, limits: { files: 1, fileSize: maxBytes, fields: 20, fieldSize: 1024 } });
    } catch (error) {
      next(badRequest(`The multipart body cannot be read: ${(error as Error).message}`));
      return;
    }
    let received: ReceivedFile | undefined;
    let failure: Error | undefined;
    form.on('file', (name, stream, info) => {
      if (name !== PAXLIST_FIELD || received) {
        stream.resume();
        return;
      }
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('limit', () => {
        failure = payloadTooLarge(`The spreadsheet is larger than the limit of ${maxBytes} bytes`);
      });
      stream.on('end', () => {
        if (!failure) received = { bytes: Buffer.concat(chunks), filename: info.filename ?? 'paxlist.xlsx', mimetype: info.mimeType, encoding: info.encoding };
      });
    });
    form.on('error', (error: Error) => {
      failure ??= badRequest(`The multipart body cannot be read: ${error.message}`);
      req.unpipe(form);
      next(failure);
    });
    form.on('close', () => {
      if (failure) return next(failure);
      if (!received) {
        return next(badRequest(`The form has no file in the field "${PAXLIST_FIELD}"`, [{ field: PAXLIST_FIELD, message: 'expected the .xlsx passenger list in this multipart field' }]));
      }
      res.locals.paxlist = received;
      next();
    });
    req.pipe(form);
  };
}

/** The received file as graphql-upload-minimal's Upload, so the operation's `file: Upload!` takes it. */
function asUpload(file: ReceivedFile): Upload {
  const upload = new Upload();
  (upload as unknown as { resolve(file: unknown): void }).resolve({
    filename: file.filename,
    mimetype: file.mimetype,
    encoding: file.encoding,
    fieldName: PAXLIST_FIELD,
    createReadStream: () => Readable.from([file.bytes]),
  });
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
        readQueryParameters(req, []);
        const flightId = readIdParameter(req, 'id');
        return { flightId, file: asUpload(req.res!.locals.paxlist as ReceivedFile) };
      },
      // Ignored columns and similar remarks travel in a header: the body is the bare array.
      toHeaders: (_data, extensions): Record<string, string> => {
        const warnings = (extensions.warnings as string[] | undefined) ?? [];
        return warnings.length ? { 'X-Sheet-Warnings': encodeURIComponent(warnings.join(' | ')) } : {};
      },
      toResponse: (data) => data.uploadPassengerList,
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
