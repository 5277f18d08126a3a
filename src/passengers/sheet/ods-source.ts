import { CellErrorValue, truncated, UnreadableCell, type CellContent } from './cell-value';
import type { ReadBudget } from './read-budget';
import { sheetError } from './sheet-error';
import { TextCollector } from './spreadsheet-text';
import type { SheetChoice, SpreadsheetSource } from './spreadsheet-source';
import { MAX_SHEET_COLUMNS, MAX_SHEET_ROWS, SUBTOTAL_FORMULA, type RowHiding, type SheetCell, type SheetRowSink } from './worksheet-reader';
import { readXmlPart, type XmlPartHandler } from './xml-part-reader';
import type { ZipEntry } from './zip-directory';
import { checkReadable, damagedFile } from './zip-part';

export const ODS_MIMETYPE = 'application/vnd.oasis.opendocument.spreadsheet';
const ODS_CONTAINER = '.ods spreadsheet';

const ISO_DAY = /^\s*(\d{4})-(\d{2})-(\d{2})(?:$|T)/;
/** Digits with leading zeros, as a number cell formatted `000000000` shows a document or phone number. */
const ZERO_PADDED = /^0\d+$/;

/** A number of repetitions as written (`table:number-columns-repeated`), 1 when absent or not a positive whole number. */
function repetitions(value: string | undefined): number {
  if (value === undefined) return 1;
  const count = Number(value);
  return Number.isSafeInteger(count) && count >= 1 ? count : 1;
}

/**
 * The value of a cell from its attributes (OpenDocument 1.2+, part 1, 19.385-19.389): numbers from
 * `office:value` (a number whose paragraph shows it with leading zeros, `012345678` for 12345678,
 * as that text), dates from `office:date-value` (the calendar day written, whatever time
 * follows), booleans from `office:boolean-value`, texts from the paragraphs; an error cell
 * (LibreOffice's `calcext:value-type="error"`) as an error. A number is never a date here: a
 * cell formatted as a date is a date cell.
 */
function odsCellContent(attributes: Record<string, string>, text: string, hasText: boolean): CellContent {
  if (attributes['calcext:value-type'] === 'error') return new CellErrorValue(text.trim() || '#VALUE!');
  switch (attributes['office:value-type']) {
    case 'float':
    case 'percentage':
    case 'currency': {
      const number = Number(attributes['office:value']);
      if (!Number.isFinite(number)) return text;
      return ZERO_PADDED.test(text) && Number(text) === number ? text : number;
    }
    case 'date': {
      const match = ISO_DAY.exec(attributes['office:date-value'] ?? '');
      if (!match) return hasText ? text : null;
      return new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])));
    }
    case 'boolean':
      return /^\s*(true|1)\s*$/i.test(attributes['office:boolean-value'] ?? '');
    case 'string':
      return attributes['office:string-value'] ?? text;
    case 'time':
      return hasText ? text : (attributes['office:time-value'] ?? null);
    default:
      if (hasText) return text;
      if (attributes['table:formula']) {
        const shown = attributes['table:formula'].replace(/^of:/, '');
        return new UnreadableCell(
          `the cell holds the formula ${truncated(shown)} but no calculated value (the program that wrote the file did not compute it); open the file in LibreOffice, save it and upload it again`,
          shown,
        );
      }
      return null;
  }
}

/**
 * Reads content.xml, the part that holds every sheet of an OpenDocument spreadsheet, in one pass:
 * the automatic styles first (a sheet whose table style says `table:display="false"` is hidden),
 * then each `table:table`, offered to `choose` as it opens and streamed to the sink chosen.
 * Repeated cells and rows (`number-columns-repeated`, `number-rows-repeated`: LibreOffice writes
 * the empty rest of a sheet as one row repeated a million times) cost one count when empty and are
 * expanded, each copy counted, only when they hold a value, so the budget bounds the expansion.
 * Text is the cell's paragraphs joined by line breaks, with `text:s` spaces, tabs and line breaks,
 * spans and links; annotations (comments) and drawings are left out. Merged blocks
 * (`number-columns-spanned`, `number-rows-spanned`) go to the sink as they start; hidden rows
 * (`table:visibility` `collapse` or `filter`) are flagged, and hidden columns told before the first row.
 */
class ContentReader implements XmlPartHandler {
  private stopped = false;
  private readonly hiddenTableStyles = new Set<string>();
  private styleName: string | undefined;
  private inBody = false;
  /** The sink of the current table; undefined outside a table or for a table passed over. */
  private sink: SheetRowSink | undefined;
  private inTable = false;
  private rowNumber = 0;
  private inRow = false;
  private rowRepeat = 1;
  private rowHiding: RowHiding | undefined;
  private readonly cells: SheetCell[] = [];
  private cellsInRow = 0;
  private column = 1;
  // The cell being read.
  private inCell = false;
  private covered = false;
  private cellDepth = 0;
  private cellAttributes: Record<string, string> = {};
  private cellRepeat = 1;
  private paragraphs = 0;
  private inParagraph = false;
  private readonly collected = new TextCollector(() => `Sheet row ${this.rowNumber + 1}, column ${this.column}`);
  private tables = 0;
  /** Columns of the current table so far, and which of them are hidden, until its first row. */
  private columnsDeclared = 0;
  private hiddenColumns: number[] | undefined;

  constructor(
    private readonly choose: (sheet: { name: string; skipped?: string }) => SheetChoice,
    private readonly budget: ReadBudget,
  ) {}

  get done(): boolean {
    return this.stopped;
  }

  open(name: string, attributes: Record<string, string>): void {
    if (this.stopped) return;
    if (this.inCell) {
      this.openInCell(name, attributes);
      return;
    }
    if (!this.inBody) {
      if (name === 'style' && attributes['style:family'] === 'table') this.styleName = attributes['style:name'];
      else if (name === 'table-properties' && this.styleName !== undefined && attributes['table:display'] === 'false') {
        this.hiddenTableStyles.add(this.styleName);
      } else if (name === 'body') this.inBody = true;
      return;
    }
    if (name === 'table' && !this.inTable) this.openTable(attributes);
    else if (!this.sink) return;
    else if (name === 'table-column' && this.hiddenColumns) this.declareColumns(attributes);
    else if (name === 'table-row' && !this.inRow) {
      if (this.hiddenColumns) {
        for (const column of this.hiddenColumns) this.sink.hiddenColumns?.(column, column);
        this.hiddenColumns = undefined;
      }
      this.budget.countCell();
      this.inRow = true;
      this.rowRepeat = repetitions(attributes['table:number-rows-repeated']);
      const visibility = attributes['table:visibility'];
      this.rowHiding = visibility === 'collapse' ? 'hidden' : visibility === 'filter' ? 'filtered' : undefined;
      this.cells.length = 0;
      this.cellsInRow = 0;
      this.column = 1;
    } else if ((name === 'table-cell' || name === 'covered-table-cell') && this.inRow) {
      this.budget.countCell();
      this.inCell = true;
      this.covered = name === 'covered-table-cell';
      this.cellDepth = 0;
      this.cellAttributes = attributes;
      this.cellRepeat = repetitions(attributes['table:number-columns-repeated']);
      this.paragraphs = 0;
      this.collected.reset();
      const spannedColumns = repetitions(attributes['table:number-columns-spanned']);
      const spannedRows = repetitions(attributes['table:number-rows-spanned']);
      if (spannedColumns > 1 || spannedRows > 1) {
        const top = this.rowNumber + 1;
        this.sink.merge({ top, left: this.column, bottom: top + spannedRows - 1, right: this.column + spannedColumns - 1 });
      }
    }
  }

  /** A `table:table-column` (possibly repeated): hidden when its visibility is `collapse` or `filter`. */
  private declareColumns(attributes: Record<string, string>): void {
    const first = this.columnsDeclared + 1;
    const count = Math.min(repetitions(attributes['table:number-columns-repeated']), MAX_SHEET_COLUMNS + 1 - first);
    this.columnsDeclared += Math.max(count, 0);
    const visibility = attributes['table:visibility'];
    if (visibility !== 'collapse' && visibility !== 'filter') return;
    for (let column = first; column < first + count; column += 1) this.hiddenColumns!.push(column);
  }

  private openTable(attributes: Record<string, string>): void {
    this.inTable = true;
    this.rowNumber = 0;
    this.columnsDeclared = 0;
    this.hiddenColumns = [];
    const name = attributes['table:name'] ?? `Sheet${this.tables + 1}`;
    this.tables += 1;
    const style = attributes['table:style-name'];
    const skipped = style !== undefined && this.hiddenTableStyles.has(style) ? 'it is hidden' : undefined;
    const choice = this.choose({ name, skipped });
    if (choice === 'stop') this.stopped = true;
    else if (choice !== 'skip' && !skipped) this.sink = choice;
  }

  private openInCell(name: string, attributes: Record<string, string>): void {
    this.cellDepth += 1;
    if (this.cellDepth === 1) {
      if (name === 'p') {
        if (this.paragraphs > 0) this.collected.add('\n');
        this.paragraphs += 1;
        this.inParagraph = true;
      }
      return;
    }
    if (!this.inParagraph) return;
    if (name === 's') this.collected.add(' '.repeat(Math.min(repetitions(attributes['text:c']), MAX_SHEET_COLUMNS)));
    else if (name === 'tab') this.collected.add('\t');
    else if (name === 'line-break') this.collected.add('\n');
  }

  close(name: string): void {
    if (this.stopped) return;
    if (this.inCell) {
      if (this.cellDepth === 0) this.closeCell();
      else {
        if (this.cellDepth === 1 && name === 'p') this.inParagraph = false;
        this.cellDepth -= 1;
      }
      return;
    }
    if (name === 'table-row' && this.inRow) this.closeRow();
    else if (name === 'table' && this.inTable) {
      this.inTable = false;
      this.sink = undefined;
    }
  }

  private closeCell(): void {
    this.inCell = false;
    // A covered cell lies under a merged block: the program shows the block's value, not what it may still hold.
    const content = this.covered ? null : odsCellContent(this.cellAttributes, this.collected.text, this.paragraphs > 0);
    if (content === null) {
      this.column += this.cellRepeat;
      return;
    }
    // A totals row's formula (LibreOffice and Gnumeric write `of:=SUBTOTAL(…)`): the row is no passenger.
    const formula = this.cellAttributes['table:formula'];
    const subtotal = formula !== undefined && SUBTOTAL_FORMULA.test(formula.replace(/^[a-z]+:=?/i, ''));
    for (let copy = 0; copy < this.cellRepeat; copy += 1) {
      if (copy > 0) this.budget.countCell();
      this.cellsInRow += 1;
      if (this.cellsInRow > MAX_SHEET_COLUMNS || this.column > MAX_SHEET_COLUMNS) {
        throw sheetError.unprocessable(`Sheet row ${this.rowNumber + 1} has more than ${MAX_SHEET_COLUMNS} cells, more than a sheet has columns`);
      }
      this.cells.push(subtotal ? { column: this.column, content, subtotal: true } : { column: this.column, content });
      this.column += 1;
    }
  }

  private closeRow(): void {
    this.inRow = false;
    const sink = this.sink;
    if (!sink || this.cells.length === 0) {
      this.rowNumber += this.rowRepeat;
      return;
    }
    for (let copy = 0; copy < this.rowRepeat && !sink.done; copy += 1) {
      if (copy > 0) this.budget.countCell(1 + this.cells.length);
      this.rowNumber += 1;
      if (this.rowNumber > MAX_SHEET_ROWS) throw damagedFile(`a sheet has a value below row ${MAX_SHEET_ROWS}`, ODS_CONTAINER);
      sink.row(this.rowNumber, this.cells, { hidden: this.rowHiding !== undefined, filtered: this.rowHiding === 'filtered' });
    }
    // The sink needs no more of this table: the rest of it is passed over.
    if (sink.done) this.sink = undefined;
  }

  text(piece: string): void {
    if (this.inParagraph && !this.stopped) this.collected.add(piece);
  }
}

/** The `manifest:encryption-data` of a password-protected document. */
async function isEncrypted(bytes: Buffer, manifest: ZipEntry, budget: ReadBudget): Promise<boolean> {
  let encrypted = false;
  await readXmlPart(
    bytes,
    manifest,
    {
      get done() {
        return encrypted;
      },
      open(name) {
        if (name === 'encryption-data') encrypted = true;
      },
      close() {},
      text() {},
    },
    budget,
  );
  return encrypted;
}

/**
 * An OpenDocument spreadsheet (.ods) as a spreadsheet source: its zip directory already read and
 * its size judged; content.xml streamed once through the same zip and XML guards as an .xlsx part.
 */
export async function openOdsSource(bytes: Buffer, entries: readonly ZipEntry[], budget: ReadBudget): Promise<SpreadsheetSource> {
  for (const entry of entries) entry.container = ODS_CONTAINER;
  const manifest = entries.find((entry) => entry.name === 'META-INF/manifest.xml');
  if (manifest) {
    checkReadable(manifest);
    if (await isEncrypted(bytes, manifest, budget)) throw sheetError.unsupported('The spreadsheet is encrypted (password protected)');
  }
  const content = entries.find((entry) => entry.name === 'content.xml');
  if (!content) throw damagedFile('content.xml, the part that holds the sheets, is missing', ODS_CONTAINER);
  checkReadable(content);
  return {
    warnings: [],
    async readSheets(choose) {
      await readXmlPart(bytes, content, new ContentReader(choose, budget), budget);
    },
  };
}
