import type { Request } from 'express';
import { AppError, badRequest, ErrorCode, truncateText } from '../src/errors';

/** One entity tag (RFC 9110 8.8.3): the text between its quotes, and whether it is weak (`W/"3"`). */
export interface EntityTag {
  weak: boolean;
  opaque: string;
}

/** `*`, or the entity tags If-Match lists. */
export type IfMatch = '*' | EntityTag[];

/** An entity tag as RFC 9110 writes it, or a bare number (`3`, read as `"3"`). */
const TAG = '(?:W/)?"[\\x21\\x23-\\x7e\\x80-\\xff]*"|\\d{1,9}';
/** A list of them (RFC 9110 5.6.1: commas with optional white space, empty elements allowed, at least one tag). */
const TAG_LIST = new RegExp(`^[ \\t]*(?:,[ \\t]*)*(?:${TAG})(?:[ \\t]*,(?:[ \\t]*(?:${TAG}))?)*[ \\t]*$`);
const EACH_TAG = /(W\/)?"([^"]*)"|(\d{1,9})/g;

/**
 * If-Match as RFC 9110 13.1.1 defines it: `*`, or a comma-separated list of entity tags, strong
 * (`"3"`) or weak (`W/"3"`); undefined when the request has none. A bare number (`3`, unquoted) is
 * read as `"3"`, as the facade has always taken it. Anything else is a 400 naming the header.
 */
export function readIfMatch(req: Request): IfMatch | undefined {
  const header = req.get('If-Match');
  if (header === undefined) return undefined;
  if (header.trim() === '*') return '*';
  if (!TAG_LIST.test(header)) {
    throw badRequest(`If-Match must be * or a list of ETags such as "3", got ${truncateText(header, 100)}`, [
      { field: 'If-Match', message: 'expected * or quoted ETags from earlier answers, separated by commas, e.g. "3"' },
    ]);
  }
  return [...header.matchAll(EACH_TAG)].map(([, weak, quoted, bare]) => ({ weak: weak !== undefined, opaque: quoted ?? bare }));
}

/**
 * Whether If-Match lets a request on a representation with this ETag go on: `*` (a representation
 * exists), or a listed tag equal to it under strong comparison (RFC 9110 8.8.3.2: neither weak).
 */
export function ifMatchAllows(condition: IfMatch, etag: string): boolean {
  if (condition === '*') return true;
  return !etag.startsWith('W/') && condition.some((tag) => !tag.weak && `"${tag.opaque}"` === etag);
}

/** The 412 of a read whose If-Match does not name the current representation. */
export function ifMatchFailed(req: Request, etag: string): AppError {
  const sent = truncateText(req.get('If-Match') ?? '', 100);
  return new AppError(ErrorCode.PRECONDITION_FAILED, `If-Match names ${sent}, not the current ETag ${etag}: read it again`, {
    details: [{ field: 'If-Match', message: `expected ${etag} or *; If-Match compares ETags strongly, so a weak one (W/"…") never matches` }],
  });
}
