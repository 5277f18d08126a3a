import type { IncomingMessage } from 'node:http';
import contentType from 'content-type';
import type { RequestHandler } from 'express';
import getRawBody from 'raw-body';
import { authenticationRequired, requireScope, Scope, type RequestAuthenticator } from '../auth';
import { AppError, badRequest, payloadTooLarge, unsupportedMediaType } from '../errors';
import { checkJsonDepth } from '../shared/json-depth';
import { declaredLength } from '../shared/read-stream';

/**
 * Reads an `application/json` body of at most `maxBytes` into `req.body`; other requests pass
 * untouched (GET, multipart…). Unlike express.json, which reads a refused body to its end before
 * answering, the limit is enforced where the bytes arrive: a Content-Length over it is refused at
 * once without reading, and a chunked body is refused as soon as it passes it. Either way the
 * answer closes the connection, and the rest of the body is only dropped, within the bounds of
 * src/http/lingering-close.ts.
 */
export function boundedJsonBody(maxBytes: number, anonymous?: AnonymousBodyLimit): RequestHandler {
  return async (req, _res, next) => {
    if (req.body !== undefined) {
      next();
      return;
    }
    if (!hasBody(req) || !req.is('application/json')) {
      // As express.json leaves it: an empty object, which Apollo's integration insists on.
      req.body = {};
      next();
      return;
    }
    const encoding = (req.get('Content-Encoding') ?? 'identity').toLowerCase();
    if (encoding !== 'identity') {
      next(unsupportedMediaType(`Content-Encoding ${encoding} is not accepted: send the JSON body uncompressed`));
      return;
    }
    let charset = 'utf-8';
    try {
      charset = (contentType.parse(req).parameters.charset ?? 'utf-8').toLowerCase();
    } catch {
      next(badRequest(`The Content-Type header cannot be read: ${req.get('Content-Type')}`, [{ field: 'Content-Type', message: 'expected a media type such as application/json; charset=utf-8' }]));
      return;
    }
    if (charset !== 'utf-8' && charset !== 'utf8') {
      next(unsupportedMediaType(`A JSON body must be UTF-8, got charset ${charset}`));
      return;
    }
    const declared = declaredLength(req);
    let limit = maxBytes;
    if (anonymous) {
      try {
        if (!(await anonymous.authenticate(req))) limit = anonymous.maxBytes;
      } catch (error) {
        // A bad token is answered now (401), before its body is read.
        next(error);
        return;
      }
    }
    // The same answer whether the Content-Length said so or the bytes did.
    const overLimit = () => (limit < maxBytes ? anonymousTooLarge(limit) : tooLarge(maxBytes));
    if (declared !== undefined && declared > limit) {
      next(overLimit());
      return;
    }
    getRawBody(req, { length: declared, limit, encoding: 'utf-8' }).then(
      (text) => {
        try {
          req.body = parseJson(text);
        } catch (error) {
          next(error);
          return;
        }
        next();
      },
      (error: { type?: string; message?: string }) => {
        if (error.type === 'entity.too.large') next(overLimit());
        else if (error.type === 'request.size.invalid') next(badRequest('The body is shorter or longer than its Content-Length says', [{ field: 'body', message: 'expected exactly the bytes Content-Length announces' }]));
        else if (error.type === 'request.aborted') next(badRequest('The client closed the request before its body arrived', [{ field: 'body', message: 'expected the whole body before the connection ends' }]));
        else next(badRequest(`The request body cannot be read: ${error.message ?? 'unknown error'}`, [{ field: 'body', message: 'expected a UTF-8 JSON body' }]));
      },
    );
  };
}

/**
 * Requests without a valid token get a small body limit (an introspection query is a few kB), so an
 * anonymous client cannot make the service parse a megabyte of JSON before it is told to log in.
 */
export interface AnonymousBodyLimit {
  maxBytes: number;
  authenticate: RequestAuthenticator;
}

function anonymousTooLarge(maxBytes: number): AppError {
  return authenticationRequired(`A request without a valid token may carry at most ${maxBytes} bytes of JSON: send Authorization: Bearer <token>`);
}

/**
 * Multipart bodies on /graphql are uploads (uploadPassengerList), which need a token with
 * passengers:write: without one the answer is 401 or 403 before a byte of the file is read.
 */
export function tokenBeforeMultipart(authenticate: RequestAuthenticator): RequestHandler {
  return async (req, _res, next) => {
    if (!req.is('multipart/form-data')) {
      next();
      return;
    }
    try {
      const principal = await authenticate(req);
      if (!principal) throw authenticationRequired('Uploads need a token: send Authorization: Bearer <token>');
      requireScope(principal, Scope.PassengersWrite);
      next();
    } catch (error) {
      next(error);
    }
  };
}

/** Whether the request carries a body: chunked, or a Content-Length other than 0 (RFC 9112 6.3). */
export function hasBody(req: IncomingMessage): boolean {
  return req.headers['transfer-encoding'] !== undefined || (req.headers['content-length'] !== undefined && req.headers['content-length'] !== '0');
}

function tooLarge(maxBytes: number): AppError {
  return payloadTooLarge(`The JSON body is larger than the limit of ${maxBytes} bytes`);
}

/**
 * JSON.parse, with the position of a syntax error told the client; only objects and arrays, as
 * express.json's strict mode, and nested at most MAX_JSON_DEPTH levels.
 */
function parseJson(text: string): unknown {
  const first = /\S/.exec(text)?.[0];
  if (first !== '{' && first !== '[') {
    throw badRequest('The JSON body must be an object or an array', [{ field: 'body', message: `expected a JSON object or array, got ${describeOtherBody(text, first)}` }]);
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (error) {
    throw badRequest(`The request body is not valid JSON: ${(error as Error).message}`, [{ field: 'body', message: `expected valid JSON (RFC 8259): ${(error as Error).message}` }]);
  }
  // Before anything walks it: a 20 kB body can nest 10,000 arrays deep.
  checkJsonDepth(body, 'The JSON body', 'body');
  return body;
}

/** What a body that is neither an object nor an array starts as, for its 400's detail. */
function describeOtherBody(text: string, first: string | undefined): string {
  if (first === undefined) return 'an empty body';
  const keyword = /^\s*(null|true|false)\b/.exec(text)?.[1];
  if (keyword) return keyword;
  if (first === '"') return 'a string';
  return /[-\d]/.test(first) ? 'a number' : 'text that is not JSON';
}
