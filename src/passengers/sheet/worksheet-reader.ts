import { NO_CELL_FORMATS, type CellFormats } from './cell-formats';
import { CellErrorValue, truncated, UnreadableCell, type CellContent } from './cell-value';
import { type MergedRange } from './merged-cells';
import { formattedNumber } from './number-formats';
import type { ReadBudget } from './read-budget';
import { sheetError } from './sheet-error';
import { TextCollector, unescapeSpreadsheetText } from './spreadsheet-text';
import { readXmlPart, type XmlPartHandler } from './xml-part-reader';
import type { ZipEntry } from './zip-directory';
import { damagedFile } from './zip-part';

/** The sheet's last column (XFD) and row, as Excel and the schema bound them. */
export const MAX_SHEET_COLUMNS = 16_384;
export const MAX_SHEET_ROWS = 1_048_576;

export interface SheetCell {
  column: number;
  content: CellContent;
  /** The cell's formula is a SUBTOTAL or AGGREGATE (what a totals row holds, never a passenger's data). */
  subtotal?: boolean;
}

/**
 * How a row is shown: `hidden` for a row the user does not see (by hand or by a filter);
 * `filtered` when the format itself says a filter hid it (an .ods's `table:visibility="filter"`).
 * An .xlsx row says only `hidden`: whether a filter did it is judged from the sheet's autofilters.
 */
export interface SheetRowInfo {
  hidden: boolean;
  filtered?: boolean;
}

/** A sheet's autofilter: its range, and whether it filters on anything (a criterion on some column). */
export interface SheetAutoFilter {
  range: MergedRange;
  filtering: boolean;
}

/**
 * Why a row is not shown: hidden by hand (`collapse` in OpenDocument), or filtered out by an
 * autofilter (`filter`).
 */
export type RowHiding = 'hidden' | 'filtered';

/** Where the rows of a worksheet go as they stream past. */
export interface SheetRowSink {
  /** One row: its non-empty cells in the order written. The array is reused for the next row. */
  row(sheetRow: number, cells: readonly SheetCell[], info: SheetRowInfo): void;
  /** A merged block (only blocks of more than one cell), declared after the rows. */
  merge(range: MergedRange): void;
  /** Hidden columns `from` to `to` (1-based, inclusive), declared before the rows. */
  hiddenColumns?(from: number, to: number): void;
  /** The sheet's autofilter, declared after the rows. */
  autoFilter?(filter: SheetAutoFilter): void;
  /** Set once the sink needs no more of the sheet. */
  readonly done: boolean;
}

export interface WorksheetContext {
  sharedStrings: readonly string[];
  budget: ReadBudget;
  /** The number format of each cell format (from the styles part); without it every number is a plain number. */
  formats?: CellFormats;
  /** Serial dates count from 1904 (old Mac workbooks). */
  date1904?: boolean;
}

const CELL_REF = /^\$?([A-Za-z]{1,3})\$?(\d{1,7})?$/;

function columnOfLetters(letters: string): number {
  let column = 0;
  for (let i = 0; i < letters.length; i += 1) column = column * 26 + ((letters.charCodeAt(i) & 0xdf) - 64);
  return column;
}

/** A cell or range corner (`B3`, `$B$3`) as column and row; undefined when it is not one. */
export function parseCellReference(reference: string): { column: number; row?: number } | undefined {
  const match = CELL_REF.exec(reference.trim());
  if (!match) return undefined;
  const column = columnOfLetters(match[1]);
  return { column, row: match[2] === undefined ? undefined : Number(match[2]) };
}

/** A range such as `A1:N20` (or one cell), 1-based and inclusive; undefined when it is not one. */
export function parseRange(ref: string): MergedRange | undefined {
  const [from, to = from] = ref.split(':');
  const start = parseCellReference(from ?? '');
  const end = parseCellReference(to ?? '');
  if (!start?.row || !end?.row) return undefined;
  return {
    top: Math.min(start.row, end.row),
    bottom: Math.max(start.row, end.row),
    left: Math.min(start.column, end.column),
    right: Math.max(start.column, end.column),
  };
}

/** An xsd:boolean attribute or cell value that says true (`1` or `true`). */
export const isTrue = (value: string | undefined) => value !== undefined && /^\s*(1|true)\s*$/i.test(value);

/** A SUBTOTAL or AGGREGATE formula, as an .xlsx writes it (`SUBTOTAL(103,B2:B6)`) or an .ods after its namespace (`of:=SUBTOTAL(103;[.B2:.B6])`). */
export const SUBTOTAL_FORMULA = /^\s*(?:_xlfn\.)?(?:SUBTOTAL|AGGREGATE)\s*\(/i;

const ISO_DAY = /^\s*(\d{4})-(\d{2})-(\d{2})(?:$|[T\s])/;

/** A `t="d"` cell (ISO 8601): the calendar day written, whatever time or zone follows it. */
function isoDateCell(text: string): CellContent {
  const match = ISO_DAY.exec(text);
  if (!match) return text.trim() === '' ? null : text;
  return new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])));
}

function uncalculated(formula: string): UnreadableCell {
  const shown = `=${formula}`;
  return new UnreadableCell(
    `the cell holds the formula ${truncated(shown)} but no calculated value (the program that wrote the file did not compute it); open the file in Excel or LibreOffice, save it and upload it again`,
    shown,
  );
}

/**
 * Streams one worksheet to `sink`: rows and cells with or without `r=` (a missing one follows the
 * one before), every cell type of the schema (shared, inline and formula strings, numbers, ISO
 * dates, booleans, errors), inline rich text with every run joined and phonetic runs left out,
 * then the merged blocks. A number is read as its cell format shows it (see formattedNumber): a
 * day in a date format, the digits with their leading zeros in a format of zeros such as
 * `000000000`. Empty cells (styled, no value) cost a count and nothing more.
 */
export async function readWorksheet(entry: ZipEntry, bytes: Buffer, context: WorksheetContext, sink: SheetRowSink): Promise<void> {
  await readXmlPart(bytes, entry, new WorksheetReader(context, sink), context.budget);
}

/**
 * The reading state of one worksheet, fed by the XML reader's events. `open` and `close` only
 * dispatch: the cell being read, the row around it, and the parts outside the rows (column
 * widths, merged blocks, the autofilter) each have their own methods. The state lives in fields
 * rather than in objects per row or cell, so a cell costs no allocation beyond its entry in the row.
 */
class WorksheetReader implements XmlPartHandler {
  private readonly sharedStrings: readonly string[];
  private readonly budget: ReadBudget;
  private readonly formats: CellFormats;
  private readonly date1904: boolean;
  /** The current row's non-empty cells, handed to the sink and reused for the next row. */
  private readonly cells: SheetCell[] = [];
  private inSheetData = false;
  private inRow = false;
  private rowHidden = false;
  private inAutoFilter = false;
  private inFilterColumn = false;
  private autoFilter: SheetAutoFilter | undefined;
  private rowNumber = 0;
  private nextColumn = 1;
  private cellsInRow = 0;
  // The cell being read.
  private inCell = false;
  private column = 0;
  private type = 'n';
  /** The cell's format as written (its `s`; absent means 0), looked up only for a number. */
  private style: string | undefined;
  private hasFormula = false;
  private hasValue = false;
  private hasInline = false;
  private capture: 'v' | 'f' | 't' | undefined;
  private phoneticDepth = 0;
  private readonly value: TextCollector;
  private readonly inline: TextCollector;
  private formula = '';

  constructor(
    context: WorksheetContext,
    private readonly sink: SheetRowSink,
  ) {
    this.sharedStrings = context.sharedStrings;
    this.budget = context.budget;
    this.formats = context.formats ?? NO_CELL_FORMATS;
    this.date1904 = context.date1904 ?? false;
    const where = () => `Sheet row ${this.rowNumber}, column ${this.column}`;
    this.value = new TextCollector(where);
    this.inline = new TextCollector(where);
  }

  get done(): boolean {
    return this.sink.done;
  }

  open(name: string, attributes: Record<string, string>): void {
    if (this.inCell) this.openInCell(name);
    else if (name === 'c' && this.inRow) this.openCell(attributes.r, attributes.t, attributes.s);
    else if (name === 'row' && this.inSheetData) this.openRow(attributes.r, attributes.hidden);
    else if (name === 'sheetData') this.inSheetData = true;
    else if (name === 'mergeCell' && attributes.ref) this.mergeCell(attributes.ref);
    else if (name === 'col' && !this.inSheetData) this.columnWidths(attributes);
    else if (name === 'autoFilter' && !this.inSheetData && attributes.ref) this.openAutoFilter(attributes.ref);
    else if (this.inAutoFilter && this.autoFilter && name === 'filterColumn') this.inFilterColumn = true;
    else if (this.inFilterColumn && this.autoFilter) {
      // A criterion (filters, customFilters, top10, dynamicFilter, colorFilter, iconFilter) on a column.
      this.autoFilter.filtering = true;
    }
  }

  close(name: string): void {
    if (this.inCell) this.closeInCell(name);
    else if (name === 'row' && this.inRow) {
      this.inRow = false;
      this.sink.row(this.rowNumber, this.cells, { hidden: this.rowHidden });
    } else if (name === 'sheetData') this.inSheetData = false;
    else if (name === 'filterColumn') this.inFilterColumn = false;
    else if (name === 'autoFilter' && this.inAutoFilter) {
      this.inAutoFilter = false;
      if (this.autoFilter) this.sink.autoFilter?.(this.autoFilter);
    }
  }

  text(text: string): void {
    if (this.capture === 'v') this.value.add(text);
    else if (this.capture === 't') this.inline.add(text);
    else if (this.capture === 'f' && this.formula.length < 200) this.formula += unescapeSpreadsheetText(text);
  }

  private openRow(r: string | undefined, hidden: string | undefined): void {
    this.budget.countCell();
    const given = r === undefined ? undefined : Number(r);
    if (given !== undefined && !(Number.isInteger(given) && given >= 1 && given <= MAX_SHEET_ROWS)) {
      throw damagedFile(`a row number (${truncated(r ?? '')}) is not one of 1 to ${MAX_SHEET_ROWS}`);
    }
    this.rowNumber = given ?? this.rowNumber + 1;
    this.inRow = true;
    this.rowHidden = isTrue(hidden);
    this.nextColumn = 1;
    this.cellsInRow = 0;
    this.cells.length = 0;
  }

  private openCell(r: string | undefined, t: string | undefined, s: string | undefined): void {
    this.budget.countCell();
    this.cellsInRow += 1;
    if (this.cellsInRow > MAX_SHEET_COLUMNS) {
      throw sheetError.unprocessable(`Sheet row ${this.rowNumber} has more than ${MAX_SHEET_COLUMNS} cells, more than a sheet has columns`);
    }
    const reference = r === undefined ? undefined : parseCellReference(r);
    const column = reference?.column ?? this.nextColumn;
    this.column = column;
    if (column > MAX_SHEET_COLUMNS) throw damagedFile(`a cell reference (${truncated(r ?? '')}) lies beyond column XFD`);
    this.nextColumn = column + 1;
    this.inCell = true;
    this.type = t ?? 'n';
    this.style = s;
    this.hasFormula = this.hasValue = this.hasInline = false;
    this.phoneticDepth = 0;
    this.value.reset();
    this.inline.reset();
    this.formula = '';
  }

  /** An element inside a cell: its value, formula, inline text, or a phonetic run (left out). */
  private openInCell(name: string): void {
    if (name === 'v') {
      this.hasValue = true;
      this.capture = 'v';
    } else if (name === 'f') {
      this.hasFormula = true;
      this.capture = 'f';
    } else if (name === 'is') this.hasInline = true;
    else if (name === 'rPh') this.phoneticDepth += 1;
    else if (name === 't' && this.hasInline && this.phoneticDepth === 0) this.capture = 't';
  }

  private closeInCell(name: string): void {
    if (name === 'c') {
      this.inCell = false;
      this.capture = undefined;
      const content = this.cellContent();
      if (content === null) return;
      const column = this.column;
      this.cells.push(this.hasFormula && SUBTOTAL_FORMULA.test(this.formula) ? { column, content, subtotal: true } : { column, content });
    } else if (name === 'rPh') this.phoneticDepth -= 1;
    else if (name === 'v' || name === 'f' || name === 't') this.capture = undefined;
  }

  /** What the cell just read holds, by its type; null when it holds nothing. */
  private cellContent(): CellContent {
    if (this.type === 'inlineStr' && this.hasInline) return this.inline.text;
    if (!this.hasValue) return this.hasFormula ? uncalculated(this.formula) : null;
    const text = this.value.text;
    switch (this.type) {
      case 's':
        return this.sharedString(text);
      case 'str':
      case 'inlineStr':
        return text;
      case 'b':
        return isTrue(text);
      case 'e':
        return new CellErrorValue(text.trim());
      case 'd':
        return isoDateCell(text);
      default: {
        if (text.trim() === '') return this.hasFormula ? uncalculated(this.formula) : null;
        const number = Number(text);
        if (!Number.isFinite(number)) return text;
        const style = this.style === undefined ? 0 : Number(this.style);
        return Number.isInteger(style) && style >= 0 ? formattedNumber(number, this.formats.classOf(style), this.date1904) : number;
      }
    }
  }

  private sharedString(text: string): CellContent {
    const index = Number(text);
    const shared = Number.isInteger(index) ? this.sharedStrings[index] : undefined;
    if (shared !== undefined) return shared;
    return new UnreadableCell(`the cell refers to shared text ${truncated(text)}, which the workbook does not hold (the file is damaged)`, null);
  }

  private mergeCell(ref: string): void {
    const range = parseRange(ref);
    if (range && (range.bottom > range.top || range.right > range.left)) this.sink.merge(range);
  }

  /** A `<col>` span: hidden columns, by the flag or, as Excel also hides one, by a width of 0. */
  private columnWidths(attributes: Record<string, string>): void {
    const from = Number(attributes.min);
    const to = Number(attributes.max ?? attributes.min);
    const hidden = isTrue(attributes.hidden) || (attributes.width !== undefined && Number(attributes.width) === 0);
    if (hidden && Number.isInteger(from) && Number.isInteger(to) && from >= 1 && to >= from) {
      this.sink.hiddenColumns?.(from, Math.min(to, MAX_SHEET_COLUMNS));
    }
  }

  private openAutoFilter(ref: string): void {
    const range = parseRange(ref);
    if (range) {
      this.inAutoFilter = true;
      this.autoFilter = { range, filtering: false };
    }
  }
}
