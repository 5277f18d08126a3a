import type { SheetRowSink } from './worksheet-reader';
import type { SheetTable } from './xlsx-package';

/** A sheet as the file offers it, in tab order, before any of its rows is read. */
export interface OfferedSheet {
  name: string;
  /** Why the sheet is not a candidate (hidden, a chart sheet, its part missing); its rows are not read. */
  skipped?: string;
  /** The sheet's Excel tables (their autofilters and totals rows), read when the list is found on it; .xlsx only. */
  tables?: () => Promise<SheetTable[]>;
}

/**
 * What the caller does with an offered sheet: stream its rows into a sink, pass over it, or stop
 * reading the file (the list has been found).
 */
export type SheetChoice = SheetRowSink | 'skip' | 'stop';

/**
 * A spreadsheet file of any accepted format (.xlsx, .ods, CSV) as the list reader sees it: sheets
 * offered one after the other, each one's rows streamed into the sink chosen for it. The formats
 * differ in how they store sheets (one part each in an .xlsx, all in one part of an .ods, a single
 * sheet in a CSV), so the file drives the walk and the caller chooses as each sheet comes.
 */
export interface SpreadsheetSource {
  /** What the reader had to assume about the file (a guessed text encoding), for the caller's warnings. */
  warnings: string[];
  readSheets(choose: (sheet: OfferedSheet) => SheetChoice): Promise<void>;
}
