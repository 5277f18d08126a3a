import { sheetError } from './sheet-error';

/** The most characters a cell can hold in Excel; a longer text is refused rather than kept. */
export const MAX_TEXT_CHARS = 32_767;

const ESCAPE = /_x([0-9A-Fa-f]{4})_/g;

/**
 * Resolves the `_xHHHH_` escapes of SpreadsheetML strings (ECMA-376 ST_Xstring: Excel writes a
 * carriage return as `_x000D_`, and a literal `_x…_` with its underscore escaped as `_x005F_`).
 */
export function unescapeSpreadsheetText(text: string): string {
  if (!text.includes('_x')) return text;
  return text.replace(ESCAPE, (_match, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
}

/** Collects the pieces of one text, refusing it once it passes MAX_TEXT_CHARS. */
export class TextCollector {
  private pieces = '';

  constructor(private readonly where: () => string) {}

  reset(): void {
    this.pieces = '';
  }

  add(text: string): void {
    if (this.pieces.length + text.length > MAX_TEXT_CHARS) {
      throw sheetError.unprocessable(
        `${this.where()} holds a text longer than ${MAX_TEXT_CHARS} characters, the most a cell can hold in Excel; the file was not read`,
      );
    }
    this.pieces += text;
  }

  get text(): string {
    return unescapeSpreadsheetText(this.pieces);
  }
}
