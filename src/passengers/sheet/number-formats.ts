import { UnreadableCell, type CellContent } from './cell-value';

/**
 * What a cell's number format makes of the number it shows, as far as a passenger field cares, in
 * one small integer (the styles part gives one per cell format, so they are kept in a typed array):
 * the number as it is (PLAIN_FORMAT); a calendar day (DATE_FORMAT); a time of day (TIME_FORMAT: hours,
 * minutes or seconds and no day, month or year); or, above TIME_FORMAT, `paddedFormat(digits)`: the
 * integer written with at least that many digits, zeros in front (a format code made only of zeros,
 * `000000000`, the usual way to keep the leading zeros of a document or telephone number in a number cell).
 */
export type NumberFormatClass = number;
export const PLAIN_FORMAT = 0;
export const DATE_FORMAT = 1;
export const TIME_FORMAT = 2;

/** The class of a format code of `digits` zeros. */
export function paddedFormat(digits: number): NumberFormatClass {
  return TIME_FORMAT + digits;
}
/** The longest format code Excel takes; a longer code of zeros is read as a plain number. */
export const MAX_FORMAT_CODE_CHARS = 255;

/**
 * The built-in number formats (ECMA-376 part 1, 18.8.30) that show a date or a time; every other
 * built-in one shows a number (General, 0, 0.00, #,##0, percentages, fractions, @). 27 to 36 and 50
 * to 58 are the East Asian dates (their codes depend on the locale); 32 and 33 are times in all of them.
 */
export function builtInFormatClass(id: number): NumberFormatClass {
  if ((id >= 14 && id <= 17) || id === 22 || (id >= 27 && id <= 31) || (id >= 34 && id <= 36) || (id >= 50 && id <= 58)) return DATE_FORMAT;
  if ((id >= 18 && id <= 21) || id === 32 || id === 33 || (id >= 45 && id <= 47)) return TIME_FORMAT;
  return PLAIN_FORMAT;
}

const ELAPSED_TIME = /^(h+|m+|s+)$/i;
const AM_PM = /^(am\/pm|a\/p)/i;

/**
 * Classifies a format code: two or more zeros and nothing else (`000000000`) pad the integer with
 * zeros to that width; otherwise by its tokens: `d`, `y`, `e` (the era year; not the exponent of
 * `0.00E+00`), `g` (the era) make a date, and so does `m` without hours or seconds (with them it is
 * minutes); `h`, `s` and elapsed times (`[h]`, `[mm]`) without a date make a time. Quoted text
 * (`"No. "0`), escaped characters (`\d`), the character after `_` (a space as wide as it) or `*`
 * (a fill), bracketed sections (`[$-409]`, `[Red]`, `[<=100]`), `General` and AM/PM are not tokens.
 */
export function formatCodeClass(code: string): NumberFormatClass {
  // One zero shows the integer as it is: only two or more can add a zero in front.
  if (/^0+$/.test(code)) return code.length >= 2 && code.length <= MAX_FORMAT_CODE_CHARS ? paddedFormat(code.length) : PLAIN_FORMAT;
  let date = false;
  let month = false;
  let time = false;
  for (let i = 0; i < code.length; i += 1) {
    const character = code[i];
    if (character === '"') {
      const end = code.indexOf('"', i + 1);
      if (end < 0) break;
      i = end;
      continue;
    }
    if (character === '\\' || character === '_' || character === '*') {
      i += 1;
      continue;
    }
    if (character === '[') {
      const end = code.indexOf(']', i + 1);
      if (end < 0) break;
      if (ELAPSED_TIME.test(code.slice(i + 1, end))) time = true;
      i = end;
      continue;
    }
    switch (character) {
      case 'G':
      case 'g':
        if (code.slice(i, i + 7).toLowerCase() === 'general') i += 6;
        else date = true;
        break;
      case 'A':
      case 'a': {
        const marker = AM_PM.exec(code.slice(i, i + 5));
        if (marker) i += marker[0].length - 1;
        break;
      }
      case 'E':
      case 'e':
        if (code[i + 1] !== '+' && code[i + 1] !== '-') date = true;
        break;
      case 'D':
      case 'd':
      case 'Y':
      case 'y':
        date = true;
        break;
      case 'M':
      case 'm':
        month = true;
        break;
      case 'H':
      case 'h':
      case 'S':
      case 's':
        time = true;
        break;
      default:
    }
  }
  if (date || (month && !time)) return DATE_FORMAT;
  return time || month ? TIME_FORMAT : PLAIN_FORMAT;
}

const MS_PER_DAY = 86_400_000;
/** Day 0 of the 1900 date system as Excel counts it (it believes 1900 was a leap year). */
const EXCEL_EPOCH_MS = Date.UTC(1899, 11, 30);
const EXCEL_1904_OFFSET_DAYS = 1462;
/** 9999-12-31, the last day Excel shows. */
const EXCEL_LAST_DAY_MS = Date.UTC(9999, 11, 31);

/**
 * The calendar day (UTC midnight) an Excel serial date shows, any time of day dropped: in the 1900
 * system 1 is 1 January 1900, and the serials before Excel's phantom 29 February 1900 (60, read as
 * 1 March) are one day later than a plain count; in the 1904 system 0 is 1 January 1904. Undefined
 * for a serial that shows no day (below the first, past 9999-12-31, not a number).
 */
export function serialDay(serial: number, date1904: boolean): Date | undefined {
  if (!Number.isFinite(serial) || serial < (date1904 ? 0 : 1)) return undefined;
  let days = Math.floor(serial);
  if (date1904) days += EXCEL_1904_OFFSET_DAYS;
  else if (days < 61) days += 1;
  const ms = EXCEL_EPOCH_MS + days * MS_PER_DAY;
  return ms <= EXCEL_LAST_DAY_MS ? new Date(ms) : undefined;
}

/**
 * A number cell's content as its format shows it: a date format gives the day (an UnreadableCell
 * when the number shows none), a time format an UnreadableCell (the cell shows a time of day, which
 * no passenger field holds), a format of zeros the integer padded to its width as text
 * (`012345678`; a fraction or a negative number stays a number); any other format the number.
 */
export function formattedNumber(value: number, format: NumberFormatClass, date1904: boolean): CellContent {
  if (format === PLAIN_FORMAT) return value;
  if (format === DATE_FORMAT) {
    return (
      serialDay(value, date1904) ??
      new UnreadableCell(`the cell is formatted as a date but holds the number ${value}, which is no day of the calendar (Excel shows ####); write the date as YYYY-MM-DD`, String(value))
    );
  }
  if (format === TIME_FORMAT) {
    return new UnreadableCell(
      `the cell is formatted as a time of day (its number is ${value}), and no passenger field holds a time; write a date as YYYY-MM-DD, or give the cell another format`,
      String(value),
    );
  }
  if (!Number.isSafeInteger(value) || value < 0) return value;
  return String(value).padStart(format - TIME_FORMAT, '0');
}
