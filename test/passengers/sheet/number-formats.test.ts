import { UnreadableCell } from '../../../src/passengers/sheet/cell-value';
import {
  builtInFormatClass,
  DATE_FORMAT,
  formatCodeClass,
  formattedNumber,
  paddedFormat,
  PLAIN_FORMAT,
  serialDay,
  TIME_FORMAT,
} from '../../../src/passengers/sheet/number-formats';

const day = (date: Date | undefined) => date?.toISOString().slice(0, 10);

describe('builtInFormatClass', () => {
  it('knows the built-in date and time formats, and takes every other id for a number', () => {
    for (const id of [14, 15, 16, 17, 22, 27, 31, 34, 36, 50, 58]) expect([id, builtInFormatClass(id)]).toEqual([id, DATE_FORMAT]);
    for (const id of [18, 19, 20, 21, 32, 33, 45, 46, 47]) expect([id, builtInFormatClass(id)]).toEqual([id, TIME_FORMAT]);
    for (const id of [0, 1, 2, 3, 4, 9, 10, 11, 12, 13, 23, 26, 37, 44, 48, 49, 59, 164]) expect([id, builtInFormatClass(id)]).toEqual([id, PLAIN_FORMAT]);
  });
});

describe('formatCodeClass', () => {
  it.each([
    ['dd/mm/yyyy', DATE_FORMAT],
    ['yyyy\\-mm\\-dd', DATE_FORMAT],
    ['[$-409]m/d/yy h:mm AM/PM;@', DATE_FORMAT],
    ['[$-F800]dddd\\,\\ mmmm\\ dd\\,\\ yyyy', DATE_FORMAT],
    ['DD.MM.YYYY', DATE_FORMAT],
    ['mmm-yy', DATE_FORMAT],
    ['m', DATE_FORMAT],
    ['[$-411]ggge"年"m"月"d"日"', DATE_FORMAT],
    ['h:mm', TIME_FORMAT],
    ['h:mm AM/PM', TIME_FORMAT],
    ['mm:ss', TIME_FORMAT],
    ['[h]:mm:ss', TIME_FORMAT],
    ['[mm]:ss', TIME_FORMAT],
    ['"No. "0', PLAIN_FORMAT],
    ['General', PLAIN_FORMAT],
    ['general;-general', PLAIN_FORMAT],
    ['0.00E+00', PLAIN_FORMAT],
    ['##0.0e-0', PLAIN_FORMAT],
    ['#,##0_);[Red](#,##0)', PLAIN_FORMAT],
    ['_-* #,##0.00\\ [$€-407]_-', PLAIN_FORMAT],
    ['\\d\\a\\y 0', PLAIN_FORMAT],
    ['"TRUE";"TRUE";"FALSE"', PLAIN_FORMAT],
    ['[Red][<=100]0;[Blue]0', PLAIN_FORMAT],
    ['@', PLAIN_FORMAT],
    ['0', PLAIN_FORMAT],
    ['0.00', PLAIN_FORMAT],
    ['00', paddedFormat(2)],
    ['000000000', paddedFormat(9)],
    ['0000000000', paddedFormat(10)],
  ])('classifies %s', (code, expected) => {
    expect(formatCodeClass(code)).toBe(expected);
  });

  it('takes a code of zeros longer than Excel allows (255 characters) for a plain number, not a width to pad to', () => {
    expect(formatCodeClass('0'.repeat(255))).toBe(paddedFormat(255));
    expect(formatCodeClass('0'.repeat(500_000))).toBe(PLAIN_FORMAT);
  });

  it('reads a code whose quote or bracket is never closed without looking past its end', () => {
    expect(formatCodeClass('"dd')).toBe(PLAIN_FORMAT);
    expect(formatCodeClass('0[dd')).toBe(PLAIN_FORMAT);
    expect(formatCodeClass('yy"')).toBe(DATE_FORMAT);
  });
});

describe('serialDay', () => {
  it('reads serial numbers of the 1900 system from 1 (1 January 1900) on, around the day Excel believes was 29 February 1900, dropping the time', () => {
    expect(day(serialDay(1, false))).toBe('1900-01-01');
    expect(day(serialDay(1.99, false))).toBe('1900-01-01');
    expect(day(serialDay(59, false))).toBe('1900-02-28');
    expect(day(serialDay(60, false))).toBe('1900-03-01');
    expect(day(serialDay(61, false))).toBe('1900-03-01');
    expect(day(serialDay(62, false))).toBe('1900-03-02');
    expect(day(serialDay(29358, false))).toBe('1980-05-17');
    expect(day(serialDay(29358.75, false))).toBe('1980-05-17');
    expect(day(serialDay(2_958_465, false))).toBe('9999-12-31');
  });

  it('reads serial numbers of the 1904 system from 0 (1 January 1904) on', () => {
    expect(day(serialDay(0, true))).toBe('1904-01-01');
    expect(day(serialDay(1, true))).toBe('1904-01-02');
    expect(day(serialDay(27896, true))).toBe('1980-05-17');
    expect(serialDay(27896, true)?.getTime()).toBe(Date.UTC(1980, 4, 17));
  });

  it('gives no day for a number that shows none', () => {
    for (const serial of [0, 0.99, -5, Number.NaN, Number.POSITIVE_INFINITY, 2_958_466]) expect(serialDay(serial, false)).toBeUndefined();
    expect(serialDay(-1, true)).toBeUndefined();
    expect(serialDay(2_957_004, true)).toBeUndefined();
  });
});

describe('formattedNumber', () => {
  it('pads a whole number with zeros to the width of a format of zeros, and leaves what the format would round as a number', () => {
    expect(formattedNumber(12345678, paddedFormat(9), false)).toBe('012345678');
    expect(formattedNumber(1234567, paddedFormat(9), false)).toBe('001234567');
    expect(formattedNumber(612345678, paddedFormat(10), false)).toBe('0612345678');
    expect(formattedNumber(1234567890, paddedFormat(9), false)).toBe('1234567890');
    expect(formattedNumber(12.5, paddedFormat(9), false)).toBe(12.5);
    expect(formattedNumber(-5, paddedFormat(9), false)).toBe(-5);
    expect(formattedNumber(2 ** 60, paddedFormat(9), false)).toBe(2 ** 60);
  });

  it('gives the day of a number in a date format at UTC midnight, in the workbook’s date system', () => {
    expect(formattedNumber(29358.5, DATE_FORMAT, false)).toEqual(new Date(Date.UTC(1980, 4, 17)));
    expect(formattedNumber(27896, DATE_FORMAT, true)).toEqual(new Date(Date.UTC(1980, 4, 17)));
  });

  it('says why a date format that shows no day and a time format are not read', () => {
    const noDay = formattedNumber(-3, DATE_FORMAT, false);
    expect(noDay).toBeInstanceOf(UnreadableCell);
    expect(noDay).toMatchObject({ shown: '-3', reason: expect.stringMatching(/^the cell is formatted as a date but holds the number -3, which is no day/) });
    const time = formattedNumber(0.5, TIME_FORMAT, false);
    expect(time).toBeInstanceOf(UnreadableCell);
    expect(time).toMatchObject({ shown: '0.5', reason: expect.stringMatching(/^the cell is formatted as a time of day/) });
  });

  it('leaves the number of a plain format as it is', () => {
    expect(formattedNumber(1980, PLAIN_FORMAT, false)).toBe(1980);
  });
});
