import { getCountryCallingCode, parseNumber, type CountryCode } from 'libphonenumber-js';
import { foldText, lookupCountry } from './country-lookup';
import type { DocumentType, GenderCode, PassengerFields } from './passenger.record';

/**
 * Field normalisers shared by the spreadsheet upload and the JSON push. Each takes a value as it
 * arrives (a string, number, boolean, or a Date from a spreadsheet cell) and answers
 * `{ok: true, value}` or `{ok: false, message}` where the message says what is expected.
 * Blank values are decided by `normalizePassenger`, not by the single-field normalisers.
 */
export type Normalized<T> = { ok: true; value: T } | { ok: false; message: string };

const ok = <T>(value: T): Normalized<T> => ({ ok: true, value });
const fail = <T>(message: string): Normalized<T> => ({ ok: false, message });

/**
 * Remembers the results of a pure normaliser for text and numbers. Passenger lists repeat the same
 * countries, codes, dates and family names thousands of times: this saves the work and makes equal
 * results share one string. Results are frozen-by-convention (never mutated).
 */
function memoized<T>(normalize: (value: unknown) => Normalized<T>, limit = 5000): (value: unknown) => Normalized<T> {
  const cache = new Map<string | number, Normalized<T>>();
  return (value) => {
    if (typeof value !== 'string' && typeof value !== 'number') return normalize(value);
    let result = cache.get(value);
    if (result === undefined) {
      result = normalize(value);
      if (cache.size >= limit) cache.clear();
      cache.set(value, result);
    }
    return result;
  };
}

/** The passenger's own fields, after normalisation; list fields (id, row numbers…) are the caller's. */
export type NormalizedPassengerFields = PassengerFields;

export type PassengerFieldName = keyof NormalizedPassengerFields;

export interface FieldProblem {
  field: PassengerFieldName;
  /** The value as received. */
  value: unknown;
  message: string;
}

export interface NormalizeOptions {
  /** The date against which "in the future" is judged (a Date's UTC day, or `YYYY-MM-DD`); default now. */
  today?: Date | string;
  /** Region assumed for phone numbers written without a country code; default IT. */
  defaultPhoneRegion?: CountryCode;
  /** Whether numeric dates count from 1904 (old Mac workbooks) instead of 1900. */
  date1904?: boolean;
  /** For updates: fields absent from the input stay absent and are not required. */
  partial?: boolean;
}

export interface NormalizeResult<T> {
  /** Present when there are no problems. */
  value?: T;
  problems: FieldProblem[];
}

export function isBlank(value: unknown): boolean {
  return value === null || value === undefined || (typeof value === 'string' && value.trim() === '');
}

/** Text of a string or a finite number (spreadsheets hold document numbers and phones as numbers). */
function textOf(value: unknown): string | undefined {
  if (typeof value === 'string') return value.trim();
  if (typeof value === 'number' && Number.isFinite(value)) {
    return Number.isInteger(value) ? value.toFixed(0) : String(value);
  }
  return undefined;
}

function describe(value: unknown): string {
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? 'an invalid date' : value.toISOString();
  if (typeof value === 'string') return `"${value.length > 60 ? `${value.slice(0, 57)}...` : value}"`;
  if (typeof value === 'object') return 'a structured value';
  return String(value);
}

const NAME_MAX = 100;

/** Trimmed, inner white space collapsed, upper case; must contain a letter. */
export const normalizePersonName = memoized(function normalizePersonName(value: unknown): Normalized<string> {
  const text = textOf(value);
  if (text === undefined) return fail(`expected a name as text, got ${describe(value)}`);
  const name = text.replace(/\s+/g, ' ').toUpperCase();
  if (!/\p{L}/u.test(name)) return fail(`expected a name made of letters, got ${describe(value)}`);
  if (name.length > NAME_MAX) return fail(`expected at most ${NAME_MAX} characters, got ${name.length}`);
  return ok(name);
});

/** ISO 3166-1 alpha-2 from an alpha-2 or alpha-3 code or an English or Italian country name. */
export const normalizeCountry = memoized(function normalizeCountry(value: unknown): Normalized<string> {
  const text = typeof value === 'string' ? value.trim() : undefined;
  const code = text ? lookupCountry(text) : undefined;
  if (code) return ok(code);
  return fail(
    `expected a country as an ISO code or an English or Italian name (e.g. IT, ITA, Italy, Italia), got ${describe(value)}`,
  );
});

const DATE_FORMATS = 'YYYY-MM-DD, DD/MM/YYYY, DD-MM-YYYY or DD.MM.YYYY';
const MIN_YEAR = 1850;
const MAX_YEAR = 2200;
const ISO_DATE = /^(\d{4})-(\d{1,2})-(\d{1,2})$/;
const DAY_FIRST_DATE = /^(\d{1,2})([/.-])(\d{1,2})\2(\d{4})$/;
const MS_PER_DAY = 86_400_000;
/** Day 0 of the 1900 date system as Excel counts it (it believes 1900 was a leap year). */
const EXCEL_EPOCH_MS = Date.UTC(1899, 11, 30);
const EXCEL_1904_OFFSET_DAYS = 1462;
const EXCEL_MAX_SERIAL = 2_958_465; // 9999-12-31

function pad2(n: number): string {
  return n < 10 ? `0${n}` : String(n);
}

const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function daysInMonth(year: number, month: number): number {
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return month === 2 && leap ? 29 : MONTH_DAYS[month - 1];
}

function calendarDate(year: number, month: number, day: number, original: unknown): Normalized<string> {
  if (year < MIN_YEAR || year > MAX_YEAR) {
    return fail(`expected a year from ${MIN_YEAR} to ${MAX_YEAR}, got ${describe(original)}`);
  }
  if (month < 1 || month > 12) return fail(`${describe(original)} has no month ${month}; expected ${DATE_FORMATS}`);
  const last = daysInMonth(year, month);
  if (day < 1 || day > last) {
    return fail(`${describe(original)} is not a real date: ${year}-${pad2(month)} has ${last} days`);
  }
  return ok(`${year}-${pad2(month)}-${pad2(day)}`);
}

function fromUtcDate(date: Date, original: unknown): Normalized<string> {
  if (Number.isNaN(date.getTime())) return fail(`expected a date as ${DATE_FORMATS}, got an invalid date`);
  return calendarDate(date.getUTCFullYear(), date.getUTCMonth() + 1, date.getUTCDate(), original);
}

function parseDate(value: unknown, date1904: boolean): Normalized<string> {
  if (value instanceof Date) return fromUtcDate(value, value);
  if (typeof value === 'number') {
    if (!Number.isFinite(value) || value < 1 || value > EXCEL_MAX_SERIAL) {
      return fail(`expected a date as ${DATE_FORMATS}, got the number ${value}`);
    }
    let days = Math.floor(value);
    if (date1904) days += EXCEL_1904_OFFSET_DAYS;
    else if (days < 61) days += 1; // serials before the phantom 29 February 1900
    return fromUtcDate(new Date(EXCEL_EPOCH_MS + days * MS_PER_DAY), value);
  }
  if (typeof value === 'string') {
    const text = value.trim();
    let match = ISO_DATE.exec(text);
    if (match) return calendarDate(Number(match[1]), Number(match[2]), Number(match[3]), value);
    match = DAY_FIRST_DATE.exec(text);
    if (match) return calendarDate(Number(match[4]), Number(match[3]), Number(match[1]), value);
  }
  return fail(`expected a date as ${DATE_FORMATS}, got ${describe(value)}`);
}

const parseDate1900 = memoized((value) => parseDate(value, false));
const parseDate1904 = memoized((value) => parseDate(value, true));

/**
 * `YYYY-MM-DD` from a date cell (exceljs gives UTC midnight, so the UTC day is the cell's day), an
 * Excel serial number (1900 or 1904 system; any time part dropped) or text in one of the accepted
 * formats. Two-digit years are refused: for birth dates they are ambiguous.
 */
export function normalizeDate(value: unknown, options: { date1904?: boolean } = {}): Normalized<string> {
  return options.date1904 ? parseDate1904(value) : parseDate1900(value);
}

/** `YYYY-MM-DD` of "today": a Date's UTC day, or a `YYYY-MM-DD` string as given. */
export function isoDay(today: Date | string): string {
  if (typeof today === 'string') return today;
  return `${today.getUTCFullYear()}-${pad2(today.getUTCMonth() + 1)}-${pad2(today.getUTCDate())}`;
}

const PHONE_CHARACTERS = /^\+?[0-9 ()./-]+$/;

/**
 * E.164 of a valid number, or undefined. libphonenumber-js's `parseNumber` parses and validates
 * (the country's national number pattern, its "basic" validation) in one pass; `parsePhoneNumber`
 * followed by `isValid()` matches the same patterns again and took 40% longer on Italian numbers,
 * the bulk of a list. `isPossible()` (length only) is not enough: it takes 447911123456 for an
 * Italian number.
 */
function toE164(text: string, region?: CountryCode): string | undefined {
  const parsed = parseNumber(text, region ? { defaultCountry: region } : {});
  return 'country' in parsed && parsed.country ? `+${getCountryCallingCode(parsed.country)}${parsed.phone}` : undefined;
}

/**
 * E.164. A number that starts with + or 00 is international; any other is read in the default
 * region (IT unless told otherwise, so `333 1234567` becomes +393331234567); a string of digits
 * that is not valid there is tried once more as international (Excel drops the + of numeric cells).
 */
export function normalizePhone(value: unknown, options: { defaultRegion?: CountryCode } = {}): Normalized<string> {
  const region = options.defaultRegion ?? 'IT';
  const expected = `expected a telephone number such as +39 333 123 4567 (without a country code it is read as ${region})`;
  let text = textOf(value);
  if (text === undefined) return fail(`${expected}, got ${describe(value)}`);
  text = text.replace(/^tel:/i, '').trim();
  if (!PHONE_CHARACTERS.test(text)) return fail(`${expected}, got ${describe(value)}`);
  if (text.startsWith('00')) text = `+${text.slice(2)}`;
  const international = text.startsWith('+');
  let phone = toE164(text, international ? undefined : region);
  if (!phone && !international) {
    const digits = text.replace(/\D/g, '');
    if (digits.length >= 8) phone = toE164(`+${digits}`);
  }
  if (!phone) return fail(`${expected}, got ${describe(value)}`);
  return ok(phone === text ? text : phone);
}

const EMAIL_LOCAL = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/;
const EMAIL_DOMAIN = /^([A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,63}$/;

/** `local@domain.tld` in plain ASCII; a `mailto:` prefix (hyperlink cells) is dropped, the domain lower-cased. */
export function normalizeEmail(value: unknown): Normalized<string> {
  const expected = 'expected an e-mail address such as name@example.com';
  if (typeof value !== 'string') return fail(`${expected}, got ${describe(value)}`);
  const text = value.trim().replace(/^mailto:/i, '').replace(/\?.*$/, '').trim();
  const at = text.lastIndexOf('@');
  const local = text.slice(0, at);
  const domain = text.slice(at + 1);
  if (at < 1 || text.length > 254 || local.length > 64 || !EMAIL_LOCAL.test(local) || !EMAIL_DOMAIN.test(domain)) {
    return fail(`${expected}, got ${describe(value)}`);
  }
  // Reuse the text when nothing changes: a rebuilt string costs ~130 bytes a passenger.
  const lower = domain.toLowerCase();
  return ok(lower === domain ? text : `${local}@${lower}`);
}

const DOCUMENT_TYPES: Record<string, DocumentType> = {
  p: 'P',
  passport: 'P',
  passaporto: 'P',
  pp: 'P',
  i: 'I',
  id: 'I',
  idcard: 'I',
  identitycard: 'I',
  identitydocument: 'I',
  nationalid: 'I',
  nationalidcard: 'I',
  ci: 'I',
  cie: 'I',
  cartadidentita: 'I',
  cartadiidentita: 'I',
  cartaidentita: 'I',
  cartadidentitaelettronica: 'I',
};

/** P (passport) or I (identity card), also from the words in English or Italian. */
export const normalizeDocumentType = memoized(function normalizeDocumentType(value: unknown): Normalized<DocumentType> {
  const code = typeof value === 'string' ? DOCUMENT_TYPES[foldText(value)] : undefined;
  return code ? ok(code) : fail(`expected P (passport) or I (identity card), got ${describe(value)}`);
});

const GENDERS: Record<string, GenderCode> = {
  m: 'M',
  male: 'M',
  maschio: 'M',
  man: 'M',
  uomo: 'M',
  f: 'F',
  female: 'F',
  femmina: 'F',
  woman: 'F',
  donna: 'F',
  i: 'I',
};

/** M, F or I, also from male / maschio / female / femmina. */
export const normalizeGender = memoized(function normalizeGender(value: unknown): Normalized<GenderCode> {
  const code = typeof value === 'string' ? GENDERS[foldText(value)] : undefined;
  return code ? ok(code) : fail(`expected M (male), F (female) or I, got ${describe(value)}`);
});

const YES = new Set(['yes', 'y', 'si', 'true', 't', '1', 'x']);
const NO = new Set(['no', 'n', 'false', 'f', '0']);

/** true / false from a boolean, 1 / 0, or yes, no, sì, si, x, true, false. */
export const normalizeInfantFlag = memoized(function normalizeInfantFlag(value: unknown): Normalized<boolean> {
  if (typeof value === 'boolean') return ok(value);
  if (value === 1 || value === 0) return ok(value === 1);
  if (typeof value === 'string') {
    const key = foldText(value);
    if (YES.has(key)) return ok(true);
    if (NO.has(key) || key === '') return ok(false);
  }
  return fail(`expected yes or no (also sì, x, true, false, 1, 0, or empty for no), got ${describe(value)}`);
});

const DOCUMENT_NUMBER = /^[A-Z0-9][A-Z0-9/-]{0,29}$/;

/** Upper case with white space removed: letters, digits, - and /, at most 30 characters. */
export function normalizeDocumentNumber(value: unknown): Normalized<string> {
  const text = textOf(value)?.replace(/\s+/g, '').toUpperCase();
  if (text && DOCUMENT_NUMBER.test(text)) return ok(text);
  return fail(`expected a document number of letters and digits (at most 30), got ${describe(value)}`);
}

/** A row number within the list: a whole number from 1, as a number or as digits. */
export function normalizeRowReference(value: unknown): Normalized<number> {
  const number = typeof value === 'string' && /^\s*\d+\s*$/.test(value) ? Number(value) : value;
  if (typeof number === 'number' && Number.isInteger(number) && number >= 1) return ok(number);
  return fail(`expected the row number of another passenger in the list (1 is the first passenger), got ${describe(value)}`);
}

interface FieldRule {
  /** The value of an empty optional field; required fields have none. */
  empty?: null | false;
  normalize(value: unknown, options: NormalizeOptions): Normalized<unknown>;
}

/** Every passenger field in the order problems are reported. */
export const PASSENGER_FIELD_RULES: Readonly<Record<PassengerFieldName, FieldRule>> = {
  surname: { normalize: normalizePersonName },
  name: { normalize: normalizePersonName },
  date_born: { normalize: (v, o) => normalizeDate(v, o) },
  luogonascita: { normalize: normalizeCountry },
  nazionalita: { normalize: normalizeCountry },
  typedoc: { normalize: normalizeDocumentType },
  numberdoc: { normalize: normalizeDocumentNumber },
  scadenza: { normalize: (v, o) => normalizeDate(v, o) },
  issuingstate: { normalize: normalizeCountry },
  email: { empty: null, normalize: normalizeEmail },
  phone: { empty: null, normalize: (v, o) => normalizePhone(v, { defaultRegion: o.defaultPhoneRegion }) },
  is_carring_infant: { empty: false, normalize: normalizeInfantFlag },
  gender: { normalize: normalizeGender },
};

const FIELD_NAMES = Object.keys(PASSENGER_FIELD_RULES) as PassengerFieldName[];

export const REQUIRED_PASSENGER_FIELDS: readonly PassengerFieldName[] = FIELD_NAMES.filter(
  (field) => !('empty' in PASSENGER_FIELD_RULES[field]),
);

const RULES = FIELD_NAMES.map((field) => {
  const rule = PASSENGER_FIELD_RULES[field];
  return { field, required: !('empty' in rule), empty: rule.empty, normalize: rule.normalize };
});

function unsetFields(): Record<PassengerFieldName, undefined> {
  return {
    surname: undefined,
    name: undefined,
    date_born: undefined,
    luogonascita: undefined,
    nazionalita: undefined,
    typedoc: undefined,
    numberdoc: undefined,
    scadenza: undefined,
    issuingstate: undefined,
    email: undefined,
    phone: undefined,
    is_carring_infant: undefined,
    gender: undefined,
  };
}

/**
 * Normalises and checks a whole passenger: each field, then the cross-field rules (expiry not before
 * birth, birth not in the future). Problems name the field, the value received and what is expected.
 * Keys other than the passenger fields (id, idvolo, row numbers…) are ignored.
 */
export function normalizePassenger(
  raw: Record<string, unknown>,
  options: NormalizeOptions & { partial: true },
): NormalizeResult<Partial<NormalizedPassengerFields>>;
export function normalizePassenger(
  raw: Record<string, unknown>,
  options?: NormalizeOptions & { partial?: false },
): NormalizeResult<NormalizedPassengerFields>;
export function normalizePassenger(
  raw: Record<string, unknown>,
  options: NormalizeOptions = {},
): NormalizeResult<Partial<NormalizedPassengerFields>> {
  const problems: FieldProblem[] = [];
  // A whole record starts with every field in place: one object shape for every passenger.
  const fields = options.partial ? {} : unsetFields();
  normalizePassengerInto(raw, fields, options, problems);
  return problems.length ? { problems } : { value: fields as Partial<NormalizedPassengerFields>, problems };
}

/**
 * `normalizePassenger` for bulk readers: writes the normalised fields into `target` and appends the
 * problems to `problems`, allocating nothing per passenger beyond the values themselves.
 */
export function normalizePassengerInto(
  raw: Record<string, unknown>,
  target: Record<string, unknown>,
  options: NormalizeOptions,
  problems: FieldProblem[],
): void {
  // Dates that failed (or were absent) take no part in the cross-field checks.
  let born: string | undefined;
  let expiry: string | undefined;
  for (const { field, required, empty, normalize } of RULES) {
    const value = raw[field];
    if (options.partial && value === undefined) continue;
    if (isBlank(value)) {
      if (!required) target[field] = empty;
      else problems.push({ field, value: value ?? null, message: 'a value is required' });
      continue;
    }
    const result = normalize(value, options);
    if (!result.ok) {
      problems.push({ field, value, message: result.message });
      continue;
    }
    target[field] = result.value;
    if (field === 'date_born') born = result.value as string;
    else if (field === 'scadenza') expiry = result.value as string;
  }
  if (born && expiry && expiry < born) {
    problems.push({
      field: 'scadenza',
      value: raw.scadenza,
      message: `the document expiry date ${expiry} is before the date of birth ${born}`,
    });
  }
  const today = isoDay(options.today ?? new Date());
  if (born && born > today) {
    problems.push({
      field: 'date_born',
      value: raw.date_born,
      message: `the date of birth ${born} is in the future (today is ${today})`,
    });
  }
}

/** The name the push route asked for: the same checks as `normalizePassenger`. */
export const validatePassengerFields = normalizePassenger;
