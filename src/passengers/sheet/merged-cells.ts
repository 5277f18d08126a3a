import type { CellContent } from './cell-value';

/** A merged block of cells, 1-based and inclusive, as `<mergeCell ref="B3:B5"/>` declares it. */
export interface MergedRange {
  top: number;
  left: number;
  bottom: number;
  right: number;
}

export function columnLetters(column: number): string {
  let letters = '';
  for (let n = column; n > 0; n = Math.floor((n - 1) / 26)) letters = String.fromCharCode(65 + ((n - 1) % 26)) + letters;
  return letters;
}

/** A data row as kept for the list: its sheet row and the content of each recognised column. */
export interface KeptRow {
  sheetRow: number;
  values: CellContent[];
  /** The row is hidden (by hand or by a filter). */
  hidden?: boolean;
  /** The file says a filter hid it (an .ods); an .xlsx row's filter is judged from its autofilters. */
  filtered?: boolean;
  /** A passenger cell of the row holds a SUBTOTAL or AGGREGATE formula: a totals row. */
  subtotal?: boolean;
}

/**
 * Gives every cell of a merged block the value of its top-left cell, as the spreadsheet shows it,
 * over the kept data rows (sorted by sheet row). Only the recognised columns are kept, so a block
 * whose top-left cell lies in another column fills nothing; blocks that start in or above the
 * header are not data. Answers the number of cells visited, for the work budget.
 */
export function fillMergedBlocks(
  rows: readonly KeptRow[],
  ranges: readonly MergedRange[],
  columns: readonly number[],
  headerRow: number,
  isBlank: (value: unknown) => boolean,
): number {
  let work = 0;
  const indexOfRow = (sheetRow: number) => {
    let low = 0;
    let high = rows.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (rows[middle].sheetRow < sheetRow) low = middle + 1;
      else high = middle;
    }
    return low;
  };
  for (const range of ranges) {
    if (range.top <= headerRow) continue;
    const anchorColumn = columns.indexOf(range.left);
    const first = indexOfRow(range.top);
    if (anchorColumn < 0 || rows[first]?.sheetRow !== range.top) continue;
    const anchor = rows[first].values[anchorColumn];
    if (isBlank(anchor)) continue;
    for (let at = first; at < rows.length && rows[at].sheetRow <= range.bottom; at += 1) {
      columns.forEach((column, index) => {
        work += 1;
        if (column < range.left || column > range.right) return;
        if (isBlank(rows[at].values[index])) rows[at].values[index] = anchor;
      });
    }
  }
  return work;
}
