import type { CellValue } from 'exceljs';

/** A cell that holds an error such as #N/A, or a formula whose cached result is an error. */
export class CellErrorValue {
  constructor(readonly error: string) {}
}

/** What a passenger field can be read from: text, a number, a boolean, a date, an error, or null. */
export type CellContent = string | number | boolean | Date | CellErrorValue | null;

type RichText = { richText: { text: string }[] };

function richText(value: RichText): string {
  let text = '';
  for (const run of value.richText) text += run.text ?? '';
  return text;
}

/**
 * The plain content of an exceljs cell value: rich text joined, a formula's cached result, a
 * hyperlink's text (its target, without `mailto:`, only when the text is empty).
 */
export function cellContent(value: CellValue | undefined): CellContent {
  if (value === null || value === undefined) return null;
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      return Number.isNaN(value) ? new CellErrorValue('#VALUE!') : value;
    default:
      break;
  }
  if (value instanceof Date) return value;
  if ('richText' in value) return richText(value);
  if ('error' in value) return new CellErrorValue(String(value.error));
  if ('formula' in value || 'sharedFormula' in value) {
    // A formula without a cached result (never calculated) reads as empty.
    const result = (value as { result?: CellValue }).result;
    return result === undefined ? null : cellContent(result);
  }
  if ('hyperlink' in value || 'text' in value) {
    const { text, hyperlink } = value as { text?: string | RichText; hyperlink?: string };
    const shown = typeof text === 'string' ? text : text && 'richText' in text ? richText(text) : '';
    if (shown.trim() !== '') return shown;
    return hyperlink ? hyperlink.replace(/^mailto:/i, '') : null;
  }
  return null;
}

/** The cell content as it goes into a problem report (JSON): dates as `YYYY-MM-DD`. */
export function reportedValue(content: CellContent | undefined): string | number | boolean | null {
  if (content === null || content === undefined) return null;
  if (content instanceof CellErrorValue) return content.error;
  if (content instanceof Date) {
    return Number.isNaN(content.getTime()) ? 'invalid date' : content.toISOString().replace('T00:00:00.000Z', '');
  }
  return content;
}
