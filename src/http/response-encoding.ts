import { hash } from 'node:crypto';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import contentType from 'content-type';
import type { Request, RequestHandler, Response } from 'express';

/**
 * How answers leave the service (the figures behind each choice: docs/performance.md, "Figures
 * behind the code", and bench/README.md, "Timeline"):
 *
 * - Encoding to bytes: Express turns a string body into a Buffer with `Buffer.from`, many times
 *   slower for a large answer than allocating the buffer and writing the string into it. Large
 *   string bodies are encoded that way before Express sees them.
 * - Compression, negotiated with Accept-Encoding (q-values honoured; no header means identity):
 *   brotli at quality 1 or gzip at level 1, the cheap ends of both (the default levels cost several
 *   times the CPU for a modest saving in bytes). Only 200 answers of at least COMPRESSION_MIN_BYTES, without an ETag of their own (a list
 *   version must stay one strong validator whatever the coding) and not already encoded.
 * - ETag: GET and HEAD answers only (a POST answer cannot be revalidated, and Express hashed every
 *   one), computed over the bytes sent, so a compressed timeline is hashed at its compressed size.
 *   If-None-Match is evaluated as RFC 9110 says (see ifNoneMatchNames), so fetch() clients,
 *   which add Cache-Control: no-cache to conditional requests, get their 304 too.
 *
 * Install it before the routes, and turn Express's own ETag off (`app.set('etag', false)`).
 */
export const COMPRESSION_MIN_BYTES = 1024;

/** Strings longer than this are encoded into a buffer of their own (below it Buffer.from's pool is cheaper). */
const DIRECT_ENCODING_MIN_CHARS = 16 * 1024;

const CODINGS = ['br', 'gzip', 'identity'] as const;

export function encodeResponses(): RequestHandler {
  return (req, res, next) => {
    const send = res.send;
    res.send = function sendEncoded(this: Response, body?: unknown) {
      if (typeof body !== 'string' && !Buffer.isBuffer(body)) return send.call(this, body);
      if (typeof body === 'string') withUtf8Charset(this);
      const bytes = typeof body === 'string' ? encodeUtf8(body) : body;
      const sent = this.statusCode === 200 ? compressForClient(req, this, bytes) : bytes;
      if (this.statusCode === 200 && (req.method === 'GET' || req.method === 'HEAD') && !this.get('ETag')) {
        this.set('ETag', contentETag(sent));
        if (ifNoneMatchNames(req.get('If-None-Match'), this.get('ETag') as string)) {
          this.status(304);
          this.removeHeader('Content-Encoding');
          return send.call(this, Buffer.alloc(0));
        }
      }
      return send.call(this, sent);
    };
    next();
  };
}

/** What Express does to a string body's Content-Type: HTML unless set, and always `charset=utf-8`. */
function withUtf8Charset(res: Response): void {
  const type = res.get('Content-Type');
  if (typeof type !== 'string') {
    res.set('Content-Type', 'text/html; charset=utf-8');
    return;
  }
  const parsed = contentType.parse(type);
  parsed.parameters.charset = 'utf-8';
  res.set('Content-Type', contentType.format(parsed));
}

export function encodeUtf8(text: string): Buffer {
  if (text.length < DIRECT_ENCODING_MIN_CHARS) return Buffer.from(text, 'utf8');
  const bytes = Buffer.allocUnsafeSlow(Buffer.byteLength(text, 'utf8'));
  bytes.write(text, 'utf8');
  return bytes;
}

/** Text formats: JSON (GraphQL's media types included), text, JavaScript, XML. Spreadsheets are zips already. */
const COMPRESSIBLE = /^(text\/|application\/(json|graphql-response\+json|[\w.+-]+\+json|javascript|xml)\b)/i;

function compressForClient(req: Request, res: Response, bytes: Buffer): Buffer {
  if (bytes.length < COMPRESSION_MIN_BYTES || res.get('Content-Encoding') || res.get('ETag')) return bytes;
  if (!COMPRESSIBLE.test(String(res.get('Content-Type') ?? ''))) return bytes;
  // Whichever coding is chosen, the answer depends on this header.
  res.vary('Accept-Encoding');
  const coding = req.acceptsEncodings([...CODINGS]);
  if (coding === 'br') {
    res.set('Content-Encoding', 'br');
    return brotliCompressSync(bytes, {
      params: { [constants.BROTLI_PARAM_QUALITY]: 1, [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length },
    });
  }
  if (coding === 'gzip') {
    res.set('Content-Encoding', 'gzip');
    return gzipSync(bytes, { level: 1 });
  }
  return bytes;
}

/** A strong validator of exactly these bytes: their length and SHA-1 (what Express's `etag` computes). */
function contentETag(bytes: Buffer): string {
  // The one-shot `hash`: a Hash object costs more than hashing a small answer.
  return `"${bytes.length.toString(16)}-${hash('sha1', bytes, 'base64').slice(0, 27)}"`;
}

/**
 * RFC 9110 13.1.2: whether If-None-Match names the current representation (`*`, or any listed tag
 * equal to `etag` under weak comparison). Not Express's `req.fresh`: it ignores If-None-Match when
 * the request says `Cache-Control: no-cache`, which fetch() adds to every request that sets
 * If-None-Match itself, so browser and Node clients would never get their 304.
 */
export function ifNoneMatchNames(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  if (header.trim() === '*') return true;
  const opaque = etag.replace(/^W\//, '');
  return (header.match(/(?:W\/)?"[^"]*"/g) ?? []).some((tag) => tag.replace(/^W\//, '') === opaque);
}
