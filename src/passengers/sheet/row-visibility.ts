import { truncated, UnreadableCell, type CellContent } from './cell-value';
import type { HeaderRow } from './header-row';
import { columnLetters, type KeptRow, type MergedRange } from './merged-cells';
import type { PassengerListBuilder } from './passenger-list-builder';
import type { ReadBudget } from './read-budget';
import { sheetError } from './sheet-error';
import type { SheetAutoFilter } from './worksheet-reader';
import type { SheetTable } from './xlsx-package';

/**
 * What becomes of rows the user does not see: `SKIP` leaves them out of the list, `IMPORT` reads
 * them like the others. Either way a warning names them.
 */
export type HiddenRowsPolicy = 'SKIP' | 'IMPORT';
export const HIDDEN_ROWS_POLICIES: readonly HiddenRowsPolicy[] = ['SKIP', 'IMPORT'];
export const DEFAULT_HIDDEN_ROWS: HiddenRowsPolicy = 'SKIP';

/** Rows named one by one in a warning; the rest are counted. */
const NAMED_ROWS = 20;
/** Totals rows named one by one in the warnings; the rest are counted. */
const NAMED_TOTALS_ROWS = 5;

/** Why a kept row is not (or not plainly) a passenger row. */
export type RowKind = 'passenger' | 'totals' | 'filtered' | 'hidden';

const overlaps = (a: MergedRange, b: MergedRange) => a.left <= b.right && b.left <= a.right;

/** A hidden row below a filter's header that filters on something: hidden by the filter, not by hand. */
function underFilter(filter: SheetAutoFilter | undefined, row: number): boolean {
  return filter !== undefined && filter.filtering && row > filter.range.top && row <= filter.range.bottom;
}

/**
 * Sorts the kept data rows of the list sheet: a table's totals row (the last row of a table with
 * `totalsRowCount`, or a row whose passenger cells hold SUBTOTAL/AGGREGATE formulas), rows hidden
 * by a filter (a hidden row inside an autofilter, of the sheet or of a table, that filters on some
 * column), rows hidden otherwise, and passenger rows.
 */
export class RowVisibility {
  private readonly totalsRows = new Map<number, string>();
  private readonly listRange: MergedRange;

  constructor(
    header: HeaderRow,
    private readonly sheetFilter: SheetAutoFilter | undefined,
    private readonly tables: readonly SheetTable[],
  ) {
    const columns = header.columns.map((c) => c.column);
    this.listRange = { top: header.sheetRow, bottom: Number.MAX_SAFE_INTEGER, left: Math.min(...columns), right: Math.max(...columns) };
    for (const table of tables) {
      if (table.totalsRows > 0 && overlaps(table.range, this.listRange)) this.totalsRows.set(table.range.bottom, table.name);
    }
  }

  kind(row: KeptRow): RowKind {
    if (row.subtotal || this.totalsRows.has(row.sheetRow)) return 'totals';
    if (!row.hidden) return 'passenger';
    if (row.filtered) return 'filtered';
    if (underFilter(this.sheetFilter, row.sheetRow)) return 'filtered';
    const filtered = this.tables.some((t) => overlaps(t.range, this.listRange) && underFilter(t.autoFilter, row.sheetRow));
    return filtered ? 'filtered' : 'hidden';
  }

  /** The warning for a skipped totals row. */
  totalsWarning(row: KeptRow): string {
    const table = this.totalsRows.get(row.sheetRow);
    if (table !== undefined && !row.subtotal) {
      return `Sheet row ${row.sheetRow} is the totals row of the table ${table ? `"${truncated(table, 40)}"` : 'around the list'}, not a passenger, and was skipped`;
    }
    return `Sheet row ${row.sheetRow} holds SUBTOTAL formulas (a totals row), not a passenger, and was skipped`;
  }
}

/** A row as a warning names it: its number and, when written, the surname and name. */
export function rowLabel(header: HeaderRow, row: KeptRow): string {
  const text = (field: string) => {
    const index = header.columns.findIndex((c) => c.field === field);
    const content: CellContent | undefined = index < 0 ? undefined : row.values[index];
    return typeof content === 'string' ? content.trim() : '';
  };
  const who = `${text('surname')} ${text('name')}`.trim();
  return who ? `${row.sheetRow} (${truncated(who, 40)})` : String(row.sheetRow);
}

/** A hidden row as a warning names it, and its passenger number when it was imported. */
export interface UnseenRow {
  label: string;
  passenger?: number;
}

/** One warning for the hidden rows of one kind: rows named up to a count, then how many more. */
export function hiddenRowsWarning(kind: 'filtered' | 'hidden', rows: readonly UnseenRow[], policy: HiddenRowsPolicy): string {
  const list = (items: readonly string[]) => `${items.slice(0, NAMED_ROWS).join(', ')}${items.length > NAMED_ROWS ? ` and ${items.length - NAMED_ROWS} more` : ''}`;
  const one = rows.length === 1;
  const how = kind === 'filtered' ? 'hidden by the filter' : 'hidden';
  const subject = `Sheet ${one ? 'row' : 'rows'} ${list(rows.map((r) => r.label))} ${one ? 'is' : 'are'} ${how}`;
  if (policy === 'SKIP') return `${subject} and ${one ? 'was' : 'were'} skipped; to import hidden rows, upload again with the option hiddenRows=IMPORT`;
  const numbers = rows.flatMap((r) => (r.passenger === undefined ? [] : [String(r.passenger)]));
  return `${subject} and ${one ? 'was' : 'were'} imported${numbers.length ? ` as ${numbers.length === 1 ? 'passenger' : 'passengers'} ${list(numbers)}` : ''} (option hiddenRows=IMPORT)`;
}

/** The warning for hidden columns that hold passenger fields (they are read like the others). */
export function hiddenColumnsWarning(header: HeaderRow, isHidden: (column: number) => boolean): string | undefined {
  const hidden = header.columns.filter((c) => isHidden(c.column));
  if (!hidden.length) return undefined;
  const named = hidden.map((c) => `${columnLetters(c.column)} "${truncated(c.heading, 40)}"`).join(', ');
  return hidden.length === 1
    ? `Column ${named} is hidden; its values were read like those of the other columns`
    : `Columns ${named} are hidden; their values were read like those of the other columns`;
}

export interface ListRowsContext {
  header: HeaderRow;
  visibility: RowVisibility;
  hiddenRows: HiddenRowsPolicy;
  isHiddenColumn: (column: number) => boolean;
  budget: ReadBudget;
}

/** A parent row number as written: a whole number from 1 (a number cell or digits); else undefined. */
function writtenNumber(content: CellContent | undefined): number | undefined {
  const number = typeof content === 'string' && /^\s*\d{1,9}\s*$/.test(content) ? Number(content) : content;
  return typeof number === 'number' && Number.isInteger(number) && number >= 1 ? number : undefined;
}

/**
 * Parent row numbers are written counting every passenger row of the file, hidden ones included
 * (numbers are written once; a filter applied later does not change them). When hidden rows are
 * skipped, the passengers after them move up: each number is turned into the imported passenger's
 * number, and one naming a skipped row becomes a problem of its cell. Answers how many changed.
 */
function renumberParents(rows: readonly KeptRow[], kinds: readonly RowKind[], imported: (kind: RowKind) => boolean, parentIndex: number): number {
  const newNumber: number[] = [0];
  const sheetRowOf: number[] = [0];
  let next = 0;
  kinds.forEach((kind, at) => {
    if (kind === 'totals') return;
    newNumber.push(imported(kind) ? (next += 1) : 0);
    sheetRowOf.push(rows[at].sheetRow);
  });
  let changed = 0;
  kinds.forEach((kind, at) => {
    if (kind === 'totals' || !imported(kind)) return;
    const written = writtenNumber(rows[at].values[parentIndex]);
    if (written === undefined || written >= newNumber.length) return;
    const now = newNumber[written];
    if (now === written) return;
    changed += 1;
    rows[at].values[parentIndex] =
      now > 0
        ? now
        : new UnreadableCell(
            `passenger ${written} (sheet row ${sheetRowOf[written]}) is a hidden row that was skipped; unhide it, or upload again with the option hiddenRows=IMPORT`,
            String(written),
          );
  });
  return changed;
}

/**
 * Hands the kept rows of the list sheet to `list`: totals rows skipped, hidden rows skipped or
 * imported as `hiddenRows` says, parent row numbers renumbered when skipped rows move passengers
 * up. Answers the warnings that name what the user does not see.
 */
export function addListRows(rows: readonly KeptRow[], list: PassengerListBuilder, context: ListRowsContext): string[] {
  const { header, visibility, hiddenRows, budget } = context;
  const notes: string[] = [];
  const columnsNote = hiddenColumnsWarning(header, context.isHiddenColumn);
  if (columnsNote) notes.push(columnsNote);
  const kinds = rows.map((row) => visibility.kind(row));
  const imported = (kind: RowKind) => kind === 'passenger' || (kind !== 'totals' && hiddenRows === 'IMPORT');
  const parentIndex = header.columns.findIndex((c) => c.field === 'row_number_parent_id');
  if (parentIndex >= 0 && kinds.some((kind) => kind !== 'totals' && !imported(kind))) {
    const changed = renumberParents(rows, kinds, imported, parentIndex);
    if (changed > 0) {
      notes.push(
        `Parent row numbers (column ${columnLetters(header.columns[parentIndex].column)} "${truncated(header.columns[parentIndex].heading, 40)}") count the hidden rows too; ${changed === 1 ? 'one was' : `${changed} were`} turned into the number of the passenger imported`,
      );
    }
  }
  const unseen = { filtered: [] as UnseenRow[], hidden: [] as UnseenRow[] };
  let totals = 0;
  rows.forEach((row, index) => {
    if ((index & 255) === 255) budget.checkpoint();
    const kind = kinds[index];
    if (kind === 'totals') {
      totals += 1;
      if (totals <= NAMED_TOTALS_ROWS) notes.push(visibility.totalsWarning(row));
    } else if (kind === 'passenger') {
      list.addRow(row.sheetRow, row.values);
    } else if (hiddenRows === 'SKIP') {
      unseen[kind].push({ label: rowLabel(header, row) });
    } else if (list.addRow(row.sheetRow, row.values)) {
      unseen[kind].push({ label: rowLabel(header, row), passenger: list.passengerCount });
    }
  });
  if (totals > NAMED_TOTALS_ROWS) notes.push(`… and ${totals - NAMED_TOTALS_ROWS} more totals rows were skipped`);
  const hiddenNotes = (['filtered', 'hidden'] as const).filter((kind) => unseen[kind].length).map((kind) => hiddenRowsWarning(kind, unseen[kind], hiddenRows));
  notes.push(...hiddenNotes);
  if (list.passengerCount === 0 && hiddenNotes.length) {
    throw sheetError.unprocessable(`The passenger list is empty once its hidden rows are left out: ${hiddenNotes.join('; ')}`, [
      { field: 'hiddenRows', column: 'hiddenRows', message: 'every passenger row of the sheet is hidden; unhide them, or upload again with the option hiddenRows=IMPORT' },
    ]);
  }
  return notes;
}
