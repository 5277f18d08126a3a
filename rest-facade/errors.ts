import type { Response } from 'express';
import { AppError, ErrorCode, asAppError, type ErrorDetail } from '../src/errors';

/** The facade's error body: `{"error": {"code", "message", "details"}}`. */
export interface ErrorBody {
  error: { code: string; message: string; details: ErrorDetail[] };
}

export function errorBody(error: AppError): ErrorBody {
  return { error: { code: error.code, message: error.message, details: error.details } };
}

/** Writes an AppError with the status and headers it carries. */
export function sendError(res: Response, error: AppError): void {
  for (const [name, value] of Object.entries(error.headers)) res.setHeader(name, value);
  res.status(error.status).json(errorBody(error));
}

/** Express's body parsers and other middleware fail with `status`/`type`; map them to AppErrors. */
export function toAppError(error: unknown): AppError | undefined {
  const known = asAppError(error);
  if (known) return known;
  const httpError = error as { status?: number; statusCode?: number; type?: string; message?: string };
  const status = httpError.status ?? httpError.statusCode;
  if (status === 413 || httpError.type === 'entity.too.large') {
    return new AppError(ErrorCode.PAYLOAD_TOO_LARGE, 'The request body is larger than the limit of this route');
  }
  if (httpError.type === 'entity.parse.failed') {
    return new AppError(ErrorCode.BAD_REQUEST, `The body is not valid JSON: ${httpError.message ?? 'parse error'}`, {
      details: [{ field: 'body', message: `expected valid JSON (RFC 8259): ${httpError.message ?? 'parse error'}` }],
    });
  }
  if (status === 415 || httpError.type === 'encoding.unsupported' || httpError.type === 'charset.unsupported') {
    return new AppError(ErrorCode.UNSUPPORTED_MEDIA_TYPE, httpError.message ?? 'Unsupported body encoding');
  }
  if (status && status >= 400 && status < 500) {
    return new AppError(ErrorCode.BAD_REQUEST, httpError.message ?? 'Bad request');
  }
  return undefined;
}
