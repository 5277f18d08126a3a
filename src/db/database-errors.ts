import { errorChain } from '../errors';

/** Driver errors that mean the database cannot answer now: down, frozen, too slow or closing. */
const UNAVAILABLE_ERRORS = new Set([
  'MongoServerSelectionError',
  'MongooseServerSelectionError',
  'MongoNetworkError',
  'MongoNetworkTimeoutError',
  'MongoPoolClearedError',
  'MongoPoolClosedError',
  'MongoWaitQueueTimeoutError',
  'MongoOperationTimeoutError',
  'MongoNotConnectedError',
  'MongoTopologyClosedError',
  'MongoServerClosedError',
]);
/**
 * Server error codes of the same kind: MaxTimeMSExpired (50) and ExceededTimeLimit (262) from the
 * time limits we send, and a server shutting down, stepping down or unreachable behind a router.
 */
const UNAVAILABLE_SERVER_CODES = new Set([6, 7, 50, 89, 91, 189, 262, 9001, 10107, 11600, 11602, 13435, 13436]);
/** mongoose's own: operations queued before the first connection past bufferTimeoutMS. */
const BUFFERING_TIMED_OUT = /buffering timed out/;

/** Is this error the database being unreachable or out of time (a 503, not a bug)? */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (const link of errorChain(error)) {
    const { name, message, code } = link as { name?: string; message?: string; code?: unknown };
    if (name && UNAVAILABLE_ERRORS.has(name)) return true;
    if (name?.startsWith('Mongo') && typeof code === 'number' && UNAVAILABLE_SERVER_CODES.has(code)) return true;
    if (BUFFERING_TIMED_OUT.test(message ?? '')) return true;
  }
  return false;
}
