/** Longest statement kept on a span, in characters; a larger command's shape is cut there. */
const MAX_STATEMENT_CHARS = 2000;
/** Deepest nesting shown; deeper parts are `"…"`. */
const MAX_DEPTH = 8;

/**
 * The `db.query.text` of a MongoDB command span: the command's shape with every value replaced by
 * `?`, except the collection it names (the first field's value, `{"aggregate":"flights",…}`), so a
 * span says what ran where and never carries data (passengers' names, flight numbers). A list shows
 * its first item's shape and how many follow, so a push of 2,000 passengers costs no more than one.
 */
export function commandStatement(command: Record<string, unknown>): string {
  const [first] = Object.keys(command);
  const shaped = Object.fromEntries(Object.entries(command).map(([key, value]) => [key, key === first && typeof value === 'string' ? value : shape(value, 1)]));
  const text = JSON.stringify(shaped);
  return text.length > MAX_STATEMENT_CHARS ? `${text.slice(0, MAX_STATEMENT_CHARS - 1)}…` : text;
}

function shape(value: unknown, depth: number): unknown {
  if (value === null || typeof value !== 'object') return '?';
  if (depth > MAX_DEPTH) return '…';
  if (Array.isArray(value)) {
    if (value.length === 0) return [];
    return value.length === 1 ? [shape(value[0], depth + 1)] : [shape(value[0], depth + 1), `…${value.length - 1} more`];
  }
  // BSON values (ObjectId, Date, Long, Binary…) are values, not documents.
  const bsonType = (value as { _bsontype?: unknown })._bsontype;
  if (bsonType !== undefined || value instanceof Date || Buffer.isBuffer(value)) return '?';
  return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, shape(inner, depth + 1)]));
}
