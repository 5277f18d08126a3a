import { builtInFormatClass, formatCodeClass, PLAIN_FORMAT, type NumberFormatClass } from './number-formats';
import type { ReadBudget } from './read-budget';
import { sheetError } from './sheet-error';
import { readXmlPart, type XmlPartHandler } from './xml-part-reader';
import type { ZipEntry } from './zip-directory';

/**
 * More cell formats (`cellXfs/xf`) than any workbook holds: Excel keeps at most 65,490. Each costs
 * two bytes once read, so even this many stay small; a styles part with more is refused.
 */
export const MAX_CELL_FORMATS = 262_144;
/** More number formats (`numFmts/numFmt`) than any workbook holds: Excel keeps about 250 of its own. */
export const MAX_NUMBER_FORMATS = 65_536;

/** What the number format of each cell format shows (see NumberFormatClass), by the cell's `s` index. */
export interface CellFormats {
  /** The class of cell format `index`; PLAIN_FORMAT for one the workbook does not define. */
  classOf(index: number): NumberFormatClass;
}

/** A workbook without a styles part: every number is shown as a number. */
export const NO_CELL_FORMATS: CellFormats = { classOf: () => PLAIN_FORMAT };

function formatId(value: string | undefined): number {
  const id = value === undefined ? 0 : Number(value);
  return Number.isSafeInteger(id) && id >= 0 ? id : 0;
}

function tooMany(entry: ZipEntry, count: number, what: string): never {
  throw sheetError.unprocessable(
    `The workbook part ${entry.name} defines more than ${count} ${what}; no spreadsheet program writes that many, so the file was not read`,
  );
}

/**
 * Reads the number formats of the workbook's cell formats from its styles part: the custom codes
 * (`numFmts/numFmt`, by id) and the cell formats (`cellXfs/xf`, by position: a cell's `s`), each
 * classified once (built-in ids by their number, custom codes by their tokens). The cell styles
 * (`cellStyleXfs`) and the differential formats of conditional formatting (`dxfs`) are no cell's
 * format and are passed over; reading stops after `cellXfs`. Bounded like every part (the read
 * budget counts each element) and by MAX_CELL_FORMATS and MAX_NUMBER_FORMATS, kept as numbers.
 */
export async function readCellFormats(bytes: Buffer, entry: ZipEntry, budget: ReadBudget): Promise<CellFormats> {
  const codes = new Map<number, NumberFormatClass>();
  let formatIds = new Uint32Array(64);
  let count = 0;
  let inNumberFormats = false;
  let inCellFormats = false;
  let done = false;
  const handler: XmlPartHandler = {
    get done() {
      return done;
    },
    open(name, attributes) {
      if (name === 'numFmts') inNumberFormats = true;
      else if (name === 'cellXfs') inCellFormats = true;
      else if (name === 'numFmt' && inNumberFormats) {
        if (codes.size >= MAX_NUMBER_FORMATS) tooMany(entry, MAX_NUMBER_FORMATS, 'number formats');
        const code = attributes.formatCode;
        if (attributes.numFmtId !== undefined && code !== undefined) codes.set(formatId(attributes.numFmtId), formatCodeClass(code));
      } else if (name === 'xf' && inCellFormats) {
        if (count >= MAX_CELL_FORMATS) tooMany(entry, MAX_CELL_FORMATS, 'cell formats');
        if (count === formatIds.length) {
          const grown = new Uint32Array(Math.min(formatIds.length * 2, MAX_CELL_FORMATS));
          grown.set(formatIds);
          formatIds = grown;
        }
        const id = formatId(attributes.numFmtId);
        formatIds[count] = id > 0xffff_ffff ? 0 : id;
        count += 1;
      }
    },
    close(name) {
      if (name === 'numFmts') inNumberFormats = false;
      else if (name === 'cellXfs') {
        inCellFormats = false;
        done = true;
      }
    },
    text() {},
  };
  await readXmlPart(bytes, entry, handler, budget);
  const classes = new Uint16Array(count);
  for (let index = 0; index < count; index += 1) {
    const id = formatIds[index];
    classes[index] = codes.get(id) ?? builtInFormatClass(id);
  }
  return { classOf: (index) => (index < classes.length ? classes[index] : PLAIN_FORMAT) };
}
