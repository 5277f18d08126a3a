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
export function readDateColumn(heading: string, cells: readonly DateCell[], requested: DateOrder): DateColumnReading {
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
  if (!ambiguous) return { order: dmy ? 'DMY' : mdy ? 'MDY' : requested, conflicts };
  const count = ambiguousCount === 1 ? 'its one date that reads both ways' : `its ${ambiguousCount} dates that read both ways`;
  const were = ambiguousCount === 1 ? 'was' : 'were';
  if (dmy || mdy) {
    const order: DateOrder = dmy ? 'DMY' : 'MDY';
    if (order === requested) return { order, conflicts };
    const proof = proven[order][0];
    return {
      order,
      conflicts,
      warning: `Column "${heading}" was read ${ORDER_WORDS[order]}, not ${ORDER_NAMES[requested]} as asked: ${quoted(proof.value)} (sheet row ${proof.sheetRow}) can only be read so. So ${were} ${count}, e.g. ${quoted(ambiguous.value)} (sheet row ${ambiguous.sheetRow}) as ${iso(ambiguous.value, order)}`,
    };
  }
  const other: DateOrder = requested === 'DMY' ? 'MDY' : 'DMY';
  return {
    order: requested,
    conflicts,
    warning: `Column "${heading}": every text date reads both day first and month first, so ${count} ${were} read ${ORDER_WORDS[requested]}, the upload's date order (dateOrder ${requested}): ${quoted(ambiguous.value)} (sheet row ${ambiguous.sheetRow}) is ${iso(ambiguous.value, requested)}. If the list is written ${ORDER_NAMES[other]}, upload it again with dateOrder ${other}, or write the dates as YYYY-MM-DD`,
  };
}
