import type { Readable } from 'node:stream';
import type { CountryCode } from 'libphonenumber-js/max';
import type { LimitsConfig } from '../../config';
import type { PassengerRecord } from '../passenger.record';
import { isBlank, isoDay, type DateOrder } from '../passenger.normalize';
import { truncated, type CellContent } from './cell-value';
import { HEADER_SEARCH_ROWS, missingColumnProblems, recogniseHeaderRow, type ColumnChoices, type HeaderRow, type HeadingCell } from './header-row';
import { PASSENGER_SHEET_COLUMNS } from './heading-aliases';
import { columnLetters, fillMergedBlocks, type KeptRow, type MergedRange } from './merged-cells';
import { PassengerListBuilder } from './passenger-list-builder';
import { ReadBudget } from './read-budget';
import { openSpreadsheet } from './open-spreadsheet';
import { sheetError, type PassengerSheetError, type SheetProblem } from './sheet-error';
import { addListRows, DEFAULT_HIDDEN_ROWS, RowVisibility, type HiddenRowsPolicy } from './row-visibility';
import type { OfferedSheet, SpreadsheetSource } from './spreadsheet-source';
import type { SheetAutoFilter, SheetCell, SheetRowInfo, SheetRowSink } from './worksheet-reader';

export type PassengerSheetLimits = Pick<
  LimitsConfig,
  'uploadMaxBytes' | 'uploadMaxRows' | 'uploadMaxColumns' | 'uploadMaxUncompressedBytes'
> &
  Partial<Pick<LimitsConfig, 'uploadMaxCells' | 'uploadMaxParseMs'>>;

/** Defaults of the caps a caller need not give (the configuration always gives them). */
export const DEFAULT_MAX_CELLS = 200_000;
export const DEFAULT_MAX_PARSE_MS = 10_000;
export const DEFAULT_MAX_PROBLEMS = 100;

export interface PassengerSheetOptions {
  /** The flight the list belongs to: every record's `idvolo`. */
  flightId: number;
  /** Size limits; each breach is refused before the work it would cost. */
  limits: PassengerSheetLimits;
  /** The day against which a birth date "in the future" is judged; default now (UTC day). */
  today?: Date;
  /**
   * Region a phone number without a country code is read in when it is valid in none of the
   * passenger's own countries (nationality, issuing state, country of birth); each such number is
   * a warning naming it. None by default: such a number is a problem.
   */
  defaultPhoneRegion?: CountryCode;
  /** The order of text dates such as 05/06/1980 in a column whose own dates do not prove one; default DMY. */
  dateOrder?: DateOrder;
  /**
   * The flight's departure day: ages for the parent checks (a passenger with a parent row must be
   * under 18, the parent 18 or over, an infant under 2) are judged on it; default `today`.
   */
  departure?: Date;
  /** Most problems listed in the error details (the message still counts them all); default 100. */
  maxProblems?: number;
  /**
   * Rows hidden by hand or by a filter: `SKIP` (default) leaves them out, `IMPORT` reads them as
   * passengers. Either way a warning names them.
   */
  hiddenRows?: HiddenRowsPolicy;
  /**
   * Stops the parse when it fires (the client went away). The parser looks at it before it starts,
   * between inflated chunks (at most 64 KiB of XML apart, with an event-loop turn between them so
   * the signal can fire) and every 4096 XML elements, and then rejects with `signal.reason` (an
   * AbortError DOMException unless the caller gave another reason), never with a
   * PassengerSheetError, so the caller can tell an abandoned upload from a refused one.
   */
  signal?: AbortSignal;
  /** The uploaded file's name, if known: a CSV file's one sheet is named after it in messages. */
  fileName?: string;
  /**
   * Answer what could be read instead of refusing the list for its row problems: the records of
   * the clean rows, the problems of the others, the header as read. File-level refusals stay.
   */
  preview?: boolean;
  /** The client's column mapping, over the alias table. */
  columns?: ColumnChoices;
  /**
   * Cell values the client corrected, by sheet row then column (1 = A): each replaces what the
   * file holds (null: the cell is blank) before any rule reads the row. One that falls on no
   * passenger column, or above the header, is a warning.
   */
  corrections?: ReadonlyMap<number, ReadonlyMap<number, string | null>>;
  /** A preview's second reading: this sheet's header is the list's even if it lacks required columns. */
  acceptIncompleteSheet?: string;
}

/** What a preview adds to the result. */
export interface PassengerSheetPreview {
  problems: SheetProblem[];
  problemCount: number;
  header: HeaderRow;
}

export interface PassengerSheetResult {
  /** One record per passenger row, in row order, `row_number` from 1. */
  records: PassengerRecord[];
  /** Things the caller may show but that did not stop the upload (ignored columns). */
  warnings: string[];
  /** The worksheet the list was read from (for a CSV file, its name without extension, or "CSV"). */
  sheetName: string;
  /** With the preview option only. */
  preview?: PassengerSheetPreview;
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

function quoted(name: string): string {
  return `"${truncated(name)}"`;
}

/**
 * Reads one candidate sheet: looks for the header among its first rows (and stops there when there
 * is none, or when the header lacks required columns), then keeps each data row's recognised
 * columns (no more: memory follows the passenger rows, not the file) and the merged blocks.
 */
class ListSheetScan implements SheetRowSink {
  done = false;
  header?: HeaderRow;
  /** A header that names passenger columns but lacks required ones: the sheet is not the list. */
  incomplete?: HeaderRow;
  readonly rows: KeptRow[] = [];
  readonly merges: MergedRange[] = [];
  autoFilterOfSheet?: SheetAutoFilter;
  private columnIndex: Int16Array = new Int16Array(0);
  private inOrder = true;
  /** Hidden columns within the columns read (a bit per column). */
  private readonly hidden: Uint8Array;
  /** Kept rows that are hidden, and those that are not: each is capped at the row limit. */
  private hiddenCount = 0;
  private shownCount = 0;

  /** Corrections applied, as `sheetRow:column`. */
  readonly corrected = new Set<string>();

  constructor(
    private readonly sheetName: string,
    private readonly maxColumns: number,
    private readonly maxRows: number,
    private readonly choices?: ColumnChoices,
    private readonly corrections?: ReadonlyMap<number, ReadonlyMap<number, string | null>>,
    /** Take a header that lacks required columns for the list's (a preview reports them as problems). */
    private readonly acceptIncomplete = false,
  ) {
    this.hidden = new Uint8Array(maxColumns + 1);
  }

  row(sheetRow: number, cells: readonly SheetCell[], info: SheetRowInfo): void {
    if (this.header) this.dataRow(sheetRow, cells, info);
    else this.headerSearch(sheetRow, cells);
  }

  hiddenColumns(from: number, to: number): void {
    this.hidden.fill(1, Math.min(from, this.maxColumns + 1), Math.min(to, this.maxColumns) + 1);
  }

  isHiddenColumn = (column: number): boolean => this.hidden[column] === 1;

  autoFilter(filter: SheetAutoFilter): void {
    this.autoFilterOfSheet = filter;
  }

  private headerSearch(sheetRow: number, cells: readonly SheetCell[]): void {
    if (sheetRow > HEADER_SEARCH_ROWS) {
      this.done = true;
      return;
    }
    const header = recogniseHeaderRow(sheetRow, headingCells(cells, this.maxColumns, this.isHiddenColumn), this.choices);
    if (!header) return;
    const missing = missingColumnProblems(header.headingOf).length;
    if (missing && !this.acceptIncomplete) {
      this.incomplete = header;
      this.done = true;
      return;
    }
    if (header.problems.length > (this.acceptIncomplete ? missing : 0)) {
      throw sheetError.unprocessable(
        `The header row (sheet ${quoted(this.sheetName)}, row ${header.sheetRow}) is incomplete: ${header.problems.map((p) => p.message).join('; ')}`,
        header.problems,
      );
    }
    this.header = header;
    this.columnIndex = new Int16Array(this.maxColumns + 1).fill(-1);
    header.columns.forEach(({ column }, index) => {
      this.columnIndex[column] = index;
    });
  }

  private dataRow(sheetRow: number, cells: readonly SheetCell[], info: SheetRowInfo): void {
    let values: CellContent[] | undefined;
    let subtotal = false;
    for (const { column, content, subtotal: isSubtotal } of cells) {
      if (column > this.maxColumns) {
        if (isBlank(content)) continue;
        throw sheetError.unprocessable(
          `Sheet row ${sheetRow} has a value in column ${columnLetters(column)} (column ${column}); at most ${this.maxColumns} columns are accepted`,
          [{ field: columnLetters(column), column: columnLetters(column), sheet_row: sheetRow, message: `at most ${this.maxColumns} columns are accepted` }],
        );
      }
      const index = this.columnIndex[column];
      if (index < 0 || isBlank(content)) continue;
      values ??= new Array<CellContent>(this.header?.columns.length ?? 0).fill(null);
      values[index] = content;
      if (isSubtotal) subtotal = true;
    }
    const corrections = this.corrections?.get(sheetRow);
    if (corrections) {
      for (const [column, value] of corrections) {
        const index = column <= this.maxColumns ? this.columnIndex[column] : -1;
        if (index < 0) continue;
        values ??= new Array<CellContent>(this.header?.columns.length ?? 0).fill(null);
        values[index] = value;
        this.corrected.add(`${sheetRow}:${column}`);
      }
      if (values?.every((value) => isBlank(value))) return;
    }
    if (!values) return;
    const last = this.rows[this.rows.length - 1];
    if (last && last.sheetRow >= sheetRow) this.inOrder = false;
    const row: KeptRow = { sheetRow, values };
    if (info.hidden) row.hidden = true;
    if (info.filtered) row.filtered = true;
    if (subtotal) row.subtotal = true;
    this.rows.push(row);
    // Merged blocks only fill blanks of kept rows, so these counts already bound the passenger count;
    // hidden rows have a cap of their own, so that skipping them never lets a list pass the limit unread.
    const count = info.hidden ? (this.hiddenCount += 1) : (this.shownCount += 1);
    if (count > this.maxRows) {
      throw sheetError.tooLarge(`The list has more than ${this.maxRows} passenger rows (the limit); split it into smaller lists`);
    }
  }

  merge(range: MergedRange): void {
    if (this.header && range.bottom > this.header.sheetRow) this.merges.push(range);
  }

  /**
   * A block merged across two passenger columns shows one value where the list has two fields
   * (`Smith John` over Surname and First name): copying it into both would be wrong, splitting it a
   * guess. Refused, naming each such block of a data row (at most 20). Country columns are the
   * exception: one country merged over country of birth, nationality and issuing state is each.
   */
  private refuseMergesAcrossFields(header: HeaderRow): void {
    const problems: SheetProblem[] = [];
    for (const range of this.merges) {
      if (range.top <= header.sheetRow) continue;
      const spanned = header.columns.filter(({ column }) => column >= range.left && column <= range.right);
      if (spanned.length < 2 || spanned.every(({ field }) => SHAREABLE_FIELDS.has(field))) continue;
      const cells = `${columnLetters(range.left)}${range.top}:${columnLetters(range.right)}${range.bottom}`;
      const headings = spanned.map(({ heading }) => `"${truncated(heading, 40)}"`).join(', ');
      problems.push({ field: spanned[0].heading, column: spanned[0].heading, sheet_row: range.top, message: `cells ${cells} are merged across the columns ${headings}: one value cannot fill two fields; unmerge them and write each value in its own column` });
      if (problems.length === 20) break;
    }
    if (problems.length) throw sheetError.unprocessable(`The list has merged cells across passenger columns: ${problems.map((p) => p.message).join('; ')}`, problems);
  }

  /** The kept rows in sheet order, merged blocks filled in; answers the cells visited doing so. */
  settle(): number {
    if (!this.inOrder) this.rows.sort((a, b) => a.sheetRow - b.sheetRow);
    if (!this.header || this.merges.length === 0) return 0;
    this.refuseMergesAcrossFields(this.header);
    return fillMergedBlocks(this.rows, this.merges, this.header.columns.map((c) => c.column), this.header.sheetRow, isBlank);
  }
}

/** A row's cells as candidate headings: texts and numbers within the columns read. */
function headingCells(cells: readonly SheetCell[], maxColumns: number, isHidden: (column: number) => boolean): HeadingCell[] {
  const headings: HeadingCell[] = [];
  for (const { column, content } of cells) {
    if (column <= maxColumns && (typeof content === 'string' || typeof content === 'number')) headings.push({ column, text: String(content), hidden: isHidden(column) });
  }
  return headings;
}

/** Fields one merged value may fill side by side: the countries. */
const SHAREABLE_FIELDS: ReadonlySet<string> = new Set(['luogonascita', 'nazionalita', 'issuingstate']);

/**
 * Looks at a sheet after the list's for a second list: a complete header among its first rows,
 * then whether any of the next rows holds a value under it. Bounded: the header search stops where
 * ListSheetScan's does, the passenger search as many rows below the header.
 */
class SecondListProbe implements SheetRowSink {
  done = false;
  header?: HeaderRow;
  /** The sheet row of its first passenger, if it has one. */
  firstPassengerRow?: number;
  private readonly headerColumns = new Set<number>();

  constructor(
    private readonly maxColumns: number,
    private readonly choices?: ColumnChoices,
  ) {}

  row(sheetRow: number, cells: readonly SheetCell[]): void {
    if (!this.header) {
      if (sheetRow > HEADER_SEARCH_ROWS) {
        this.done = true;
        return;
      }
      const header = recogniseHeaderRow(sheetRow, headingCells(cells, this.maxColumns, () => false), this.choices);
      if (!header) return;
      if (missingColumnProblems(header.headingOf).length > 0) {
        this.done = true;
        return;
      }
      this.header = header;
      for (const { column } of header.columns) this.headerColumns.add(column);
      return;
    }
    if (sheetRow > this.header.sheetRow + HEADER_SEARCH_ROWS) {
      this.done = true;
      return;
    }
    if (cells.some(({ column, content }) => this.headerColumns.has(column) && !isBlank(content))) {
      this.firstPassengerRow = sheetRow;
      this.done = true;
    }
  }

  merge(): void {}
}

function headingsOf(fields: Iterable<string>): string {
  return [...fields].join(', ');
}

/** Why a sheet with an incomplete header is not the list. */
function incompleteReason(header: HeaderRow): string {
  const missing = PASSENGER_SHEET_COLUMNS.filter((c) => c.required && !header.headingOf.has(c.field)).map((c) => c.heading);
  return `row ${header.sheetRow} names ${headingsOf([...header.headingOf.values()].map((h) => truncated(h, 40)))} but lacks the required ${missing.length === 1 ? 'column' : 'columns'} ${headingsOf(missing)}`;
}

const NO_HEADER = `no row among its first ${HEADER_SEARCH_ROWS} names two passenger columns`;

/** The list's sheet, scanned to its end. */
interface FoundSheet {
  sheet: OfferedSheet;
  scan: ListSheetScan;
  header: HeaderRow;
}

/** What the search through the workbook's sheets found: the list's sheet, or why each sheet is not it. */
interface SheetSearch {
  found?: FoundSheet;
  /** The sheets passed over before the list's (all of them when none is), each with the reason. */
  skipped: { sheet: OfferedSheet; reason: string }[];
  /** The sheet whose incomplete header names the most passenger columns. */
  bestIncomplete?: { sheet: OfferedSheet; header: HeaderRow };
  /** How many sheets the workbook offered. */
  offered: number;
  /** Sheets after the list's with a complete header, and the row of their first passenger if any. */
  laterLists: { sheet: OfferedSheet; header: HeaderRow; firstPassengerRow?: number }[];
}

/**
 * Parses a passenger list (.xlsx, .ods or CSV, told from the bytes) into Passenger records. The list is the first visible worksheet
 * with a complete header row (a row naming the required passenger columns among its first 30
 * rows); sheets before it are skipped, each for a reason given in the warnings (or in the refusal
 * when no sheet qualifies). Throws PassengerSheetError (`status`, `code`, `details`): 400 empty
 * file, 413 over a size or work limit, 415 not a spreadsheet of those formats, or damaged, 422 no usable header, no rows,
 * a structural limit (nesting, text length, cells per row) or row problems (the first 100 by row,
 * each with row_number, sheet_row, column and message, and the count of all). When `signal` fires
 * it rejects with `signal.reason` instead.
 */
export async function parsePassengerSheet(
  input: Buffer | Readable,
  options: PassengerSheetOptions,
): Promise<PassengerSheetResult> {
  const { limits, signal } = options;
  const bytes = await uploadedBytes(input, options);
  const budget = new ReadBudget({
    maxCells: limits.uploadMaxCells ?? DEFAULT_MAX_CELLS,
    maxParseMs: limits.uploadMaxParseMs ?? DEFAULT_MAX_PARSE_MS,
    signal,
  });
  budget.checkpoint();
  const workbook = await openSpreadsheet(bytes, { limits, budget, fileName: options.fileName });
  // Today is taken once, before the sheets are read, for the birth-date rules and the ages alike.
  const today = options.today ?? new Date();
  const search = await searchSheets(workbook, options);
  if (search.found) {
    refuseSecondList(search.found, search.laterLists);
    return readList(search.found, search.skipped, search.laterLists, workbook, budget, today, options);
  }
  // A preview reads the best sheet anyway: the client can map the missing columns.
  if (options.preview && search.bestIncomplete && options.acceptIncompleteSheet === undefined) {
    return parsePassengerSheet(bytes, { ...options, acceptIncompleteSheet: search.bestIncomplete.sheet.name });
  }
  throw noListRefusal(search);
}

/** The upload's bytes, once the flight id is known good and the signal has not fired; within the size limit. */
async function uploadedBytes(input: Buffer | Readable, options: PassengerSheetOptions): Promise<Buffer> {
  const { limits, signal } = options;
  if (!Number.isSafeInteger(options.flightId) || options.flightId < 1) {
    throw sheetError.badRequest('The flight id must be a positive whole number');
  }
  signal?.throwIfAborted();
  const bytes = Buffer.isBuffer(input) ? input : await readUpTo(input, limits.uploadMaxBytes);
  if (bytes.length > limits.uploadMaxBytes) {
    throw sheetError.tooLarge(`The file is ${bytes.length} bytes, over the limit of ${limits.uploadMaxBytes} bytes`);
  }
  return bytes;
}

/**
 * Offers the workbook's sheets in order to a ListSheetScan each, until one holds the list. A sheet
 * is judged once it has been read to its end (or to where its scan stopped), that is when the
 * next sheet is offered or the workbook has no more.
 */
async function searchSheets(workbook: SpreadsheetSource, options: PassengerSheetOptions): Promise<SheetSearch> {
  const { limits } = options;
  const search: SheetSearch = { skipped: [], offered: 0, laterLists: [] };
  let scanned: { sheet: OfferedSheet; scan: ListSheetScan } | undefined;
  let probed: { sheet: OfferedSheet; probe: SecondListProbe } | undefined;
  const judgeScanned = () => {
    if (probed?.probe.header) search.laterLists.push({ sheet: probed.sheet, header: probed.probe.header, firstPassengerRow: probed.probe.firstPassengerRow });
    probed = undefined;
    if (!scanned) return;
    const { sheet, scan } = scanned;
    scanned = undefined;
    judgeSheet(search, sheet, scan);
  };
  await workbook.readSheets((sheet) => {
    judgeScanned();
    if (search.found) {
      // The sheets after the list's are looked at for a second list only (a hidden one stays unread).
      if (sheet.skipped !== undefined) return 'skip';
      probed = { sheet, probe: new SecondListProbe(limits.uploadMaxColumns, options.columns) };
      return probed.probe;
    }
    search.offered += 1;
    if (sheet.skipped !== undefined) {
      search.skipped.push({ sheet, reason: sheet.skipped });
      return 'skip';
    }
    scanned = { sheet, scan: new ListSheetScan(sheet.name, limits.uploadMaxColumns, limits.uploadMaxRows, options.columns, options.corrections, sheet.name === options.acceptIncompleteSheet) };
    return scanned.scan;
  });
  judgeScanned();
  return search;
}

/**
 * A workbook with passengers under a complete header on a second sheet holds two lists (an outbound
 * and a return flight, say): reading the first alone would drop the other without a word, and
 * which one the flight's is cannot be told from the file.
 */
function refuseSecondList(found: FoundSheet, laterLists: SheetSearch['laterLists']): void {
  const second = laterLists.find((later) => later.firstPassengerRow !== undefined);
  if (!second) return;
  const message = `The workbook holds passenger lists on two sheets: ${quoted(found.sheet.name)} (header in row ${found.header.sheetRow}) and ${quoted(second.sheet.name)} (header in row ${second.header.sheetRow}, a passenger in row ${second.firstPassengerRow}). Upload one list per flight: save each sheet as a file of its own, or delete the other sheet`;
  throw sheetError.unprocessable(message, [{ field: 'sheet', column: 'sheet', message: `a second passenger list, on sheet ${quoted(second.sheet.name)}` }]);
}

/** A sheet read: the list, or a sheet skipped and why. */
function judgeSheet(search: SheetSearch, sheet: OfferedSheet, scan: ListSheetScan): void {
  if (scan.header) search.found = { sheet, scan, header: scan.header };
  else if (scan.incomplete) {
    search.skipped.push({ sheet, reason: incompleteReason(scan.incomplete) });
    if (!search.bestIncomplete || scan.incomplete.columns.length > search.bestIncomplete.header.columns.length) {
      search.bestIncomplete = { sheet, header: scan.incomplete };
    }
  } else search.skipped.push({ sheet, reason: NO_HEADER });
}

/** The list's sheet read into records (or a preview), with the warnings of the whole workbook. */
async function readList(
  found: FoundSheet,
  skipped: SheetSearch['skipped'],
  laterLists: SheetSearch['laterLists'],
  workbook: SpreadsheetSource,
  budget: ReadBudget,
  today: Date,
  options: PassengerSheetOptions,
): Promise<PassengerSheetResult> {
  const { sheet, scan, header } = found;
  const { limits } = options;
  const tables = (await sheet.tables?.()) ?? [];
  budget.countCell(scan.settle());
  const list = new PassengerListBuilder(header, {
    flightId: options.flightId,
    maxRows: limits.uploadMaxRows,
    maxProblems: options.maxProblems ?? DEFAULT_MAX_PROBLEMS,
    normalize: { today: isoDay(today), defaultPhoneRegion: options.defaultPhoneRegion },
    dateOrder: options.dateOrder,
    ageDay: isoDay(options.departure ?? today),
    ageDayIsDeparture: options.departure !== undefined,
    preview: options.preview,
  });
  list.readDateOrders(scan.rows);
  const rowNotes = addListRows(scan.rows, list, {
    header,
    visibility: new RowVisibility(header, scan.autoFilterOfSheet, tables),
    hiddenRows: options.hiddenRows ?? DEFAULT_HIDDEN_ROWS,
    isHiddenColumn: scan.isHiddenColumn,
    budget,
  });
  const notes = skipped.map(({ sheet: other, reason }) => `Sheet ${quoted(other.name)} was skipped: ${reason}`);
  for (const later of laterLists) notes.push(`Sheet ${quoted(later.sheet.name)} has a passenger header (row ${later.header.sheetRow}) but no passengers below it; it was not read`);
  notes.push(...unusedCorrections(options.corrections, scan, header));
  if (options.preview) {
    const { records, warnings, problems, problemCount } = list.finishPreview(sheet.name);
    const missing = missingColumnProblems(header.headingOf, header.sheetRow).map((problem) => ({ ...problem, passenger_field: problem.field }));
    return {
      records,
      warnings: [...workbook.warnings, ...notes, ...rowNotes, ...warnings],
      sheetName: sheet.name,
      preview: { problems: [...missing, ...problems], problemCount: missing.length + problemCount, header },
    };
  }
  const { records, warnings } = list.finish(sheet.name);
  return { records, warnings: [...workbook.warnings, ...notes, ...rowNotes, ...warnings], sheetName: sheet.name };
}

/** A warning for each correction that fell on no passenger cell, in the order the client gave them. */
function unusedCorrections(corrections: PassengerSheetOptions['corrections'], scan: ListSheetScan, header: HeaderRow): string[] {
  const notes: string[] = [];
  for (const [sheetRow, cells] of corrections ?? []) {
    for (const column of cells.keys()) {
      if (!scan.corrected.has(`${sheetRow}:${column}`)) {
        notes.push(`The correction of cell ${columnLetters(column)}${sheetRow} was not used: ${sheetRow <= header.sheetRow ? `the passenger rows start below the header (row ${header.sheetRow})` : `column ${columnLetters(column)} is not read as a passenger field`}`);
      }
    }
  }
  return notes;
}

/** The refusal when no sheet holds the list: the best incomplete header's problems, else no header at all. */
function noListRefusal(search: SheetSearch): PassengerSheetError {
  const { skipped } = search;
  const lookedAt = search.offered
    ? ` Sheets looked at: ${skipped
        .slice(0, 20)
        .map(({ sheet, reason }) => `${quoted(sheet.name)} (${reason})`)
        .join('; ')}${skipped.length > 20 ? `; and ${skipped.length - 20} more` : ''}.`
    : ' The workbook has no sheets.';
  if (search.bestIncomplete) {
    const { sheet, header } = search.bestIncomplete;
    return sheetError.unprocessable(
      `The header row (sheet ${quoted(sheet.name)}, row ${header.sheetRow}) is incomplete: ${header.problems.map((p) => p.message).join('; ')}.${lookedAt}`,
      header.problems,
    );
  }
  return sheetError.unprocessable(
    `No header row found: no visible sheet has a row naming the passenger columns (such as Surname, Name, Date of birth) in its first ${HEADER_SEARCH_ROWS} rows.${lookedAt}`,
    missingColumnProblems(new Map()),
  );
}
