/** A merged block of cells, 1-based and inclusive, as `<mergeCell ref="B3:B5"/>` declares it. */
export interface MergedRange {
  top: number;
  left: number;
  bottom: number;
  right: number;
}

const START = Buffer.from('<mergeCells');
const END = '</mergeCells>';
/** Merges beyond this much XML are ignored: a real list has a handful. */
const MAX_MERGE_XML = 1 << 20;

export function columnNumber(letters: string): number {
  let n = 0;
  for (let i = 0; i < letters.length; i += 1) n = n * 26 + (letters.charCodeAt(i) - 64);
  return n;
}

export function columnLetters(column: number): string {
  let letters = '';
  for (let n = column; n > 0; n = Math.floor((n - 1) / 26)) letters = String.fromCharCode(65 + ((n - 1) % 26)) + letters;
  return letters;
}

/** The last `length` bytes of `before` followed by `chunk`. */
function tail(before: Buffer, chunk: Buffer, length: number): Buffer {
  return chunk.length >= length ? chunk.subarray(chunk.length - length) : Buffer.concat([before, chunk]).subarray(-length);
}

/**
 * Finds the merged ranges of a worksheet while its XML streams past. exceljs's streaming reader
 * skips `<mergeCells>` (it comes after the rows), so they are picked out of the bytes here.
 */
export class MergedRangeScanner {
  private carry: Buffer = Buffer.alloc(0);
  private xml: string | undefined;

  push(chunk: Buffer): void {
    if (this.xml === undefined) {
      // The tag may straddle two chunks: look across the seam with a few bytes, not a whole copy.
      const seam = Buffer.concat([this.carry, chunk.subarray(0, START.length - 1)]);
      const across = seam.indexOf(START);
      if (across >= 0) {
        this.xml = seam.toString('utf8', across) + chunk.toString('utf8', START.length - 1);
        return;
      }
      const at = chunk.indexOf(START);
      if (at >= 0) this.xml = chunk.toString('utf8', at);
      else this.carry = Buffer.from(tail(this.carry, chunk, START.length - 1));
    } else if (this.xml.length < MAX_MERGE_XML && !this.xml.includes(END)) {
      this.xml += chunk.toString('utf8');
    }
  }

  /** The ranges seen so far that cover more than one cell. */
  ranges(): MergedRange[] {
    if (this.xml === undefined) return [];
    const end = this.xml.indexOf(END);
    const ranges: MergedRange[] = [];
    const pattern = /<mergeCell\b[^>]*?\bref="([A-Z]+)(\d+):([A-Z]+)(\d+)"/g;
    for (const match of (end >= 0 ? this.xml.slice(0, end) : this.xml).matchAll(pattern)) {
      const range = {
        left: columnNumber(match[1]),
        top: Number(match[2]),
        right: columnNumber(match[3]),
        bottom: Number(match[4]),
      };
      if (range.bottom > range.top || range.right > range.left) ranges.push(range);
    }
    return ranges;
  }
}

/**
 * Gives every cell of a merged block the value of its top-left cell, as the spreadsheet shows it.
 * Rows must be visited in increasing order; `visitRow` records the top-left values of blocks that
 * start on that row.
 */
export class MergedCellFiller {
  private readonly pending: MergedRange[];
  private active: MergedRange[] = [];
  private readonly anchors = new Map<MergedRange, unknown>();

  constructor(ranges: readonly MergedRange[]) {
    this.pending = [...ranges].sort((a, b) => b.top - a.top);
  }

  get isEmpty(): boolean {
    return this.pending.length === 0 && this.active.length === 0;
  }

  visitRow(row: number, readCell: (column: number) => unknown): void {
    if (this.active.length) {
      this.active = this.active.filter((range) => range.bottom >= row || !this.anchors.delete(range));
    }
    while (this.pending.length && this.pending[this.pending.length - 1].top <= row) {
      const range = this.pending.pop() as MergedRange;
      if (range.bottom < row) continue;
      this.active.push(range);
      this.anchors.set(range, range.top === row ? readCell(range.left) : null);
    }
  }

  /** The value the cell shows through a merge, or undefined when it is not inside one. */
  valueAt(row: number, column: number): unknown {
    for (const range of this.active) {
      if (column >= range.left && column <= range.right && (row > range.top || column > range.left)) {
        return this.anchors.get(range);
      }
    }
    return undefined;
  }
}
