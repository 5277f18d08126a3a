import type { LimitsConfig } from '../config';
import type { CountryCode } from 'libphonenumber-js/max';
import { badRequest, notFound, truncateText } from '../errors';
import type { FlightModel } from '../flights/flight.model';
import { uploadTooLarge, type ReceivedFile } from '../shared/received-file';
import { isPhoneRegion, type DateOrder } from './passenger.normalize';
import type { PassengerRecord } from './passenger.record';
import { parsePassengerSheet, type PassengerSheetOptions } from './sheet/parse-passenger-sheet';
import type { ColumnChoices } from './sheet/header-row';
import { didYouMean, headingKey, PASSENGER_SHEET_COLUMNS, type HeadingMatch, type SheetField } from './sheet/heading-aliases';
import { columnLetters } from './sheet/merged-cells';
import { DEFAULT_HIDDEN_ROWS, type HiddenRowsPolicy } from './sheet/row-visibility';
import { passengerSheetAppError } from './sheet/sheet-app-error';

/**
 * The file an upload reads: its bytes, name, declared type and its client's signal, as the
 * transports receive it (src/http/multipart.ts), or the promise of it while it still arrives (a
 * GraphQL operation starts before its file has been read). A file that could not be received
 * rejects with the error to answer.
 */
export type UploadedFile = ReceivedFile | Promise<ReceivedFile>;

export interface PassengerUploadServiceDeps {
  flights: FlightModel;
  limits: LimitsConfig;
  /** The deployment's default region for phone numbers without a country code (PASSENGER_DEFAULT_PHONE_REGION). */
  defaultPhoneRegion?: CountryCode;
  /** Told how long each read of a file took and whether it gave records (metrics). */
  onRead?: (outcome: 'read' | 'refused', seconds: number) => void;
}

/** How a client asks a list to be read: each optional, the defaults otherwise. */
export interface PassengerUploadOptions {
  /** Rows hidden by hand or by a filter: SKIP (default) or IMPORT. */
  hiddenRows?: PassengerSheetOptions['hiddenRows'] | null;
  /** The order of text dates a column does not prove itself; default DMY. */
  dateOrder?: DateOrder | null;
  /** An ISO 3166-1 alpha-2 code; replaces the configured default region for this upload. */
  defaultPhoneRegion?: string | null;
  /** The client's column mapping: a column (letter) or a heading to a field, or to null to ignore it. */
  columns?: readonly { column?: string | null; heading?: string | null; field?: string | null }[] | null;
  /** Cell values that replace the file's before the rules run (null or '' blanks the cell). */
  corrections?: readonly { sheetRow: number; column: string; value?: string | null }[] | null;
}

/** Most mapping entries and corrections one request may give. */
const MAX_COLUMN_CHOICES = 200;
const MAX_CORRECTIONS = 20_000;
/** The most characters a corrected value may have (no passenger field holds more). */
const MAX_CORRECTION_CHARS = 256;

/** Most problems a preview lists (its problemCount counts them all). */
const PREVIEW_MAX_PROBLEMS = 1000;

/** The guided import's answer (GraphQL PassengerUploadPreview). */
export interface PassengerUploadPreview {
  records: PassengerRecord[];
  problems: {
    sheetRow: number | null;
    rowNumber: number | null;
    column: string | null;
    heading: string;
    field: string | null;
    value: string | null;
    message: string;
    suggestion: string | null;
  }[];
  problemCount: number;
  mapping: { column: string; heading: string; field: string; match: HeadingMatch | 'CLIENT' }[];
  unknownHeadings: { column: string; heading: string; didYouMean: string | null }[];
  options: { dateOrder: DateOrder; defaultPhoneRegion: string | null; hiddenRows: HiddenRowsPolicy };
  warnings: string[];
}

/**
 * The upload: a spreadsheet (.xlsx, .ods or CSV, whatever type or name it was sent with) in, the
 * flight's passenger records out, as a preview. Nothing is stored:
 * the client edits the records and sends them with the push.
 */
/**
 * The `defaultPhoneRegion` option as a region code (any case, spaces around ignored), or a 400
 * naming the option. The service checks it before it awaits the file; a transport that reads the
 * file before the operation runs (the REST form) checks it before reading the body.
 */
export function readPhoneRegion(requested: string): CountryCode {
  const code = requested.trim().toUpperCase();
  if (isPhoneRegion(code)) return code;
  throw badRequest(`defaultPhoneRegion must be an ISO 3166-1 alpha-2 country code such as GB, US, DE or FR, got "${truncateText(requested, 20)}"`, [
    { field: 'defaultPhoneRegion', message: 'expected an ISO 3166-1 alpha-2 country code with a telephone numbering plan, e.g. GB' },
  ]);
}

export class PassengerUploadService {
  constructor(private readonly deps: PassengerUploadServiceDeps) {}

  async preview(flightId: number, file: UploadedFile, options: PassengerUploadOptions = {}): Promise<{ records: PassengerRecord[]; warnings: string[] }> {
    const { records, warnings } = await this.read(flightId, file, options, false);
    return { records, warnings };
  }

  /**
   * The guided import's first look: what the list gives, row problems included (they do not make it
   * fail), with the column mapping used, the headings not recognised and the options in force.
   * A file-level refusal (not a spreadsheet, too large, no header row) is still an error.
   */
  async inspect(flightId: number, file: UploadedFile, options: PassengerUploadOptions = {}): Promise<PassengerUploadPreview> {
    const { records, warnings, preview, options: used } = await this.read(flightId, file, options, true, {
      columns: columnChoices(options.columns),
      corrections: cellCorrections(options.corrections),
    });
    if (!preview) throw new Error('PassengerUploadService: the parser gave no preview');
    const { header } = preview;
    const byHeading = new Map(header.columns.map((mapped) => [mapped.heading, mapped]));
    const problems = preview.problems.map((problem) => {
      const mapped = byHeading.get(problem.column);
      const field = typeof problem.passenger_field === 'string' ? problem.passenger_field : (mapped?.field ?? null);
      return {
        sheetRow: problem.sheet_row ?? null,
        rowNumber: problem.row_number ?? null,
        column: mapped ? columnLetters(mapped.column) : null,
        heading: mapped?.heading ?? problem.column,
        field,
        value: problem.value === undefined || problem.value === null ? null : String(problem.value),
        message: problem.message,
        suggestion: typeof problem.suggestion === 'string' ? problem.suggestion : null,
      };
    });
    return {
      records,
      problems,
      problemCount: preview.problemCount,
      mapping: header.columns.map((mapped) => {
        return { column: columnLetters(mapped.column), heading: mapped.heading, field: mapped.field, match: mapped.match };
      }),
      unknownHeadings: header.unknown.map(({ column, heading }) => ({ column: columnLetters(column), heading, didYouMean: didYouMean(heading) ?? null })),
      options: used,
      warnings,
    };
  }

  private async read(flightId: number, file: UploadedFile, options: PassengerUploadOptions, preview: boolean, choices: Pick<PassengerSheetOptions, 'columns' | 'corrections'> = {}) {
    const defaultPhoneRegion = this.phoneRegion(options.defaultPhoneRegion);
    const dateOrder = options.dateOrder ?? undefined;
    const hiddenRows = options.hiddenRows ?? undefined;
    const flight = await this.deps.flights.findOne({ flightId }).select('departure').lean().exec();
    if (!flight) throw notFound(`Flight ${flightId} does not exist`);
    const { bytes, signal, fileName } = await this.receive(file);
    const started = process.hrtime.bigint();
    const seconds = () => Number(process.hrtime.bigint() - started) / 1e9;
    try {
      const result = await parsePassengerSheet(bytes, {
        flightId,
        limits: this.deps.limits,
        signal,
        departure: flight.departure.at,
        hiddenRows,
        defaultPhoneRegion,
        dateOrder,
        // The format is told from the bytes; the name only names a CSV file's one sheet in messages.
        fileName,
        preview,
        ...choices,
        ...(preview ? { maxProblems: PREVIEW_MAX_PROBLEMS } : {}),
      });
      this.deps.onRead?.('read', seconds());
      const used: PassengerUploadPreview['options'] = {
        dateOrder: dateOrder ?? 'DMY',
        defaultPhoneRegion: defaultPhoneRegion ?? null,
        hiddenRows: hiddenRows ?? DEFAULT_HIDDEN_ROWS,
      };
      return { ...result, options: used };
    } catch (error) {
      this.deps.onRead?.('refused', seconds());
      if (signal.aborted) throw signal.reason;
      throw passengerSheetAppError(error);
    }
  }

  /** The requested default region, checked (a 400 naming the option), else the configured one. */
  private phoneRegion(requested: string | null | undefined): CountryCode | undefined {
    if (requested === null || requested === undefined) return this.deps.defaultPhoneRegion;
    return readPhoneRegion(requested);
  }

  /**
   * The file, once it has arrived, while its client is still there to read the answer. Its
   * transport kept it within the limit; checked again here, since the service cannot know who
   * called it.
   */
  private async receive(file: UploadedFile): Promise<{ bytes: Buffer; signal: AbortSignal; fileName?: string }> {
    const { bytes, signal, filename } = await file;
    signal.throwIfAborted();
    const maxBytes = this.deps.limits.uploadMaxBytes;
    if (bytes.length > maxBytes) throw uploadTooLarge(maxBytes);
    return { bytes, signal, fileName: filename || undefined };
  }
}

const COLUMN_LETTERS = /^[A-Z]{1,3}$/;

/** A column letter (A, AB…) as its number (1 = A), or a 400 naming the input. */
function columnNumber(letters: string, where: string): number {
  const upper = letters.trim().toUpperCase();
  let column = 0;
  for (const char of upper) column = column * 26 + (char.charCodeAt(0) - 64);
  if (!COLUMN_LETTERS.test(upper) || column > 16_384) {
    throw badRequest(`${where} must be a column letter such as A or AB, got "${truncateText(letters, 20)}"`, [{ field: where, message: 'expected a column letter, A to XFD' }]);
  }
  return column;
}

const FIELDS = new Set<string>(PASSENGER_SHEET_COLUMNS.map((c) => c.field));

/** The client's mapping, checked: each entry names a column or a heading, and a passenger field or null. */
function columnChoices(entries: PassengerUploadOptions['columns']): ColumnChoices | undefined {
  if (!entries?.length) return undefined;
  if (entries.length > MAX_COLUMN_CHOICES) throw badRequest(`options.columns has ${entries.length} entries; at most ${MAX_COLUMN_CHOICES} are accepted`, [{ field: 'options.columns', message: `at most ${MAX_COLUMN_CHOICES} entries` }]);
  const byColumn = new Map<number, SheetField | null>();
  const byHeading = new Map<string, SheetField | null>();
  entries.forEach((entry, index) => {
    const where = `options.columns[${index}]`;
    const field = entry.field ?? null;
    if (field !== null && !FIELDS.has(field)) {
      throw badRequest(`${where}.field must be a passenger field (${[...FIELDS].join(', ')}) or null to ignore the column, got "${truncateText(field, 40)}"`, [
        { field: `${where}.field`, message: 'expected a passenger field name such as surname or date_born, or null' },
      ]);
    }
    const hasColumn = typeof entry.column === 'string' && entry.column.trim() !== '';
    const hasHeading = typeof entry.heading === 'string' && entry.heading.trim() !== '';
    if (hasColumn === hasHeading) {
      throw badRequest(`${where} must name either a column (its letter) or a heading, not ${hasColumn ? 'both' : 'neither'}`, [{ field: where, message: 'expected column or heading' }]);
    }
    if (hasColumn) byColumn.set(columnNumber(entry.column as string, `${where}.column`), field as SheetField | null);
    else byHeading.set(headingKey(entry.heading as string), field as SheetField | null);
  });
  return { byColumn, byHeading };
}

/** The client's corrected cells by sheet row then column, checked. */
function cellCorrections(entries: PassengerUploadOptions['corrections']): Map<number, Map<number, string | null>> | undefined {
  if (!entries?.length) return undefined;
  if (entries.length > MAX_CORRECTIONS) throw badRequest(`options.corrections has ${entries.length} entries; at most ${MAX_CORRECTIONS} are accepted`, [{ field: 'options.corrections', message: `at most ${MAX_CORRECTIONS} entries` }]);
  const corrections = new Map<number, Map<number, string | null>>();
  entries.forEach((entry, index) => {
    const where = `options.corrections[${index}]`;
    if (!Number.isSafeInteger(entry.sheetRow) || entry.sheetRow < 1 || entry.sheetRow > 1_048_576) {
      throw badRequest(`${where}.sheetRow must be a sheet row number from 1, got ${entry.sheetRow}`, [{ field: `${where}.sheetRow`, message: 'expected a row number from 1 to 1048576' }]);
    }
    const value = entry.value ?? null;
    if (value !== null && value.length > MAX_CORRECTION_CHARS) {
      throw badRequest(`${where}.value is ${value.length} characters long; no passenger field holds more than ${MAX_CORRECTION_CHARS}`, [{ field: `${where}.value`, message: `at most ${MAX_CORRECTION_CHARS} characters` }]);
    }
    const column = columnNumber(entry.column, `${where}.column`);
    let row = corrections.get(entry.sheetRow);
    if (!row) corrections.set(entry.sheetRow, (row = new Map()));
    row.set(column, value === null || value.trim() === '' ? null : value);
  });
  return corrections;
}
