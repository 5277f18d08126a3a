import type { Row } from 'exceljs';
import type { PassengerRecord } from '../passenger.record';
import {
  isBlank,
  normalizeDate,
  normalizePassengerInto,
  normalizeRowReference,
  type FieldProblem,
  type NormalizeOptions,
} from '../passenger.normalize';
import { CellErrorValue, cellContent, reportedValue, type CellContent } from './cell-value';
import type { HeaderRow, MappedColumn } from './header-row';
import type { SheetField } from './heading-aliases';
import type { MergedCellFiller } from './merged-cells';
import { sheetError, type SheetProblem } from './sheet-error';

export interface ListOptions {
  flightId: number;
  maxRows: number;
  maxProblems: number;
  normalize: Omit<NormalizeOptions, 'partial'>;
}

/**
 * Turns data rows into records as they stream past. Keeps the records only while no problem has
 * been found (after that, only what the parent-row checks need), and every problem up to the cap.
 */
export class PassengerListBuilder {
  private records: PassengerRecord[] | undefined = [];
  private rowCount = 0;
  /** The parent row named by each passenger that names one (few do), and that passenger's sheet row. */
  private readonly parents = new Map<number, { parent: number; sheetRow: number }>();
  private readonly problems: SheetProblem[] = [];
  private problemCount = 0;
  private readonly rowsWithProblems = new Set<number>();
  private readonly columns: readonly MappedColumn[];
  private readonly parentColumn: string;
  /** Reused for every row: the cells of the row, and its field problems. */
  private readonly raw: Record<string, CellContent> = {};
  private readonly rowProblems: FieldProblem[] = [];

  constructor(
    private readonly header: HeaderRow,
    private readonly options: ListOptions,
  ) {
    this.columns = header.columns;
    this.parentColumn = header.headingOf.get('row_number_parent_id') ?? 'row_number_parent_id';
  }

  /** Counts every problem; keeps the first ones up to the cap (all of them when `always`). */
  private report(problem: SheetProblem, always = false): void {
    this.problemCount += 1;
    this.records = undefined;
    if (problem.row_number !== undefined) this.rowsWithProblems.add(problem.row_number);
    if (always || this.problems.length < this.options.maxProblems) this.problems.push(problem);
  }

  private headingOf(field: string): string {
    return this.header.headingOf.get(field as SheetField) ?? field;
  }

  /** Reads one sheet row; blank rows (no value in any recognised column) are skipped, not counted. */
  addRow(row: Row, merges: MergedCellFiller | undefined): void {
    const raw = this.raw;
    let hasValue = false;
    let hasErrorCell = false;
    for (const { column, field } of this.columns) {
      let content = cellContent(row.findCell(column)?.value);
      if (merges && isBlank(content)) content = (merges.valueAt(row.number, column) as CellContent | undefined) ?? content;
      if (!isBlank(content)) {
        hasValue = true;
        if (content instanceof CellErrorValue) hasErrorCell = true;
      }
      raw[field] = content;
    }
    if (!hasValue) return;
    const rowNumber = this.rowCount + 1;
    if (rowNumber > this.options.maxRows) {
      throw sheetError.tooLarge(
        `The list has more than ${this.options.maxRows} passenger rows (the limit); split it into smaller lists`,
      );
    }
    if (hasErrorCell) this.reportErrorCells(raw, rowNumber, row.number);
    const parent = this.parentOf(raw.row_number_parent_id, rowNumber, row.number);
    this.rowCount = rowNumber;
    if (parent !== null) this.parents.set(rowNumber, { parent, sheetRow: row.number });
    const record: PassengerRecord = {
      id: null,
      idvolo: this.options.flightId,
      surname: '',
      name: '',
      luogonascita: '',
      nazionalita: '',
      typedoc: 'P',
      numberdoc: '',
      date_born: '',
      scadenza: '',
      issuingstate: '',
      email: null,
      phone: null,
      is_carring_infant: false,
      gender: 'M',
      parent_id: null,
      row_number_parent_id: parent,
      row_number: rowNumber,
    };
    const problems = this.rowProblems;
    problems.length = 0;
    normalizePassengerInto(raw, record as unknown as Record<string, unknown>, this.options.normalize, problems);
    for (const problem of problems) {
      if (raw[problem.field] instanceof CellErrorValue) continue; // already reported
      const column = this.headingOf(problem.field);
      this.report({
        row_number: rowNumber,
        sheet_row: row.number,
        field: column,
        column,
        value: this.reportedValue(problem.field, raw[problem.field]),
        message: `${column}: ${problem.message}`,
      });
    }
    if (this.records && problems.length === 0) this.records.push(record);
  }

  /** The value as the user sees it: a date cell (read as its serial number) as `YYYY-MM-DD`. */
  private reportedValue(field: string, content: CellContent | undefined): string | number | boolean | null {
    if (typeof content === 'number' && (field === 'date_born' || field === 'scadenza')) {
      const date = normalizeDate(content, this.options.normalize);
      if (date.ok) return date.value;
    }
    return reportedValue(content);
  }

  private reportErrorCells(raw: Record<string, CellContent>, rowNumber: number, sheetRow: number): void {
    for (const field of Object.keys(raw)) {
      const content = raw[field];
      if (!(content instanceof CellErrorValue)) continue;
      const column = this.headingOf(field);
      const message = `${column}: the cell shows the error ${content.error}`;
      this.report({ row_number: rowNumber, sheet_row: sheetRow, field: column, column, value: content.error, message });
    }
  }

  private parentOf(content: CellContent | undefined, rowNumber: number, sheetRow: number): number | null {
    if (isBlank(content) || content instanceof CellErrorValue) return null;
    const parent = normalizeRowReference(content);
    if (parent.ok) return parent.value;
    const column = this.parentColumn;
    const message = `${column}: ${parent.message}`;
    this.report({ row_number: rowNumber, sheet_row: sheetRow, field: column, column, value: reportedValue(content), message });
    return null;
  }

  /** Parent rows must exist, differ from the row, and not be children themselves. */
  private checkParents(): SheetProblem[] {
    const found: SheetProblem[] = [];
    const count = this.rowCount;
    const column = this.parentColumn;
    for (const [rowNumber, { parent, sheetRow }] of this.parents) {
      let reason: string | undefined;
      const grandparent = this.parents.get(parent)?.parent;
      if (parent === rowNumber) reason = 'a passenger cannot be their own accompanying adult';
      else if (parent > count) {
        reason = `there is no passenger row ${parent}: the list has ${count} passengers, numbered from 1 below the header (blank rows not counted)`;
      } else if (grandparent !== undefined) {
        reason = `passenger row ${parent} is itself travelling with an adult (row ${grandparent}); name the adult's row`;
      }
      if (reason) {
        found.push({ row_number: rowNumber, sheet_row: sheetRow, field: column, column, value: parent, message: `${column}: ${reason}` });
      }
    }
    return found;
  }

  /** The records, or a 422 with every problem found (sorted by row). */
  finish(sheetName: string): { records: PassengerRecord[]; warnings: string[] } {
    if (this.rowCount === 0) {
      throw sheetError.unprocessable(
        `The passenger list is empty: sheet "${sheetName}" has a header row (row ${this.header.sheetRow}) but no passenger rows below it`,
      );
    }
    // Parent problems come last but belong among their rows: kept past the cap, then sorted in.
    for (const problem of this.checkParents()) this.report(problem, true);
    if (this.problemCount > 0 || !this.records) {
      const listed = this.problems
        .sort((a, b) => (a.row_number ?? 0) - (b.row_number ?? 0))
        .slice(0, this.options.maxProblems);
      const more = this.problemCount > listed.length ? `; the first ${listed.length} are listed` : '';
      throw sheetError.unprocessable(
        `The passenger list has ${this.problemCount} problem${this.problemCount === 1 ? '' : 's'} in ${this.rowsWithProblems.size} row${this.rowsWithProblems.size === 1 ? '' : 's'}${more}`,
        listed,
      );
    }
    return { records: this.records, warnings: this.header.ignored };
  }
}
