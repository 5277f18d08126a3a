/**
 * Error codes of a rejected sheet. They are spelled as `ErrorCode` in src/errors.ts so the caller
 * can build the AppError directly (see sheet-app-error.ts); this module stays free of GraphQL.
 */
export type SheetErrorCode = 'BAD_REQUEST' | 'PAYLOAD_TOO_LARGE' | 'UNSUPPORTED_MEDIA_TYPE' | 'UNPROCESSABLE';

const STATUS: Record<SheetErrorCode, number> = {
  BAD_REQUEST: 400,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  UNPROCESSABLE: 422,
};

/** One problem in the sheet, shaped as an `ErrorDetail` (message, field) with its position. */
export interface SheetProblem {
  /** The column heading as written in the file, or the field name when the column is missing. */
  field: string;
  /** Same as `field`. */
  column: string;
  message: string;
  /** Passenger number within the list (from 1); absent for problems of the whole sheet. */
  row_number?: number;
  /** Row number as the spreadsheet program shows it. */
  sheet_row?: number;
  /** The cell value as read (dates as `YYYY-MM-DD`), or null when empty. */
  value?: string | number | boolean | null;
  [extra: string]: unknown;
}

/** Why a sheet was refused, with the HTTP status it maps to and every problem found. */
export class PassengerSheetError extends Error {
  readonly status: number;

  constructor(
    readonly code: SheetErrorCode,
    message: string,
    readonly details: SheetProblem[] = [],
  ) {
    super(message);
    this.name = 'PassengerSheetError';
    this.status = STATUS[code];
  }
}

export const SPREADSHEET_EXPECTED =
  'A passenger list is read from an .xlsx or .ods workbook or a CSV file: in Excel or LibreOffice use "Save as" and choose "Excel Workbook (.xlsx)"';

export const sheetError = {
  unsupported: (what: string) => new PassengerSheetError('UNSUPPORTED_MEDIA_TYPE', `${what}. ${SPREADSHEET_EXPECTED}.`),
  tooLarge: (message: string) => new PassengerSheetError('PAYLOAD_TOO_LARGE', message),
  unprocessable: (message: string, details: SheetProblem[] = []) =>
    new PassengerSheetError('UNPROCESSABLE', message, details),
  badRequest: (message: string) => new PassengerSheetError('BAD_REQUEST', message),
};
