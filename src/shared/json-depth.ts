import { AppError, badRequest } from '../errors';

/**
 * Deepest nesting of arrays and objects accepted in a client's JSON (a body, a GraphQL multipart
 * `operations` field). The service's own shapes nest far less (a push: body, group, record, value;
 * GraphQL: body, variables, then at most 16 levels of variables); the limit is there because
 * JSON.parse builds any depth without complaint, and every recursive walk after it (an error
 * echoing a value, JSON.stringify) would overflow the stack on a deep one.
 */
export const MAX_JSON_DEPTH = 32;

/** Is `value` nested deeper than `maxDepth`? Iterative, and stops at the first too-deep value. */
export function exceedsJsonDepth(value: unknown, maxDepth = MAX_JSON_DEPTH): boolean {
  if (value === null || typeof value !== 'object') return false;
  const pending: object[] = [value];
  const depths: number[] = [1];
  while (pending.length) {
    const node = pending.pop() as Record<string, unknown>;
    const depth = depths.pop() as number;
    if (depth > maxDepth) return true;
    if (Array.isArray(node)) {
      for (const item of node) {
        if (item !== null && typeof item === 'object') {
          pending.push(item);
          depths.push(depth + 1);
        }
      }
      continue;
    }
    // Only JSON's own objects: an upload's file (a class instance) is not the client's JSON.
    const prototype = Object.getPrototypeOf(node);
    if (prototype !== Object.prototype && prototype !== null) continue;
    // for-in: no array of keys per object. A JSON object has no inherited enumerable members.
    for (const key in node) {
      const item = node[key];
      if (item !== null && typeof item === 'object') {
        pending.push(item);
        depths.push(depth + 1);
      }
    }
  }
  return false;
}

/** Throws 400 naming the limit when `value` (the client's `what`) nests deeper than MAX_JSON_DEPTH. */
export function checkJsonDepth(value: unknown, what: string, field: string): void {
  if (exceedsJsonDepth(value)) throw jsonTooDeep(what, field);
}

function jsonTooDeep(what: string, field: string): AppError {
  return badRequest(`${what} nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep: at most ${MAX_JSON_DEPTH} are accepted`, [
    { field, message: `at most ${MAX_JSON_DEPTH} levels of nesting`, limit: MAX_JSON_DEPTH },
  ]);
}
