/** A cell that holds an error such as #N/A, or a formula whose cached result is an error. */
export class CellErrorValue {
  constructor(readonly error: string) {}
}

/**
 * A cell whose value cannot be read, with the reason to tell the user: a formula never calculated,
 * a reference to a shared text the workbook lacks, a text longer than any field takes.
 */
export class UnreadableCell {
  constructor(
    readonly reason: string,
    /** What the report shows as the cell's value. */
    readonly shown: string | null,
  ) {}
}

/** What a passenger field can be read from: text, a number, a boolean, a date, an error, or null. */
export type CellContent = string | number | boolean | Date | CellErrorValue | UnreadableCell | null;

/** Echoed values and headings are cut to this many characters, so a report stays small whatever the file holds. */
export const MAX_ECHOED_CHARS = 80;

/** The text cut to `max` characters with an ellipsis (a character split in two is dropped whole). */
export function truncated(text: string, max = MAX_ECHOED_CHARS): string {
  if (text.length <= max) return text;
  let cut = max - 1;
  const code = text.charCodeAt(cut - 1);
  if (code >= 0xd800 && code <= 0xdbff) cut -= 1;
  return `${text.slice(0, cut)}…`;
}

/** The cell content as it goes into a problem report (JSON): dates as `YYYY-MM-DD`, texts cut short. */
export function reportedValue(content: CellContent | undefined): string | number | boolean | null {
  if (content === null || content === undefined) return null;
  if (content instanceof CellErrorValue) return truncated(content.error);
  if (content instanceof UnreadableCell) return content.shown === null ? null : truncated(content.shown);
  if (content instanceof Date) {
    return Number.isNaN(content.getTime()) ? 'invalid date' : content.toISOString().replace('T00:00:00.000Z', '');
  }
  return typeof content === 'string' ? truncated(content) : content;
}
