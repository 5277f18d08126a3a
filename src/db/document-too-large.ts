/** Server codes for a document over the 16 MiB BSON limit: BSONObjectTooLarge, and older servers' update variants. */
const TOO_LARGE_CODES = new Set([10334, 17419, 17420]);
const TOO_LARGE_MESSAGE = /object to insert too large|BSONObjectTooLarge|document is larger than the maximum size|document after update is larger than|BSONObj size: \d+ \(0x[0-9a-f]+\) is invalid/i;

/**
 * A write refused because the resulting document would exceed MongoDB's document size limit, as the
 * server reports it (an error code, or a write error inside a bulk answer) or as the driver refuses
 * it before sending (a message naming the maximum size).
 */
export function isDocumentTooLarge(error: unknown): boolean {
  const candidate = error as { code?: unknown; codeName?: unknown; message?: unknown; writeErrors?: unknown } | null;
  if (!candidate || typeof candidate !== 'object') return false;
  if (typeof candidate.code === 'number' && TOO_LARGE_CODES.has(candidate.code)) return true;
  if (candidate.codeName === 'BSONObjectTooLarge') return true;
  if (Array.isArray(candidate.writeErrors) && candidate.writeErrors.some(isDocumentTooLarge)) return true;
  return typeof candidate.message === 'string' && TOO_LARGE_MESSAGE.test(candidate.message);
}
