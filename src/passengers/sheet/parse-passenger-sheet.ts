import type { Readable } from 'node:stream';
import ExcelJS, { type Row, type Worksheet } from 'exceljs';
import type { CountryCode } from 'libphonenumber-js';
import type { LimitsConfig } from '../../config';
import type { PassengerRecord } from '../passenger.record';
import { isBlank, isoDay } from '../passenger.normalize';
import { cellContent } from './cell-value';
import { HEADER_SEARCH_ROWS, missingColumnProblems, recogniseHeaderRow, type HeaderRow, type HeadingCell } from './header-row';
import { columnLetters, MergedCellFiller, type MergedRange } from './merged-cells';
import { PassengerListBuilder } from './passenger-list-builder';
import { PassengerSheetError, sheetError } from './sheet-error';
import { openXlsxPackage, type XlsxPackage } from './xlsx-package';

export type PassengerSheetLimits = Pick<
  LimitsConfig,
  'uploadMaxBytes' | 'uploadMaxRows' | 'uploadMaxColumns' | 'uploadMaxUncompressedBytes'
>;

export interface PassengerSheetOptions {
  /** The flight the list belongs to: every record's `idvolo`. */
  flightId: number;
  /** Size limits; each breach is refused before the work it would cost. */
  limits: PassengerSheetLimits;
  /** The day against which a birth date "in the future" is judged; default now (UTC day). */
  today?: Date;
  /** Region for phone numbers written without a country code; default IT. */
  defaultPhoneRegion?: CountryCode;
  /** Most row problems listed in the error details (the message still counts them all); default 1000. */
  maxProblems?: number;
}

export interface PassengerSheetResult {
  /** One record per passenger row, in row order, `row_number` from 1. */
  records: PassengerRecord[];
  /** Things the caller may show but that did not stop the upload (ignored columns). */
  warnings: string[];
  /** The worksheet the list was read from. */
  sheetName: string;
}

const READER_OPTIONS = {
  worksheets: 'emit',
  sharedStrings: 'cache',
  // Hyperlink cells read as their shown text; date cells as serial numbers, turned into dates by the
  // date columns' normaliser, so styles are not needed.
  hyperlinks: 'ignore',
  styles: 'ignore',
  entries: 'ignore',
} as const;

const damaged = (error: unknown) =>
  sheetError.unsupported(
    `The file is a damaged .xlsx workbook: ${error instanceof Error ? error.message : 'it cannot be read'}`,
  );

/**
 * Runs `body` for each item of an exceljs iterator. Failures of the iterator (malformed XML…)
 * become a 415; errors of the body pass through untouched. No extra generator per item.
 */
async function eachOf<T>(iterable: AsyncIterable<T>, body: (item: T) => Promise<boolean | void> | boolean | void) {
  let inBody = false;
  try {
    for await (const item of iterable) {
      inBody = true;
      let go = body(item);
      if (go instanceof Promise) go = await go; // rows are handled synchronously: no extra turn each
      if (go === false) return;
      inBody = false;
    }
  } catch (error) {
    throw inBody || error instanceof PassengerSheetError ? error : damaged(error);
  }
}

async function readUpTo(stream: Readable, maxBytes: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of stream) {
    const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string);
    total += bytes.length;
    if (total > maxBytes) throw sheetError.tooLarge(`The file is larger than the limit of ${maxBytes} bytes`);
    chunks.push(bytes);
  }
  return Buffer.concat(chunks, total);
}

function checkColumnLimit(row: Row, maxColumns: number): void {
  for (let column = row.cellCount; column > maxColumns; column -= 1) {
    if (!isBlank(cellContent(row.findCell(column)?.value))) {
      throw sheetError.unprocessable(
        `Sheet row ${row.number} has a value in column ${columnLetters(column)} (column ${column}); at most ${maxColumns} columns are accepted`,
        [{ field: columnLetters(column), column: columnLetters(column), sheet_row: row.number, message: `at most ${maxColumns} columns are accepted` }],
      );
    }
  }
}

function headingCells(row: Row, maxColumns: number): HeadingCell[] {
  const cells: HeadingCell[] = [];
  const last = Math.min(row.cellCount, maxColumns);
  for (let column = 1; column <= last; column += 1) {
    const content = cellContent(row.findCell(column)?.value);
    if (typeof content === 'string' || typeof content === 'number') cells.push({ column, text: String(content) });
  }
  return cells;
}

/**
 * Reads one worksheet: looks for the header row among its first rows, then hands every data row to
 * the list builder. Answers undefined when the sheet has no header row.
 */
async function readWorksheet(
  worksheet: Worksheet,
  sheetName: string,
  merges: MergedCellFiller,
  start: (header: HeaderRow) => PassengerListBuilder,
  maxColumns: number,
): Promise<PassengerListBuilder | undefined> {
  let list: PassengerListBuilder | undefined;
  let noHeader = false;
  await eachOf(worksheet as unknown as AsyncIterable<Row>, (row) => {
    if (row.cellCount > maxColumns) checkColumnLimit(row, maxColumns);
    if (!merges.isEmpty) merges.visitRow(row.number, (column) => cellContent(row.findCell(column)?.value));
    if (list) {
      list.addRow(row, merges.isEmpty ? undefined : merges);
      return true;
    }
    if (row.number > HEADER_SEARCH_ROWS) {
      noHeader = true;
      return false;
    }
    const header = recogniseHeaderRow(row.number, headingCells(row, maxColumns));
    if (!header) return true;
    if (header.problems.length) {
      throw sheetError.unprocessable(
        `The header row (sheet "${sheetName}", row ${header.sheetRow}) is incomplete: ${header.problems.map((p) => p.message).join('; ')}`,
        header.problems,
      );
    }
    list = start(header);
    return true;
  });
  return noHeader ? undefined : list;
}

/** Whether a merged range reaches below the header into a recognised column. */
function mergesTouchData(ranges: readonly MergedRange[], header: HeaderRow): boolean {
  return ranges.some(
    (range) =>
      range.bottom > header.sheetRow &&
      header.columns.some(({ column }) => column >= range.left && column <= range.right),
  );
}

type PassOutcome = PassengerSheetResult | { rereadWithMerges: Map<number, MergedRange[]> };

/**
 * One streaming pass. Merged ranges are declared at the end of a sheet, so a first pass reads
 * without them; if the list turns out to have merges over its data, the caller reads it again with
 * the ranges known (rare: most lists have none, and pay for one pass only).
 */
async function readPass(
  workbook: XlsxPackage,
  options: PassengerSheetOptions,
  knownMerges: Map<number, MergedRange[]> | undefined,
): Promise<PassOutcome> {
  const pass = workbook.open();
  const reader = new ExcelJS.stream.xlsx.WorkbookReader(pass.stream, READER_OPTIONS);
  const normalize = {
    today: isoDay(options.today ?? new Date()),
    defaultPhoneRegion: options.defaultPhoneRegion,
    date1904: workbook.date1904,
  };
  let index = 0;
  let outcome: PassOutcome | undefined;
  try {
    await eachOf(reader as unknown as AsyncIterable<Worksheet>, async (worksheet) => {
      const sheetIndex = index;
      const part = workbook.sheets[sheetIndex];
      index += 1;
      let header: HeaderRow | undefined;
      const list = await readWorksheet(
        worksheet,
        part.name,
        new MergedCellFiller(knownMerges?.get(sheetIndex) ?? []),
        (found) => {
          header = found;
          return new PassengerListBuilder(found, {
            flightId: options.flightId,
            maxRows: options.limits.uploadMaxRows,
            maxProblems: options.maxProblems ?? 1000,
            normalize,
          });
        },
        options.limits.uploadMaxColumns,
      );
      if (!list || !header) return true;
      const failure = pass.failure();
      if (failure) throw failure;
      const ranges = pass.mergedRanges(sheetIndex);
      if (!knownMerges && mergesTouchData(ranges, header)) {
        outcome = { rereadWithMerges: new Map([[sheetIndex, ranges]]) };
      } else {
        outcome = { ...list.finish(part.name), sheetName: part.name };
      }
      return false;
    });
  } catch (error) {
    throw pass.failure() ?? error;
  } finally {
    pass.close();
  }
  // exceljs's own error (or its silence) says less than the pass's reason.
  const failure = pass.failure();
  if (failure) throw failure;
  if (outcome) return outcome;
  throw sheetError.unprocessable(
    `No header row found: no visible sheet has a row naming the passenger columns (such as Surname, Name, Date of birth) in its first ${HEADER_SEARCH_ROWS} rows`,
    missingColumnProblems(new Map()),
  );
}

/**
 * Parses an .xlsx passenger list into Passenger records, streaming the worksheet. The list is the
 * first visible worksheet with a header row (a row naming at least two passenger columns among its
 * first 30 rows). Throws PassengerSheetError (`status`, `code`, `details`): 400 empty file,
 * 413 over a size limit, 415 not an .xlsx, 422 missing columns, no rows, or row problems (all of
 * them, each with row_number, sheet_row, column and message).
 */
export async function parsePassengerSheet(
  input: Buffer | Readable,
  options: PassengerSheetOptions,
): Promise<PassengerSheetResult> {
  const { limits } = options;
  if (!Number.isSafeInteger(options.flightId) || options.flightId < 1) {
    throw sheetError.badRequest('The flight id must be a positive whole number');
  }
  const bytes = Buffer.isBuffer(input) ? input : await readUpTo(input, limits.uploadMaxBytes);
  if (bytes.length > limits.uploadMaxBytes) {
    throw sheetError.tooLarge(`The file is ${bytes.length} bytes, over the limit of ${limits.uploadMaxBytes} bytes`);
  }
  const workbook = await openXlsxPackage(bytes, limits);
  const first = await readPass(workbook, options, undefined);
  if (!('rereadWithMerges' in first)) return first;
  const second = await readPass(workbook, options, first.rereadWithMerges);
  if ('rereadWithMerges' in second) throw new Error('merged ranges asked for a third pass');
  return second;
}
