import { CellErrorValue, truncated, UnreadableCell, type CellContent } from './cell-value';
import { type MergedRange } from './merged-cells';
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
 * then the merged blocks. Empty cells (styled, no value) cost a count and nothing more.
 */
export async function readWorksheet(entry: ZipEntry, bytes: Buffer, context: WorksheetContext, sink: SheetRowSink): Promise<void> {
  const { sharedStrings, budget } = context;
  const cells: SheetCell[] = [];
  let inSheetData = false;
  let inRow = false;
  let rowHidden = false;
  let inAutoFilter = false;
  let inFilterColumn = false;
  let autoFilter: SheetAutoFilter | undefined;
  let rowNumber = 0;
  let nextColumn = 1;
  let cellsInRow = 0;
  // The cell being read.
  let inCell = false;
  let column = 0;
  let type = 'n';
  let hasFormula = false;
  let hasValue = false;
  let hasInline = false;
  let capture: 'v' | 'f' | 't' | undefined;
  let phoneticDepth = 0;
  const where = () => `Sheet row ${rowNumber}, column ${column}`;
  const value = new TextCollector(where);
  const inline = new TextCollector(where);
  let formula = '';

  function cellContent(): CellContent {
    if (type === 'inlineStr' && hasInline) return inline.text;
    if (!hasValue) return hasFormula ? uncalculated(formula) : null;
    const text = value.text;
    switch (type) {
      case 's': {
        const index = Number(text);
        const shared = Number.isInteger(index) ? sharedStrings[index] : undefined;
        if (shared !== undefined) return shared;
        return new UnreadableCell(`the cell refers to shared text ${truncated(text)}, which the workbook does not hold (the file is damaged)`, null);
      }
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
        if (text.trim() === '') return hasFormula ? uncalculated(formula) : null;
        const number = Number(text);
        return Number.isFinite(number) ? number : text;
      }
    }
  }

  const handler: XmlPartHandler = {
    get done() {
      return sink.done;
    },
    open(name, attributes) {
      if (inCell) {
        if (name === 'v') {
          hasValue = true;
          capture = 'v';
        } else if (name === 'f') {
          hasFormula = true;
          capture = 'f';
        } else if (name === 'is') hasInline = true;
        else if (name === 'rPh') phoneticDepth += 1;
        else if (name === 't' && hasInline && phoneticDepth === 0) capture = 't';
        return;
      }
      if (name === 'c' && inRow) {
        budget.countCell();
        cellsInRow += 1;
        if (cellsInRow > MAX_SHEET_COLUMNS) {
          throw sheetError.unprocessable(`Sheet row ${rowNumber} has more than ${MAX_SHEET_COLUMNS} cells, more than a sheet has columns`);
        }
        const reference = attributes.r === undefined ? undefined : parseCellReference(attributes.r);
        column = reference?.column ?? nextColumn;
        if (column > MAX_SHEET_COLUMNS) throw damagedFile(`a cell reference (${truncated(attributes.r ?? '')}) lies beyond column XFD`);
        nextColumn = column + 1;
        inCell = true;
        type = attributes.t ?? 'n';
        hasFormula = hasValue = hasInline = false;
        phoneticDepth = 0;
        value.reset();
        inline.reset();
        formula = '';
      } else if (name === 'row' && inSheetData) {
        budget.countCell();
        const given = attributes.r === undefined ? undefined : Number(attributes.r);
        if (given !== undefined && !(Number.isInteger(given) && given >= 1 && given <= MAX_SHEET_ROWS)) {
          throw damagedFile(`a row number (${truncated(attributes.r ?? '')}) is not one of 1 to ${MAX_SHEET_ROWS}`);
        }
        rowNumber = given ?? rowNumber + 1;
        inRow = true;
        rowHidden = isTrue(attributes.hidden);
        nextColumn = 1;
        cellsInRow = 0;
        cells.length = 0;
      } else if (name === 'sheetData') inSheetData = true;
      else if (name === 'mergeCell' && attributes.ref) {
        const range = parseRange(attributes.ref);
        if (range && (range.bottom > range.top || range.right > range.left)) sink.merge(range);
      } else if (name === 'col' && !inSheetData) {
        // Excel also hides a column by giving it no width.
        const from = Number(attributes.min);
        const to = Number(attributes.max ?? attributes.min);
        const hidden = isTrue(attributes.hidden) || (attributes.width !== undefined && Number(attributes.width) === 0);
        if (hidden && Number.isInteger(from) && Number.isInteger(to) && from >= 1 && to >= from) {
          sink.hiddenColumns?.(from, Math.min(to, MAX_SHEET_COLUMNS));
        }
      } else if (name === 'autoFilter' && !inSheetData && attributes.ref) {
        const range = parseRange(attributes.ref);
        if (range) {
          inAutoFilter = true;
          autoFilter = { range, filtering: false };
        }
      } else if (inAutoFilter && autoFilter && name === 'filterColumn') {
        inFilterColumn = true;
      } else if (inFilterColumn && autoFilter) {
        // A criterion (filters, customFilters, top10, dynamicFilter, colorFilter, iconFilter) on a column.
        autoFilter.filtering = true;
      }
    },
    close(name) {
      if (inCell) {
        if (name === 'c') {
          inCell = false;
          capture = undefined;
          const content = cellContent();
          if (content !== null) cells.push(hasFormula && SUBTOTAL_FORMULA.test(formula) ? { column, content, subtotal: true } : { column, content });
        } else if (name === 'rPh') phoneticDepth -= 1;
        else if (name === 'v' || name === 'f' || name === 't') capture = undefined;
        return;
      }
      if (name === 'row' && inRow) {
        inRow = false;
        sink.row(rowNumber, cells, { hidden: rowHidden });
      } else if (name === 'sheetData') inSheetData = false;
      else if (name === 'filterColumn') inFilterColumn = false;
      else if (name === 'autoFilter' && inAutoFilter) {
        inAutoFilter = false;
        if (autoFilter) sink.autoFilter?.(autoFilter);
      }
    },
    text(text) {
      if (capture === 'v') value.add(text);
      else if (capture === 't') inline.add(text);
      else if (capture === 'f' && formula.length < 200) formula += unescapeSpreadsheetText(text);
    },
  };
  await readXmlPart(bytes, entry, handler, budget);
}
