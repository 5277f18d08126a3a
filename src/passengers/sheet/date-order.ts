import { normalizeDate, textDateOrders, type DateOrder } from '../passenger.normalize';

/** A cell of a date column: its sheet row and content. */
export interface DateCell {
  sheetRow: number;
  value: unknown;
}

export interface DateColumnReading {
  /** The order the column's text dates are read in. */
  order: DateOrder;
  /** Said to the user when the order was not proven by the column, or differs from the one asked for. */
  warning?: string;
  /** Rows whose date contradicts the column's other dates, each with its message (no heading). */
  conflicts: Map<number, string>;
  /** The date that proved the column's order, when its dates proved one without contradiction. */
  proof?: DateCell;
  /** Said when date cells beside the proving text dates may be texts a spreadsheet program read the other way round. */
  cellWarning?: string;
}

/** The order another date column of the same file proved, for a column whose dates prove none. */
export interface FileDateOrder {
  order: DateOrder;
  heading: string;
  proof: DateCell;
}

export interface DateColumnOptions {
  /** The order another column of the file proved: a column whose dates all read both ways follows it. */
  fileOrder?: FileDateOrder;
}

const ORDER_NAMES: Record<DateOrder, string> = { DMY: 'day first', MDY: 'month first' };
const ORDER_WORDS: Record<DateOrder, string> = { DMY: 'day first (DD/MM/YYYY)', MDY: 'month first (MM/DD/YYYY)' };

function quoted(value: unknown): string {
  return `"${String(value).trim()}"`;
}

function iso(value: unknown, order: DateOrder): string {
  const date = normalizeDate(value, { order });
  return date.ok ? date.value : 'YYYY-MM-DD';
}

/**
 * Decides the order of a column's text dates such as `05/06/1980` from the column itself, once,
 * before its rows are read. A date that can be read only one way (`17/05/1980`, `05/17/1980`)
 * proves the order of the column. When every provable date agrees, the column is read in that
 * order. When they disagree, the larger side sets the order and each date of the smaller side is
 * a problem; on a tie every provable date of both sides is (no side can be preferred). A column
 * whose dates all read both ways is read in `requested` order, with a warning naming it. Date
 * cells, ISO dates and dates such as 05/05/1980 take no part.
 */
export function readDateColumn(heading: string, cells: readonly DateCell[], requested: DateOrder, options: DateColumnOptions = {}): DateColumnReading {
  const reading = readTextDates(heading, cells, requested, options.fileOrder);
  if (reading.proof) {
    const cellWarning = convertedCellsWarning(heading, cells, reading.order, reading.proof);
    if (cellWarning) reading.cellWarning = cellWarning;
  }
  return reading;
}

/**
 * A text date that reads both ways, typed in a list written one way and opened by a spreadsheet
 * program set to the other, becomes a date cell read the other way round (a UK 03/04/1985, 3 April,
 * opened in a US Excel is a cell of 4 March), while the dates that can only be read one way stay
 * text: the very mix of a column whose text dates prove an order and whose date cells all have a
 * day up to 12. Such cells are read as they are, with this warning naming them.
 */
function convertedCellsWarning(heading: string, cells: readonly DateCell[], order: DateOrder, proof: DateCell): string | undefined {
  let first: { cell: DateCell; read: string; swapped: string } | undefined;
  let count = 0;
  for (const cell of cells) {
    if (!(cell.value instanceof Date)) continue;
    const date = normalizeDate(cell.value);
    if (!date.ok) continue;
    const [year, month, day] = date.value.split('-');
    if (Number(day) > 12 || day === month) continue;
    count += 1;
    first ??= { cell, read: date.value, swapped: `${year}-${day}-${month}` };
  }
  if (!first) return undefined;
  const other: DateOrder = order === 'DMY' ? 'MDY' : 'DMY';
  const cellsWord = count === 1 ? 'date cell' : 'date cells';
  return `Column "${heading}" holds ${count} ${cellsWord} beside text dates that can only be read ${ORDER_WORDS[order]} (such as ${quoted(proof.value)}, sheet row ${proof.sheetRow}): a spreadsheet program set to read dates ${ORDER_NAMES[other]} turns a text such as ${order === 'DMY' ? '03/04/1985 (3 April) into a cell of 4 March' : '04/03/1985 (April 3) into a cell of 4 March'}, and leaves the texts it cannot read as text. The ${cellsWord} ${count === 1 ? 'was' : 'were'} read as ${count === 1 ? 'it is' : 'they are'}: sheet row ${first.cell.sheetRow} holds ${first.read}, which the other way round is ${first.swapped}. Check ${count === 1 ? 'it' : 'them'}, or write the dates as YYYY-MM-DD`;
}

function readTextDates(heading: string, cells: readonly DateCell[], requested: DateOrder, fileOrder: FileDateOrder | undefined): DateColumnReading {
  const proven: Record<DateOrder, DateCell[]> = { DMY: [], MDY: [] };
  let ambiguous: DateCell | undefined;
  let ambiguousCount = 0;
  for (const cell of cells) {
    const orders = textDateOrders(cell.value);
    if (orders === 'DMY' || orders === 'MDY') proven[orders].push(cell);
    else if (orders === 'both') {
      ambiguous ??= cell;
      ambiguousCount += 1;
    }
  }
  const conflicts = new Map<number, string>();
  const dmy = proven.DMY.length;
  const mdy = proven.MDY.length;
  if (dmy && mdy) {
    const order: DateOrder = dmy > mdy ? 'DMY' : mdy > dmy ? 'MDY' : requested;
    const sides: DateOrder[] = dmy === mdy ? ['DMY', 'MDY'] : [order === 'DMY' ? 'MDY' : 'DMY'];
    for (const side of sides) {
      const other: DateOrder = side === 'DMY' ? 'MDY' : 'DMY';
      const example = proven[other][0];
      const against =
        dmy === mdy
          ? `while ${quoted(example.value)} (sheet row ${example.sheetRow}) in the same column can only be read ${ORDER_WORDS[other]}, and as many dates go each way`
          : `while most dates of the column (${proven[other].length} against ${proven[side].length}, such as ${quoted(example.value)} in sheet row ${example.sheetRow}) can only be read ${ORDER_WORDS[other]}`;
      for (const cell of proven[side]) {
        conflicts.set(
          cell.sheetRow,
          `${quoted(cell.value)} can only be read ${ORDER_WORDS[side]}, ${against}; write this date as YYYY-MM-DD (read ${ORDER_NAMES[side]} it is ${iso(cell.value, side)}) or correct it`,
        );
      }
    }
    return { order, conflicts };
  }
  const provenOrder: DateOrder | undefined = dmy ? 'DMY' : mdy ? 'MDY' : undefined;
  const proof = provenOrder && proven[provenOrder][0];
  if (!ambiguous) return proof ? { order: provenOrder!, conflicts, proof } : { order: requested, conflicts };
  const count = ambiguousCount === 1 ? 'its one date that reads both ways' : `its ${ambiguousCount} dates that read both ways`;
  const were = ambiguousCount === 1 ? 'was' : 'were';
  if (proof) {
    const order = provenOrder!;
    if (order === requested) return { order, conflicts, proof };
    return {
      order,
      conflicts,
      proof,
      warning: `Column "${heading}" was read ${ORDER_WORDS[order]}, not ${ORDER_NAMES[requested]} as asked: ${quoted(proof.value)} (sheet row ${proof.sheetRow}) can only be read so. So ${were} ${count}, e.g. ${quoted(ambiguous.value)} (sheet row ${ambiguous.sheetRow}) as ${iso(ambiguous.value, order)}`,
    };
  }
  if (fileOrder) {
    const { order, heading: provingHeading, proof: fileProof } = fileOrder;
    const other: DateOrder = order === 'DMY' ? 'MDY' : 'DMY';
    return {
      order,
      conflicts,
      warning: `Column "${heading}": every text date reads both day first and month first, so ${count} ${were} read ${ORDER_WORDS[order]}, as column "${provingHeading}" of the same list is written (${quoted(fileProof.value)}, sheet row ${fileProof.sheetRow}, can only be read so): ${quoted(ambiguous.value)} (sheet row ${ambiguous.sheetRow}) is ${iso(ambiguous.value, order)}. If this column is written ${ORDER_NAMES[other]}, write its dates as YYYY-MM-DD`,
    };
  }
  const other: DateOrder = requested === 'DMY' ? 'MDY' : 'DMY';
  return {
    order: requested,
    conflicts,
    warning: `Column "${heading}": every text date reads both day first and month first, so ${count} ${were} read ${ORDER_WORDS[requested]}, the upload's date order (dateOrder ${requested}): ${quoted(ambiguous.value)} (sheet row ${ambiguous.sheetRow}) is ${iso(ambiguous.value, requested)}. If the list is written ${ORDER_NAMES[other]}, upload it again with dateOrder ${other}, or write the dates as YYYY-MM-DD`,
  };
}
