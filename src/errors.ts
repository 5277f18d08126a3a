import { GraphQLError } from 'graphql';

/** Every error a client can meet, with the HTTP status it travels with. */
export enum ErrorCode {
  BAD_REQUEST = 'BAD_REQUEST',
  BAD_USER_INPUT = 'BAD_USER_INPUT',
  UNAUTHENTICATED = 'UNAUTHENTICATED',
  FORBIDDEN = 'FORBIDDEN',
  NOT_FOUND = 'NOT_FOUND',
  METHOD_NOT_ALLOWED = 'METHOD_NOT_ALLOWED',
  NOT_ACCEPTABLE = 'NOT_ACCEPTABLE',
  CONFLICT = 'CONFLICT',
  PRECONDITION_FAILED = 'PRECONDITION_FAILED',
  PAYLOAD_TOO_LARGE = 'PAYLOAD_TOO_LARGE',
  UNSUPPORTED_MEDIA_TYPE = 'UNSUPPORTED_MEDIA_TYPE',
  UNPROCESSABLE = 'UNPROCESSABLE',
  TOO_MANY_REQUESTS = 'TOO_MANY_REQUESTS',
  QUERY_TOO_COMPLEX = 'QUERY_TOO_COMPLEX',
  QUERY_TIMEOUT = 'QUERY_TIMEOUT',
  PERSISTED_QUERY_HASH_MISMATCH = 'PERSISTED_QUERY_HASH_MISMATCH',
  PERSISTED_QUERY_VERSION_UNSUPPORTED = 'PERSISTED_QUERY_VERSION_UNSUPPORTED',
  RESPONSE_TOO_LARGE = 'RESPONSE_TOO_LARGE',
  SERVICE_UNAVAILABLE = 'SERVICE_UNAVAILABLE',
  INTERNAL_SERVER_ERROR = 'INTERNAL_SERVER_ERROR',
}

export const STATUS_BY_CODE: Record<ErrorCode, number> = {
  [ErrorCode.BAD_REQUEST]: 400,
  [ErrorCode.BAD_USER_INPUT]: 400,
  [ErrorCode.UNAUTHENTICATED]: 401,
  [ErrorCode.FORBIDDEN]: 403,
  [ErrorCode.NOT_FOUND]: 404,
  [ErrorCode.METHOD_NOT_ALLOWED]: 405,
  [ErrorCode.NOT_ACCEPTABLE]: 406,
  [ErrorCode.CONFLICT]: 409,
  [ErrorCode.PRECONDITION_FAILED]: 412,
  [ErrorCode.PAYLOAD_TOO_LARGE]: 413,
  [ErrorCode.UNSUPPORTED_MEDIA_TYPE]: 415,
  [ErrorCode.UNPROCESSABLE]: 422,
  [ErrorCode.TOO_MANY_REQUESTS]: 429,
  [ErrorCode.QUERY_TOO_COMPLEX]: 400,
  [ErrorCode.QUERY_TIMEOUT]: 400,
  [ErrorCode.PERSISTED_QUERY_HASH_MISMATCH]: 400,
  [ErrorCode.PERSISTED_QUERY_VERSION_UNSUPPORTED]: 400,
  [ErrorCode.RESPONSE_TOO_LARGE]: 413,
  [ErrorCode.SERVICE_UNAVAILABLE]: 503,
  [ErrorCode.INTERNAL_SERVER_ERROR]: 500,
};

/** One problem inside a rejected request: which field, row or parameter, and what was expected. */
export interface ErrorDetail {
  /** Dotted path, parameter or column name the problem is about. */
  field?: string;
  message: string;
  [extra: string]: unknown;
}

export interface AppErrorOptions {
  details?: ErrorDetail[];
  /** Extra response headers the error carries (WWW-Authenticate, Allow, Retry-After…). */
  headers?: Record<string, string>;
  cause?: unknown;
}

/** Details listed in one error; the rest are counted in a last `{omitted}` entry. */
export const MAX_ERROR_DETAILS = 100;
/** Longest string echoed inside a detail (a value the client sent). */
export const MAX_ECHOED_CHARS = 200;
/** Longest `message` of a detail: room for a quoted value and the advice after it. */
export const MAX_DETAIL_MESSAGE_CHARS = 400;
/** Longest error message; messages joining many problems are cut here (details keep the count). */
export const MAX_MESSAGE_CHARS = 2000;

const CUT_MARK = /… \((\d{1,15}) more characters\)$/;

/**
 * `text` cut to `max` characters, saying how much was left out. Idempotent: a text this already
 * cut to `max` or less is kept as it is (its count is the original's), so errors rebuilt from
 * errors (the REST facade's from GraphQL's) keep the true count.
 */
export function truncateText(text: string, max = MAX_ECHOED_CHARS): string {
  if (text.length <= max) return text;
  const mark = CUT_MARK.exec(text);
  if (mark && mark.index <= max) return text;
  return `${text.slice(0, max)}… (${text.length - max} more characters)`;
}

/**
 * At most MAX_ERROR_DETAILS details, long strings cut, and one last entry counting the rest, so an
 * error's size never grows with the client's input (200,000 bad ids answer 100 details, not 21 MB).
 * Idempotent: capping capped details (the REST facade rebuilds GraphQL errors) keeps the count.
 */
export function capDetails(details: readonly ErrorDetail[]): ErrorDetail[] {
  const last = details[details.length - 1];
  const carried = last && typeof last.omitted === 'number' && details.length === MAX_ERROR_DETAILS + 1 ? last.omitted : 0;
  const listed = carried ? details.slice(0, MAX_ERROR_DETAILS) : details;
  const omitted = carried + Math.max(0, listed.length - MAX_ERROR_DETAILS);
  const kept = listed.slice(0, MAX_ERROR_DETAILS).map(truncateDetail);
  if (omitted > 0) kept.push({ message: `${omitted} more problems not listed (only the first ${MAX_ERROR_DETAILS} are)`, omitted });
  return kept;
}

/** A small object or array is echoed as it is; a large one becomes its JSON text, cut. */
function truncateObject(value: object): unknown {
  const json = JSON.stringify(value) ?? '';
  return json.length <= MAX_ECHOED_CHARS ? value : truncateText(json);
}

function truncateDetail(detail: ErrorDetail): ErrorDetail {
  let copy: ErrorDetail | undefined;
  for (const [key, value] of Object.entries(detail)) {
    const short = typeof value === 'string' ? truncateText(value, key === 'message' ? MAX_DETAIL_MESSAGE_CHARS : MAX_ECHOED_CHARS) : value !== null && typeof value === 'object' ? truncateObject(value) : value;
    if (short !== value) {
      copy ??= { ...detail };
      copy[key] = short;
    }
  }
  return copy ?? detail;
}

/**
 * The one base class of client-facing errors. It is a GraphQLError so resolvers can throw it
 * directly; `extensions.code` and `extensions.http.status` carry the code and status to both
 * Apollo Server and the REST facade.
 */
export class AppError extends GraphQLError {
  readonly code: ErrorCode;
  readonly status: number;
  readonly details: ErrorDetail[];
  readonly headers: Record<string, string>;

  constructor(code: ErrorCode, message: string, options: AppErrorOptions = {}) {
    const status = STATUS_BY_CODE[code];
    const details = capDetails(options.details ?? []);
    super(truncateText(message, MAX_MESSAGE_CHARS), {
      originalError: options.cause instanceof Error ? options.cause : undefined,
      extensions: {
        code,
        http: { status, ...(options.headers ? { headers: toHeaderMap(options.headers) } : {}) },
        ...(details.length ? { details } : {}),
      },
    });
    this.name = 'AppError';
    this.code = code;
    this.status = status;
    this.details = details;
    this.headers = options.headers ?? {};
  }
}

function toHeaderMap(headers: Record<string, string>): Map<string, string> {
  return new Map(Object.entries(headers));
}

export const badRequest = (message: string, details?: ErrorDetail[]) =>
  new AppError(ErrorCode.BAD_REQUEST, message, { details });
export const invalidInput = (message: string, details?: ErrorDetail[]) =>
  new AppError(ErrorCode.BAD_USER_INPUT, message, { details });
export const notFound = (message: string) => new AppError(ErrorCode.NOT_FOUND, message);
export const conflict = (message: string, details?: ErrorDetail[]) =>
  new AppError(ErrorCode.CONFLICT, message, { details });
export const unprocessable = (message: string, details?: ErrorDetail[]) =>
  new AppError(ErrorCode.UNPROCESSABLE, message, { details });
export const preconditionFailed = (message: string) => new AppError(ErrorCode.PRECONDITION_FAILED, message);
export const payloadTooLarge = (message: string) => new AppError(ErrorCode.PAYLOAD_TOO_LARGE, message);
export const unsupportedMediaType = (message: string) =>
  new AppError(ErrorCode.UNSUPPORTED_MEDIA_TYPE, message);
export const serviceUnavailable = (message: string) => new AppError(ErrorCode.SERVICE_UNAVAILABLE, message);

/** A query past GRAPHQL_TIMEOUT_MS (src/graphql/execution-limits.ts), or whose wait for a turn spent it (src/timeline/large-read-gate.ts). */
export function queryTimeout(limitMs: number): AppError {
  return new AppError(ErrorCode.QUERY_TIMEOUT, `The query ran longer than the limit of ${limitMs} ms and was stopped: ask for less (a shorter range, fewer fields or aliases)`, {
    details: [{ field: 'query', message: `execution time limit ${limitMs} ms`, limitMs }],
  });
}

/** An error and what it wraps (GraphQL's `originalError`, or `cause`), a few levels deep. */
export function* errorChain(error: unknown): Generator<unknown> {
  let current: unknown = error;
  for (let depth = 0; current && depth < 5; depth += 1) {
    yield current;
    const wrapper = current as { originalError?: unknown; cause?: unknown };
    current = wrapper.originalError ?? wrapper.cause;
  }
}

/** Finds the AppError behind whatever reached us (GraphQL wraps resolver errors). */
export function asAppError(error: unknown): AppError | undefined {
  for (const link of errorChain(error)) if (link instanceof AppError) return link;
  return undefined;
}
