import type { Request } from 'express';
import { badRequest, type ErrorDetail } from '../src/errors';

/**
 * Reads a query string strictly: only the named parameters, each at most once, each a plain string.
 * `start[$gt]=…`, repeated parameters and unknown names are a 400, so nothing but a string can
 * reach an operation's variables. `ignored` names are accepted and dropped unread, whatever their
 * value: cache busters such as jQuery's and FullCalendar's `_=<timestamp>`.
 */
export function readQueryParameters<Name extends string>(
  req: Request,
  allowed: readonly Name[],
  ignored: readonly string[] = [],
): Partial<Record<Name, string>> {
  const problems: ErrorDetail[] = [];
  const values: Partial<Record<Name, string>> = {};
  for (const [name, value] of Object.entries(req.query as Record<string, unknown>)) {
    if (ignored.includes(name)) continue;
    if (!(allowed as readonly string[]).includes(name)) {
      problems.push({ field: name, message: `unknown query parameter "${name}": ${allowed.length ? `this route accepts ${allowed.join(', ')}` : 'this route takes no parameters'}` });
    } else if (typeof value !== 'string') {
      problems.push({ field: name, message: `query parameter "${name}" must be given once, as a plain value` });
    } else {
      values[name as Name] = value;
    }
  }
  if (problems.length) throw badRequest(problems.map((problem) => problem.message).join('; '), problems);
  return values;
}

/** A path segment that must be a positive integer id (the legacy routes' `<id>`). */
export function readIdParameter(req: Request, name: string): number {
  const raw = req.params[name];
  if (typeof raw !== 'string' || !/^[1-9]\d{0,9}$/.test(raw) || Number(raw) > 2_147_483_647) {
    throw badRequest(`path parameter ${name} must be a positive integer, got "${String(raw)}"`, [
      { field: name, message: 'expected a positive integer id' },
    ]);
  }
  return Number(raw);
}
