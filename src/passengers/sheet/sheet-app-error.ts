import { AppError, ErrorCode } from '../../errors';
import { PassengerSheetError } from './sheet-error';

/**
 * The AppError (status, code, details) for a refused sheet; anything else is returned unchanged.
 * Kept apart from the parser so the parser stays free of GraphQL (src/errors.ts builds on it).
 */
export function passengerSheetAppError(error: unknown): unknown {
  if (!(error instanceof PassengerSheetError)) return error;
  return new AppError(ErrorCode[error.code], error.message, { details: error.details, cause: error });
}
