import type { Request, RequestHandler } from 'express';
import type { Config } from '../src/config';
import { AppError, badRequest, ErrorCode, unsupportedMediaType, type ErrorDetail } from '../src/errors';
import { PushPassengerListDocument } from '../src/graphql/generated/operations';
import { boundedJsonBody } from '../src/shared/json-body';
import { readIdParameter, readQueryParameters } from './query';
import { defineRoute } from './route';

const GROUPS = ['created', 'modified', 'deleted'] as const;

/** `If-Match: "3"` (or W/"3", or 3) → 3; `*` → no version pinned. A list's ETag is its version. */
export function readIfMatch(req: Request): number | null {
  const header = req.get('If-Match');
  if (header === undefined || header.trim() === '*') return null;
  const match = /^\s*(?:W\/)?"?(\d{1,9})"?\s*$/.exec(header);
  if (!match) {
    throw badRequest(`If-Match must be the ETag of the passenger list, such as "3", got ${header}`, [{ field: 'If-Match', message: 'expected a quoted version number from an earlier ETag' }]);
  }
  return Number(match[1]);
}

/**
 * The push body: an object with the three arrays; `deleted` entries are ids or `{id}` objects. A
 * group longer than `maxItems` is refused from its length (413), before any item is looked at.
 */
function readChanges(body: unknown, maxItems: number) {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw badRequest('The body must be a JSON object with the arrays created, modified and deleted', [{ field: 'body', message: 'expected {"created": [], "modified": [], "deleted": []}' }]);
  }
  const record = body as Record<string, unknown>;
  const problems: ErrorDetail[] = [];
  for (const group of GROUPS) {
    if (!Array.isArray(record[group])) problems.push({ field: group, message: `${group} must be present and be an array (it may be empty)` });
  }
  for (const key of Object.keys(record)) {
    if (!(GROUPS as readonly string[]).includes(key)) problems.push({ field: key, message: `unknown member "${key}": the body holds only created, modified and deleted` });
  }
  if (problems.length) throw badRequest(problems.map((problem) => problem.message).join('; '), problems);
  const oversized = GROUPS.filter((group) => (record[group] as unknown[]).length > maxItems);
  if (oversized.length) {
    const sizes = oversized.map((group) => `${group} holds ${(record[group] as unknown[]).length} items`).join(', ');
    throw new AppError(ErrorCode.PAYLOAD_TOO_LARGE, `${sizes}: at most ${maxItems} records per group in one push; split the change set`, {
      details: oversized.map((group) => ({ field: group, message: `at most ${maxItems} items`, limit: maxItems })),
    });
  }
  const deleted = (record.deleted as unknown[]).map((entry) => {
    const id = typeof entry === 'object' && entry !== null ? (entry as { id?: unknown }).id : entry;
    // Anything but an integer reaches the operation as null, which the service reports by index.
    return typeof id === 'number' && Number.isInteger(id) ? id : null;
  });
  return { created: record.created as never[], modified: record.modified as never[], deleted };
}

/** JSON bodies only, within the configured size (415 and 413 otherwise). */
export function jsonBody(config: Config): RequestHandler[] {
  return [
    (req, _res, next) => {
      next(req.is('application/json') ? undefined : unsupportedMediaType(`Content-Type must be application/json, got ${req.get('Content-Type') ?? 'none'}`));
    },
    boundedJsonBody(config.limits.jsonMaxBytes),
  ];
}

export function passengerRoutes(config: Config) {
  return [
    defineRoute({
      method: 'POST',
      path: '/flight/:flight_id/passenger',
      middleware: jsonBody(config),
      operation: PushPassengerListDocument,
      toVariables: (req) => {
        readQueryParameters(req, []);
        return {
          flightId: readIdParameter(req, 'flight_id'),
          changes: readChanges(req.body, config.limits.inputMaxListItems),
          expectedVersion: readIfMatch(req),
          idempotencyKey: req.get('Idempotency-Key') ?? null,
        };
      },
      toHeaders: (data) => ({ ETag: `"${data.pushPassengerList.version}"` }),
      toResponse: (data) => data.pushPassengerList,
    }),
  ];
}
