import { GraphQLError } from 'graphql';

/** Every error a client can meet, with the HTTP status it travels with. */
export enum ErrorCode {
  BAD_REQUEST = 'BAD_REQUEST',
  BAD_USER_INPUT = 'BAD_USER_INPUT',
  UNAUTHENTICATED = 'UNAUTHENTICATED',
  FORBIDDEN = 'FORBIDDEN',
  NOT_FOUND = 'NOT_FOUND',
  METHOD_NOT_ALLOWED = 'METHOD_NOT_ALLOWED',
  CONFLICT = 'CONFLICT',
  PRECONDITION_FAILED = 'PRECONDITION_FAILED',
  PAYLOAD_TOO_LARGE = 'PAYLOAD_TOO_LARGE',
  UNSUPPORTED_MEDIA_TYPE = 'UNSUPPORTED_MEDIA_TYPE',
  UNPROCESSABLE = 'UNPROCESSABLE',
  TOO_MANY_REQUESTS = 'TOO_MANY_REQUESTS',
  QUERY_TOO_COMPLEX = 'QUERY_TOO_COMPLEX',
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
  [ErrorCode.CONFLICT]: 409,
  [ErrorCode.PRECONDITION_FAILED]: 412,
  [ErrorCode.PAYLOAD_TOO_LARGE]: 413,
  [ErrorCode.UNSUPPORTED_MEDIA_TYPE]: 415,
  [ErrorCode.UNPROCESSABLE]: 422,
  [ErrorCode.TOO_MANY_REQUESTS]: 429,
  [ErrorCode.QUERY_TOO_COMPLEX]: 400,
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
    const details = options.details ?? [];
    super(message, {
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
