import { performance } from 'node:perf_hooks';
import { sheetError } from './sheet-error';

/**
 * What one upload may cost, shared by every part read for it. The counts stand for work done, so a
 * hostile file is stopped by the cap it reaches first whatever shape it has: cells (and rows) for
 * what a sheet holds, XML elements for everything else (styles of runs, extensions, junk), wall time
 * for anything the counts miss. The abort signal is looked at on the same checkpoints.
 */
export interface ReadBudgetLimits {
  /** Cells read from the worksheets, each row element counting as one more. */
  maxCells: number;
  /** Longest the whole read may take, in milliseconds. */
  maxParseMs: number;
  signal?: AbortSignal;
}

/** XML elements allowed per cell of the cell cap: a cell with a formula and rich text runs stays far below. */
export const ELEMENTS_PER_CELL = 10;
/** Elements read between two looks at the clock and the abort signal. */
const CHECK_EVERY = 4096;

export class ReadBudget {
  private cells = 0;
  private elements = 0;
  private readonly maxElements: number;
  private readonly deadline: number;

  constructor(private readonly limits: ReadBudgetLimits) {
    this.maxElements = limits.maxCells * ELEMENTS_PER_CELL;
    this.deadline = performance.now() + limits.maxParseMs;
  }

  /** Throws the abort reason, or a 413 once the wall-time cap has passed. */
  checkpoint(): void {
    this.limits.signal?.throwIfAborted();
    if (performance.now() > this.deadline) {
      throw sheetError.tooLarge(
        `Reading the workbook took longer than ${this.limits.maxParseMs} ms (the limit UPLOAD_MAX_PARSE_MS); it holds far more than a passenger list`,
      );
    }
  }

  countCell(units = 1): void {
    this.cells += units;
    if (this.cells > this.limits.maxCells) {
      throw sheetError.tooLarge(
        `The workbook has more than ${this.limits.maxCells} cells and rows in the sheets read (the limit UPLOAD_MAX_CELLS); remove what is not the passenger list or split it`,
      );
    }
  }

  countElement(): void {
    this.elements += 1;
    if ((this.elements & (CHECK_EVERY - 1)) === 0) {
      if (this.elements > this.maxElements) {
        throw sheetError.tooLarge(
          `The workbook holds more than ${this.maxElements} XML elements in the parts read (${ELEMENTS_PER_CELL} per cell of the limit UPLOAD_MAX_CELLS); it holds far more than a passenger list`,
        );
      }
      this.checkpoint();
    }
  }
}
