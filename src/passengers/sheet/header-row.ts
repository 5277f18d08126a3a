import { truncated } from './cell-value';
import { headingKey, headingMatchKind, matchHeading, PASSENGER_SHEET_COLUMNS, type HeadingMatch, type SheetColumn, type SheetField } from './heading-aliases';
import { columnLetters } from './merged-cells';
import type { SheetProblem } from './sheet-error';

/** How many rows from the top of a sheet may hold titles or blanks before the header row. */
export const HEADER_SEARCH_ROWS = 30;
const MAX_HEADING_CHARS = 200;
/** A row is taken for the header when this many different passenger fields are named in it. */
const MIN_RECOGNISED_FIELDS = 2;

export interface MappedColumn {
  column: number;
  /** The heading as written in the file. */
  heading: string;
  field: SheetField;
  /** How the heading was matched: by the alias table, or by the client's choice (CLIENT). */
  match: HeadingMatch | 'CLIENT';
}

/**
 * A client's mapping: columns (1 = A) or headings (compared by headingKey) to the field they hold,
 * or to null for a column to ignore. It wins over the alias table.
 */
export interface ColumnChoices {
  byColumn: ReadonlyMap<number, SheetField | null>;
  byHeading: ReadonlyMap<string, SheetField | null>;
}

export interface HeaderRow {
  sheetRow: number;
  /** Recognised columns, left to right; a field appears at most once. */
  columns: MappedColumn[];
  /** The file's heading for each recognised field. */
  headingOf: Map<SheetField, string>;
  /** Problems of the header itself: required columns missing, a field named twice. */
  problems: SheetProblem[];
  /** Headings that are not passenger fields; their columns are ignored. */
  ignored: string[];
  /** The same columns, as data. */
  unknown: { column: number; heading: string }[];
}

export interface HeadingCell {
  column: number;
  text: string;
  /** The column is hidden: a refusal that names it says so (the user may not know it is there). */
  hidden?: boolean;
}

function otherNames(field: SheetField): string {
  const column = PASSENGER_SHEET_COLUMNS.find((c) => c.field === field);
  return column ? [column.heading, ...column.aliases.slice(0, 3)].map((n) => `"${n}"`).join(', ') : field;
}

/**
 * Reads a candidate header row, or answers undefined when the row does not look like one (fewer than
 * two passenger fields named). Headings are matched through the alias table.
 */
export function recogniseHeaderRow(sheetRow: number, cells: readonly HeadingCell[], choices?: ColumnChoices): HeaderRow | undefined {
  const columns: MappedColumn[] = [];
  const headingOf = new Map<SheetField, string>();
  const problems: SheetProblem[] = [];
  const ignored: string[] = [];
  const unknown: { column: number; heading: string }[] = [];
  const hiddenColumns = new Set(cells.filter((c) => c.hidden).map((c) => c.column));
  const named = (column: number, heading: string) => `${columnLetters(column)} "${truncated(heading)}"${hiddenColumns.has(column) ? ' (a hidden column)' : ''}`;
  const chosen = (column: number, heading: string): SheetField | null | undefined => {
    if (!choices) return undefined;
    if (choices.byColumn.has(column)) return choices.byColumn.get(column);
    return heading.length <= MAX_HEADING_CHARS ? choices.byHeading.get(headingKey(heading)) : undefined;
  };
  // Fields the client gave a column: no other column is read as them.
  const claimed = new Set<SheetField>();
  for (const { column, text } of cells) {
    const field = chosen(column, text.trim());
    if (field) claimed.add(field);
  }
  for (const { column, text } of cells) {
    const heading = text.trim();
    if (heading === '') continue;
    const choice = chosen(column, heading);
    let match: SheetColumn | undefined;
    let kind: HeadingMatch | 'CLIENT' = 'ALIAS';
    if (choice !== undefined) {
      match = choice === null ? undefined : PASSENGER_SHEET_COLUMNS.find((c) => c.field === choice);
      kind = 'CLIENT';
      if (!match) {
        ignored.push(`Column ${columnLetters(column)} "${truncated(heading)}" was ignored, as the mapping asked`);
        continue;
      }
    } else {
      // Headings are short: a long text is no heading (and is not worth folding for the alias match).
      match = heading.length <= MAX_HEADING_CHARS ? matchHeading(heading) : undefined;
      if (match) kind = headingMatchKind(heading, match);
      if (match && claimed.has(match.field)) {
        ignored.push(`Column ${columnLetters(column)} "${truncated(heading)}" was ignored: the mapping reads ${match.field} from another column`);
        continue;
      }
    }
    if (!match) {
      ignored.push(`Column ${columnLetters(column)} "${truncated(heading)}" is not a passenger field and was ignored`);
      unknown.push({ column, heading: truncated(heading) });
      continue;
    }
    const earlier = columns.find((c) => c.field === match.field);
    if (earlier) {
      problems.push({
        field: heading,
        column: heading,
        sheet_row: sheetRow,
        message: `Columns ${named(earlier.column, earlier.heading)} and ${named(column, heading)} both hold ${match.field}; keep only one${
          hiddenColumns.has(earlier.column) || hiddenColumns.has(column) ? ' (unhide the columns to see both, then delete one)' : ''
        }`,
      });
      continue;
    }
    columns.push({ column, heading, field: match.field, match: kind });
    headingOf.set(match.field, heading);
  }
  if (columns.length < MIN_RECOGNISED_FIELDS) return undefined;
  problems.push(...missingColumnProblems(headingOf, sheetRow));
  return { sheetRow, columns, headingOf, problems, ignored, unknown };
}

export function missingColumnProblems(present: ReadonlyMap<SheetField, string>, sheetRow?: number): SheetProblem[] {
  return PASSENGER_SHEET_COLUMNS.filter((c) => c.required && !present.has(c.field)).map((c) => ({
    field: c.field,
    column: c.field,
    ...(sheetRow ? { sheet_row: sheetRow } : {}),
    message: `Required column "${c.heading}" is missing (headings accepted include ${otherNames(c.field)})`,
  }));
}
