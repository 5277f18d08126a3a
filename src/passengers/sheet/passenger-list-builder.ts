import type { CountryCode } from 'libphonenumber-js/max';
import { suggestCountry } from '../country-lookup';
import { ageOn } from '../passenger-list.warnings';
import type { PassengerRecord } from '../passenger.record';
import {
  isBlank,
  isPhoneRegion,
  normalizeDate,
  normalizePassengerInto,
  normalizeRowReference,
  phoneRegionsOf,
  suggestPhone,
  type DateField,
  type DateOrder,
  type FieldNote,
  type FieldProblem,
  type NormalizeOptions,
} from '../passenger.normalize';
import { CellErrorValue, reportedValue, truncated, UnreadableCell, type CellContent } from './cell-value';
import { readDateColumn, type DateCell, type DateColumnReading } from './date-order';
import type { HeaderRow, MappedColumn } from './header-row';
import type { SheetField } from './heading-aliases';
import { columnLetters } from './merged-cells';
import { sheetError, type SheetProblem } from './sheet-error';

export interface ListOptions {
  flightId: number;
  maxRows: number;
  maxProblems: number;
  normalize: Omit<NormalizeOptions, 'partial' | 'dateOrders'>;
  /** The order text dates are read in where a column does not prove its own; default day first. */
  dateOrder?: DateOrder;
  /** The day ages are judged at for the parent checks (`YYYY-MM-DD`): the departure, else today. */
  ageDay: string;
  /** Whether `ageDay` is the departure (said in messages) or only today. */
  ageDayIsDeparture: boolean;
  /** Keep the records of the rows without problems, whatever the other rows hold (see finishPreview). */
  preview?: boolean;
}

/** A preview of the list: the rows that read cleanly, and the problems of the others. */
export interface ListPreview {
  records: PassengerRecord[];
  /** The first problems by row, up to the cap; each names the passenger field in `passenger_field`. */
  problems: SheetProblem[];
  problemCount: number;
  warnings: string[];
}

const COUNTRY_FIELDS = ['nazionalita', 'issuingstate', 'luogonascita'] as const;

/** No passenger field holds more: a longer text is reported without being interpreted. */
const MAX_FIELD_CHARS = 256;
/** A problem message is cut here, whatever it quotes. */
const MAX_MESSAGE_CHARS = 400;
/** Under this age at departure a passenger travels as an infant (on an adult's lap); under ADULT_AGE as a minor. */
export const INFANT_AGE = 2;
export const ADULT_AGE = 18;

interface Person {
  sheetRow: number;
  /** Date of birth, when it was valid. */
  born?: string;
  carrying?: boolean;
  /** Surname and name as written (cut short), for messages. */
  label: string;
}

/**
 * Turns data rows into records as they stream past. Keeps the records only while no problem has
 * been found (after that, only what the parent-row checks need), and every problem up to the cap.
 */
export class PassengerListBuilder {
  private records: PassengerRecord[] | undefined = [];
  /** In a preview: every row's record that had no field problem (rows with other problems are dropped at the end). */
  private readonly cleanRecords: PassengerRecord[] = [];
  private rowCount = 0;
  /** The parent row named by each passenger that names one (few do), and that passenger's sheet row. */
  private readonly parents = new Map<number, { parent: number; sheetRow: number }>();
  /** What the parent checks need of every passenger, by row_number - 1. */
  private readonly people: Person[] = [];
  /** The first problems by row (at most twice the cap between two trims). */
  private problems: SheetProblem[] = [];
  private problemCount = 0;
  private readonly rowsWithProblems = new Set<number>();
  private readonly columns: readonly MappedColumn[];
  private readonly parentColumn: string;
  /** Reused for every row: the cells of the row, and its field problems. */
  private readonly raw: Record<string, CellContent> = {};
  private readonly rowProblems: FieldProblem[] = [];
  private readonly rowNotes: FieldNote[] = [];
  private readonly normalizeOptions: NormalizeOptions;
  /** Rows whose text date contradicts the rest of its column: by field, by sheet row, the message. */
  private readonly dateConflicts = new Map<DateField, Map<number, string>>();
  private dateOrdersRead = false;
  readonly warnings: string[];

  constructor(
    private readonly header: HeaderRow,
    private readonly options: ListOptions,
  ) {
    this.columns = header.columns;
    this.parentColumn = header.headingOf.get('row_number_parent_id') ?? 'row_number_parent_id';
    this.warnings = [...header.ignored];
    this.normalizeOptions = { ...options.normalize };
  }

  /**
   * Decides, before any row is added, the order each date column's text dates are read in, from
   * the column's own values (see readDateColumn); `rows` are the data rows as addRow will get them.
   */
  readDateOrders(rows: readonly { sheetRow: number; values: readonly CellContent[] }[]): void {
    const orders: Partial<Record<DateField, DateOrder>> = {};
    const requested = this.options.dateOrder ?? 'DMY';
    const columns: { field: DateField; cells: DateCell[]; reading: DateColumnReading }[] = [];
    for (const field of ['date_born', 'scadenza'] as const) {
      const index = this.columns.findIndex((column) => column.field === field);
      if (index < 0) continue;
      const cells = rows.map((row) => ({ sheetRow: row.sheetRow, value: row.values[index] }));
      columns.push({ field, cells, reading: readDateColumn(this.headingOf(field), cells, requested) });
    }
    // A column whose dates prove no order follows one the other column proved: one list, one writer.
    const proving = columns.find(({ reading }) => reading.proof && reading.conflicts.size === 0);
    for (const column of columns) {
      const { field, cells } = column;
      if (proving && proving !== column && !column.reading.proof && column.reading.conflicts.size === 0) {
        const fileOrder = { order: proving.reading.order, heading: this.headingOf(proving.field), proof: proving.reading.proof! };
        column.reading = readDateColumn(this.headingOf(field), cells, requested, { fileOrder });
      }
      const { reading } = column;
      orders[field] = reading.order;
      if (reading.warning) this.warnings.push(reading.warning);
      if (reading.cellWarning) this.warnings.push(reading.cellWarning);
      if (reading.conflicts.size) this.dateConflicts.set(field, reading.conflicts);
    }
    this.normalizeOptions.dateOrders = orders;
    this.dateOrdersRead = true;
  }

  get passengerCount(): number {
    return this.rowCount;
  }

  /**
   * Counts every problem and keeps the first ones by row, up to the cap. Echoed values are cut to
   * MAX_ECHOED_CHARS, and so is their quotation in the message; the message itself is cut too.
   */
  private report(problem: SheetProblem): void {
    this.problemCount += 1;
    this.records = undefined;
    if (problem.row_number !== undefined) this.rowsWithProblems.add(problem.row_number);
    const { value } = problem;
    if (typeof value === 'string') {
      const short = truncated(value);
      if (short !== value) {
        problem.message = problem.message.split(value).join(short);
        problem.value = short;
      }
    }
    problem.message = truncated(problem.message, MAX_MESSAGE_CHARS);
    this.problems.push(problem);
    if (this.problems.length >= 2 * this.options.maxProblems) this.trimProblems();
  }

  private trimProblems(): void {
    this.problems = this.problems
      .sort((a, b) => (a.row_number ?? 0) - (b.row_number ?? 0))
      .slice(0, this.options.maxProblems);
  }

  private headingOf(field: string): string {
    return this.header.headingOf.get(field as SheetField) ?? field;
  }

  /**
   * Reads one data row: `values[i]` is the content of the header's i-th recognised column. Rows
   * with no value in any recognised column are skipped, not counted. Answers whether it was a passenger.
   */
  addRow(sheetRow: number, values: readonly CellContent[]): boolean {
    // Without it every text date would be read day first, whatever its column says.
    if (!this.dateOrdersRead) throw new Error('PassengerListBuilder: readDateOrders(rows) must come before addRow');
    const cells = this.readCells(values);
    if (cells === 'blank') return false;
    const rowNumber = this.rowCount + 1;
    if (rowNumber > this.options.maxRows) {
      throw sheetError.tooLarge(
        `The list has more than ${this.options.maxRows} passenger rows (the limit); split it into smaller lists`,
      );
    }
    const raw = this.raw;
    if (cells === 'unreadable') this.reportUnreadableCells(raw, rowNumber, sheetRow);
    const parent = this.parentOf(raw.row_number_parent_id, rowNumber, sheetRow);
    this.rowCount = rowNumber;
    if (parent !== null) this.parents.set(rowNumber, { parent, sheetRow });
    const record = this.normalizeRow(rowNumber, parent, sheetRow);
    const problems = this.rowProblems;
    const label = truncated(`${textOf(raw.surname)} ${textOf(raw.name)}`.trim().replace(/\s+/g, ' '), 40);
    this.warnOfNotes(rowNumber, label);
    this.reportFieldProblems(record, rowNumber, sheetRow);
    this.people.push({
      sheetRow,
      born: !hasProblemIn(problems, 'date_born') && record.date_born ? record.date_born : undefined,
      carrying: !hasProblemIn(problems, 'is_carring_infant') ? record.is_carring_infant : undefined,
      label,
    });
    if (this.records && problems.length === 0) this.records.push(record);
    if (this.options.preview && problems.length === 0) this.cleanRecords.push(record);
    return true;
  }

  /**
   * Puts the row's cells into `raw` by field, and tells whether the row is blank, or holds a cell
   * that cannot be read as a value (an error, a formula never calculated, a text longer than any field).
   */
  private readCells(values: readonly CellContent[]): 'blank' | 'readable' | 'unreadable' {
    const raw = this.raw;
    let hasValue = false;
    let hasUnreadable = false;
    for (let i = 0; i < this.columns.length; i += 1) {
      const content = values[i] ?? null;
      if (!isBlank(content)) {
        hasValue = true;
        if (content instanceof CellErrorValue || content instanceof UnreadableCell) hasUnreadable = true;
        else if (typeof content === 'string' && content.length > MAX_FIELD_CHARS) hasUnreadable = true;
      }
      raw[this.columns[i].field] = content;
    }
    if (!hasValue) return 'blank';
    return hasUnreadable ? 'unreadable' : 'readable';
  }

  /**
   * The row's record, its fields read by the passenger rules from `raw`; the field problems and
   * notes are left in `rowProblems` and `rowNotes`, a date that contradicts its column among them.
   */
  private normalizeRow(rowNumber: number, parent: number | null, sheetRow: number): PassengerRecord {
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
    const notes = this.rowNotes;
    problems.length = 0;
    notes.length = 0;
    normalizePassengerInto(this.raw, record as unknown as Record<string, unknown>, this.normalizeOptions, problems, notes);
    if (this.dateConflicts.size) this.replaceDateConflicts(problems, sheetRow);
    return record;
  }

  /** The row's notes (values read with an assumption) as warnings naming the passenger. */
  private warnOfNotes(rowNumber: number, label: string): void {
    for (const note of this.rowNotes) {
      const who = label ? `Passenger row ${rowNumber} (${label})` : `Passenger row ${rowNumber}`;
      this.warnings.push(`${who}, column "${this.headingOf(note.field)}": ${note.message}`);
    }
  }

  /** The row's field problems, each naming its column; in a preview with a suggestion where the rules know one. */
  private reportFieldProblems(record: PassengerRecord, rowNumber: number, sheetRow: number): void {
    const raw = this.raw;
    for (const problem of this.rowProblems) {
      if (isUnreadable(raw[problem.field])) continue; // already reported
      const column = this.headingOf(problem.field);
      const suggestion = this.options.preview ? this.suggestionFor(problem.field, raw[problem.field], record) : undefined;
      this.report({
        row_number: rowNumber,
        sheet_row: sheetRow,
        field: column,
        column,
        value: reportedValue(raw[problem.field]),
        message: `${column}: ${this.numberDateMessage(problem.field, raw[problem.field], sheetRow) ?? problem.message}`,
        ...(this.options.preview ? { passenger_field: problem.field } : {}),
        ...(suggestion !== undefined ? { suggestion } : {}),
      });
    }
  }

  /**
   * A value the user probably meant, where the rules know one: a text date its column could not
   * read is offered in the other order (05/17/1980 in a day-first column: 1980-05-17), a misspelt
   * country name as the code of the nearest name (Deutchland: DE), a telephone number as the one
   * number suggestPhone derives (the countries the row names but that were not read count there).
   */
  private suggestionFor(field: string, content: CellContent | undefined, record: PassengerRecord): string | undefined {
    if (field === 'phone') {
      const fields = record as unknown as Record<string, unknown>;
      const regions = phoneRegionsOf(fields, this.options.normalize.defaultPhoneRegion);
      const other = new Set<CountryCode>();
      for (const source of COUNTRY_FIELDS) {
        const written = this.raw[source];
        const code = typeof written === 'string' && !fields[source] ? suggestCountry(written) : undefined;
        if (code && isPhoneRegion(code) && !regions.some((r) => r.region === code)) other.add(code);
      }
      return suggestPhone(content, regions, [...other]);
    }
    if ((field === 'date_born' || field === 'scadenza') && typeof content === 'string') {
      const order = this.normalizeOptions.dateOrders?.[field] ?? 'DMY';
      const other = normalizeDate(content, { order: order === 'DMY' ? 'MDY' : 'DMY' });
      const read = normalizeDate(content, { order });
      if (other.ok && !(read.ok && read.value === other.value)) return other.value;
    }
    if ((field === 'nazionalita' || field === 'issuingstate' || field === 'luogonascita') && typeof content === 'string') {
      return suggestCountry(content);
    }
    return undefined;
  }

  /** A date that contradicts its column is that problem, whatever reading it as the column does gave. */
  private replaceDateConflicts(problems: FieldProblem[], sheetRow: number): void {
    for (const [field, conflicts] of this.dateConflicts) {
      const message = conflicts.get(sheetRow);
      if (message === undefined) continue;
      const conflict = { field, value: this.raw[field], message };
      const index = problems.findIndex((problem) => problem.field === field);
      if (index < 0) problems.push(conflict);
      else problems[index] = conflict;
    }
  }

  /**
   * Why a number in a date field is no date, naming its cell: the readers give a cell formatted as a
   * date as a date, so a number here is what its cell shows, a number (1980, a year; 29358, a serial
   * date in a General cell), and reading it as a day would be a guess.
   */
  private numberDateMessage(field: string, content: CellContent | undefined, sheetRow: number): string | undefined {
    if (typeof content !== 'number' || (field !== 'date_born' && field !== 'scadenza')) return undefined;
    const column = this.columns.find((mapped) => mapped.field === field)?.column;
    const cell = column === undefined ? 'the cell' : `cell ${columnLetters(column)}${sheetRow}`;
    return `${cell} holds the number ${content}, which is not a date (the cell is not formatted as a date); write the date as YYYY-MM-DD (or DD/MM/YYYY), or format the cell as a date`;
  }

  /**
   * Error cells, formulas never calculated, texts longer than any field: reported as such and not
   * interpreted (a long text becomes an UnreadableCell, so the field rules pass over it at once).
   */
  private reportUnreadableCells(raw: Record<string, CellContent>, rowNumber: number, sheetRow: number): void {
    for (const field of Object.keys(raw)) {
      const content = raw[field];
      const column = this.headingOf(field);
      let reason: string;
      if (content instanceof CellErrorValue) reason = `the cell shows the error ${content.error}`;
      else if (content instanceof UnreadableCell) reason = content.reason;
      else if (typeof content === 'string' && content.length > MAX_FIELD_CHARS) {
        reason = `the text is ${content.length} characters long; no passenger field holds more than ${MAX_FIELD_CHARS}`;
        raw[field] = new UnreadableCell(reason, content);
      } else continue;
      const value = reportedValue(content);
      this.report({ row_number: rowNumber, sheet_row: sheetRow, field: column, column, value, message: `${column}: ${reason}` });
    }
  }

  private parentOf(content: CellContent | undefined, rowNumber: number, sheetRow: number): number | null {
    if (isBlank(content) || isUnreadable(content)) return null;
    const parent = normalizeRowReference(content);
    if (parent.ok) return parent.value;
    const column = this.parentColumn;
    const message = `${column}: ${parent.message}`;
    this.report({ row_number: rowNumber, sheet_row: sheetRow, field: column, column, value: reportedValue(content), message });
    return null;
  }

  private describe(rowNumber: number): string {
    const label = this.people[rowNumber - 1]?.label;
    return label ? `passenger row ${rowNumber} (${label})` : `passenger row ${rowNumber}`;
  }

  /** A hint when the number given is the spreadsheet's row number of some passenger rather than its passenger number. */
  private sheetRowHint(given: number): string {
    const index = this.people.findIndex((person) => person.sheetRow === given);
    if (index < 0 || index + 1 === given) return '';
    return `. Is ${given} the spreadsheet's row number? Sheet row ${given} is passenger ${index + 1}: write the passenger number, counted from 1 below the header`;
  }

  private ageText(age: number): string {
    const when = this.options.ageDayIsDeparture ? 'at departure' : 'today';
    return `${age < 0 ? 0 : age} year${age === 1 ? '' : 's'} old ${when} (${this.options.ageDay})`;
  }

  /**
   * Parent rows must exist, differ from the row, not be children themselves; the passenger must be
   * a minor and the parent an adult on the day of departure; an infant's adult must be marked as
   * carrying an infant (when the list has that column), and carries one infant only. One problem
   * per row, the first that applies. Also warns of adults marked as carrying an infant that no
   * infant on the list names.
   */
  private checkParents(): SheetProblem[] {
    const found: SheetProblem[] = [];
    const count = this.rowCount;
    const column = this.parentColumn;
    const day = this.options.ageDay;
    const checksFlag = this.header.headingOf.has('is_carring_infant');
    const flagColumn = this.headingOf('is_carring_infant');
    const infantOf = new Map<number, number>();
    for (const [rowNumber, { parent, sheetRow }] of this.parents) {
      let reason: string | undefined;
      const grandparent = this.parents.get(parent)?.parent;
      const child = this.people[rowNumber - 1];
      const adult = this.people[parent - 1];
      const childAge = child?.born ? ageOn(child.born, day) : undefined;
      const adultAge = adult?.born ? ageOn(adult.born, day) : undefined;
      if (parent === rowNumber) reason = 'a passenger cannot be their own accompanying adult';
      else if (parent > count) {
        reason = `there is no passenger row ${parent}: the list has ${count} passengers, numbered from 1 below the header (blank rows not counted)${this.sheetRowHint(parent)}`;
      } else if (grandparent !== undefined) {
        reason = `passenger row ${parent} is itself travelling with an adult (row ${grandparent}); name the adult's row`;
      } else if (adultAge !== undefined && adultAge < ADULT_AGE) {
        reason = `${this.describe(parent)} is ${this.ageText(adultAge)} and cannot be the accompanying adult${this.sheetRowHint(parent)}`;
      } else if (childAge !== undefined && childAge >= ADULT_AGE) {
        reason = `this passenger is ${this.ageText(childAge)}: only an infant or a minor travels with an accompanying adult${this.sheetRowHint(parent)}`;
      } else if (checksFlag && childAge !== undefined && childAge < INFANT_AGE && adult?.carrying === false) {
        reason = `this passenger is an infant (${this.ageText(childAge)}) but ${this.describe(parent)} is not marked in "${flagColumn}" as carrying an infant${this.sheetRowHint(parent)}`;
      } else if (childAge !== undefined && childAge < INFANT_AGE && infantOf.has(parent)) {
        reason = `${this.describe(parent)} already carries the infant in passenger row ${infantOf.get(parent)}; an adult carries one infant`;
      }
      if (!reason && childAge !== undefined && childAge < INFANT_AGE) infantOf.set(parent, rowNumber);
      if (reason) {
        found.push({ row_number: rowNumber, sheet_row: sheetRow, field: column, column, value: parent, message: `${column}: ${reason}` });
      }
    }
    if (checksFlag && this.header.headingOf.has('row_number_parent_id')) {
      const named = new Set([...this.parents.values()].map((p) => p.parent));
      this.people.forEach((person, index) => {
        if (person.carrying && !named.has(index + 1)) {
          this.warnings.push(
            `${this.describe(index + 1)} is marked in "${flagColumn}" as carrying an infant, but no infant on the list names row ${index + 1} in "${column}"`,
          );
        }
      });
    }
    return found;
  }

  /**
   * The preview: the records of the rows without problems, and the problems of the others (a list
   * with no passenger rows is still refused). Parent-row problems drop their row too.
   */
  finishPreview(sheetName: string): ListPreview {
    if (!this.options.preview) throw new Error('PassengerListBuilder: finishPreview needs the preview option');
    if (this.rowCount === 0) this.finish(sheetName);
    for (const problem of this.checkParents()) this.report({ ...problem, passenger_field: 'row_number_parent_id' });
    this.trimProblems();
    const records = this.cleanRecords.filter((record) => !this.rowsWithProblems.has(record.row_number));
    return { records, problems: this.problems, problemCount: this.problemCount, warnings: this.cappedWarnings() };
  }

  private cappedWarnings(): string[] {
    const { maxProblems } = this.options;
    return this.warnings.length > maxProblems
      ? [...this.warnings.slice(0, maxProblems), `… and ${this.warnings.length - maxProblems} more warnings`]
      : this.warnings;
  }

  /** The records, or a 422 with the first problems (by row) and the count of all. */
  finish(sheetName: string): { records: PassengerRecord[]; warnings: string[] } {
    if (this.rowCount === 0) {
      throw sheetError.unprocessable(
        `The passenger list is empty: sheet "${truncated(sheetName)}" has a header row (row ${this.header.sheetRow}) but no passenger rows below it`,
      );
    }
    for (const problem of this.checkParents()) this.report(problem);
    if (this.problemCount > 0 || !this.records) {
      this.trimProblems();
      const listed = this.problems;
      const more = this.problemCount > listed.length ? `; the first ${listed.length} are listed` : '';
      throw sheetError.unprocessable(
        `The passenger list has ${this.problemCount} problem${this.problemCount === 1 ? '' : 's'} in ${this.rowsWithProblems.size} row${this.rowsWithProblems.size === 1 ? '' : 's'}${more}`,
        listed,
      );
    }
    return { records: this.records, warnings: this.cappedWarnings() };
  }
}

/** Whether the rules found a problem in `field` (then its value is not trusted for the parent checks). */
function hasProblemIn(problems: readonly FieldProblem[], field: string): boolean {
  for (const problem of problems) if (problem.field === field) return true;
  return false;
}

function isUnreadable(content: CellContent | undefined): boolean {
  return content instanceof CellErrorValue || content instanceof UnreadableCell;
}

function textOf(content: CellContent | undefined): string {
  if (typeof content === 'string') return content.normalize('NFC');
  return typeof content === 'number' ? String(content) : '';
}
