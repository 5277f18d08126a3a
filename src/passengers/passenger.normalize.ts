import { isSupportedCountry, parsePhoneNumberFromString, type CountryCode, type PhoneNumber } from 'libphonenumber-js/max';
import { countriesNamed, countryName, foldText, languageName, lookupCountry, readCountry } from './country-lookup';
import type { PassengerFieldName } from './passenger.fields';
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

export type { PassengerFieldName } from './passenger.fields';

export interface FieldProblem {
  field: PassengerFieldName;
  /** The value as received. */
  value: unknown;
  message: string;
}

/** A value that was read, but through a guess the user should hear about (the message says which). */
export type FieldNote = FieldProblem;

/** How a text date such as 05/06/1980 is read: day first (5 June) or month first (6 May). */
export type DateOrder = 'DMY' | 'MDY';

/** The passenger fields that hold dates. */
export type DateField = 'date_born' | 'scadenza';

export interface NormalizeOptions {
  /** The date against which "in the future" is judged (a Date's UTC day, or `YYYY-MM-DD`); default now. */
  today?: Date | string;
  /**
   * Region tried for a phone number without a country code when it is valid in none of the
   * passenger's own countries; the number is then noted as read through it. None by default.
   */
  defaultPhoneRegion?: CountryCode;
  /** The order text dates of each date field are read in; day first unless given. */
  dateOrders?: Partial<Record<DateField, DateOrder>>;
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

/**
 * Invisible format characters (zero-width spaces and joiners, soft hyphens, direction marks, byte
 * order marks) that text pasted from web pages and documents carries: a name keeping them would
 * look right and never match the passport.
 */
const INVISIBLE = /\p{Cf}/gu;

/** Text of a string (without invisible characters) or a finite number (spreadsheets hold document numbers and phones as numbers). */
function textOf(value: unknown): string | undefined {
  if (typeof value === 'string') return value.normalize('NFC').replace(INVISIBLE, '').trim();
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

/** How a spreadsheet formula starts: no name or e-mail address does, and a CSV export must never hold one. */
const FORMULA_START = /^[=+\-@]/;

/** Trimmed, inner white space collapsed, upper case; must contain a letter. */
export const normalizePersonName = memoized(function normalizePersonName(value: unknown): Normalized<string> {
  const text = textOf(value);
  if (text === undefined) return fail(`expected a name as text, got ${describe(value)}`);
  const name = text.replace(/\s+/g, ' ').toUpperCase();
  if (!/\p{L}/u.test(name)) return fail(`expected a name made of letters, got ${describe(value)}`);
  if (FORMULA_START.test(name)) return fail(`expected a name, got ${describe(value)}: a name cannot start with =, +, - or @ (a spreadsheet opening an export would run it as a formula)`);
  if (name.length > NAME_MAX) return fail(`expected at most ${NAME_MAX} characters, got ${name.length}`);
  return ok(name);
});

/** ISO 3166-1 alpha-2 from an alpha-2 or alpha-3 code or a country name in any language i18n-iso-countries knows. */
export const normalizeCountry = memoized(function normalizeCountry(value: unknown): Normalized<string> {
  const text = typeof value === 'string' ? value.trim() : undefined;
  const code = text ? lookupCountry(text) : undefined;
  if (code) return ok(code);
  const named = text ? countriesNamed(text) : undefined;
  if (named) return fail(`"${text}" names ${named.length} countries, ${named.map((alpha2) => `${alpha2} (${countryName(alpha2)})`).join(' and ')}: write the one meant as its code`);
  return fail(
    `expected a country as an ISO code or its name in a known language (e.g. IT, ITA, Italy, Italia, Deutschland), got ${describe(value)}`,
  );
});

const DATE_FORMATS = 'YYYY-MM-DD, DD/MM/YYYY, DD-MM-YYYY or DD.MM.YYYY';
const MONTH_FIRST_FORMATS = 'YYYY-MM-DD, MM/DD/YYYY, MM-DD-YYYY or MM.DD.YYYY';
const MIN_YEAR = 1850;
const MAX_YEAR = 2200;
/** Year first, month before day: ISO 8601's order, also with / or . (Gnumeric's CSV writes 1980/05/17). No country writes year, day, month. */
const YEAR_FIRST_DATE = /^(\d{4})([-/.])(\d{1,2})\2(\d{1,2})$/;
const NUMERIC_DATE = /^(\d{1,2})([/.-])(\d{1,2})\2(\d{4})$/;

function pad2(n: number): string {
  return n < 10 ? `0${n}` : String(n);
}

const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function daysInMonth(year: number, month: number): number {
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return month === 2 && leap ? 29 : MONTH_DAYS[month - 1];
}

function calendarDate(year: number, month: number, day: number, original: unknown, formats = DATE_FORMATS): Normalized<string> {
  if (year < MIN_YEAR || year > MAX_YEAR) {
    return fail(`expected a year from ${MIN_YEAR} to ${MAX_YEAR}, got ${describe(original)}`);
  }
  if (month < 1 || month > 12) return fail(`${describe(original)} has no month ${month}; expected ${formats}`);
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

function isCalendarDay(month: number, day: number, year: number): boolean {
  return month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth(year, month);
}

/**
 * What a text date such as `05/06/1980` allows: `DMY` or `MDY` when it reads one way only
 * (`17/05/1980`, `05/17/1980`), `both` when it reads both ways as different days, `same` when both
 * readings are the same day (`05/05/1980`) or it has no order to choose (ISO, a date cell), and
 * `none` when it is no date either way (the field rule then says why).
 */
export function textDateOrders(value: unknown): DateOrder | 'both' | 'same' | 'none' {
  if (typeof value !== 'string') return 'same';
  const match = NUMERIC_DATE.exec(value.trim());
  if (!match) return 'same';
  const first = Number(match[1]);
  const second = Number(match[3]);
  const year = Number(match[4]);
  const dayFirst = isCalendarDay(second, first, year);
  const monthFirst = isCalendarDay(first, second, year);
  if (dayFirst && monthFirst) return first === second ? 'same' : 'both';
  if (dayFirst) return 'DMY';
  return monthFirst ? 'MDY' : 'none';
}

function parseDate(value: unknown, monthFirst: boolean): Normalized<string> {
  if (value instanceof Date) return fromUtcDate(value, value);
  // A number is a date only as its cell's format shows it, which the spreadsheet reader decides (a
  // cell formatted as a date reaches here as a Date): 1980 in a General cell is a year, not 1905-06-02.
  if (typeof value === 'number') return fail(`expected a date as ${monthFirst ? MONTH_FIRST_FORMATS : DATE_FORMATS}, got the number ${value}`);
  if (typeof value === 'string') {
    const text = value.trim();
    let match = YEAR_FIRST_DATE.exec(text);
    if (match) return calendarDate(Number(match[1]), Number(match[3]), Number(match[4]), value);
    match = NUMERIC_DATE.exec(text);
    if (match && monthFirst) return calendarDate(Number(match[4]), Number(match[1]), Number(match[3]), value, MONTH_FIRST_FORMATS);
    if (match) return calendarDate(Number(match[4]), Number(match[3]), Number(match[1]), value);
  }
  return fail(`expected a date as ${monthFirst ? MONTH_FIRST_FORMATS : DATE_FORMATS}, got ${describe(value)}`);
}

const parseDateDayFirst = memoized((value) => parseDate(value, false));
const parseDateMonthFirst = memoized((value) => parseDate(value, true));

/**
 * `YYYY-MM-DD` from a date cell (its UTC day: the readers give a cell's day at UTC midnight) or
 * text in one of the accepted formats, `DD/MM/YYYY` read day first unless `order` is `MDY`.
 * Numbers are refused: a number is a date only through its cell's date format, and the spreadsheet
 * reader has made such a cell a Date (a serial number in a General cell is what the sheet shows,
 * a number). Two-digit years are refused: for birth dates they are ambiguous.
 */
export function normalizeDate(value: unknown, options: { order?: DateOrder } = {}): Normalized<string> {
  return options.order === 'MDY' ? parseDateMonthFirst(value) : parseDateDayFirst(value);
}

/** `YYYY-MM-DD` of "today": a Date's UTC day, or a `YYYY-MM-DD` string as given. */
export function isoDay(today: Date | string): string {
  if (typeof today === 'string') return today;
  return `${today.getUTCFullYear()}-${pad2(today.getUTCMonth() + 1)}-${pad2(today.getUTCDate())}`;
}

const PHONE_CHARACTERS = /^\+?[0-9 ()./-]+$/;

/**
 * E.164 of a number valid in a country (`region` for a number without a country code), or
 * undefined. The 'max' metadata is the one that checks a number against its country's numbering
 * plan: the default 'min' set takes any number of a plausible length (a UK mobile as an Italian
 * landline). Non-geographic numbers (+800…) have no country and are refused.
 */
function toE164(text: string, region?: CountryCode): string | undefined {
  return validNumber(text, region)?.number;
}

function validNumber(text: string, region?: CountryCode): PhoneNumber | undefined {
  const parsed = region ? parsePhoneNumberFromString(text, region) : parsePhoneNumberFromString(text);
  return parsed?.country && parsed.isValid() ? parsed : undefined;
}

/**
 * The national prefix a number was written without (`0` for `(207) 234-5678` read in GB, whose
 * national form is `020 7234 5678`); undefined when the digits written are the national form's
 * (a US number without its `1`, an Italian one: their national forms have no prefix).
 */
function omittedPrefix(parsed: PhoneNumber, written: string): string | undefined {
  const national = parsed.formatNational().replace(/\D/g, '');
  const digits = written.replace(/\D/g, '');
  return national !== digits && national.endsWith(digits) ? national.slice(0, national.length - digits.length) : undefined;
}

/** Whether libphonenumber-js knows the numbering plan of an ISO 3166-1 alpha-2 code. */
export function isPhoneRegion(code: string): code is CountryCode {
  return /^[A-Z]{2}$/.test(code) && isSupportedCountry(code);
}

/** A country a number without a country code is tried in, and why (for the messages). */
export interface PhoneRegion {
  region: CountryCode;
  /** The passenger's own field it came from, or `default` for the configured or requested default. */
  source: 'nazionalita' | 'issuingstate' | 'luogonascita' | 'default';
}

/**
 * A number read, and the guess it took if any: through the default region (`assumed`), in one of the
 * passenger's own countries although written without that country's national prefix
 * (`withoutPrefix`: `(207) 234-5678`, US-style, is a valid London number without its 0), or as an
 * international number whose + a number cell dropped (`international`). Each guess carries a
 * warning (`phoneNote`).
 */
export type PhoneReading =
  | { ok: true; value: string; assumed?: PhoneRegion; withoutPrefix?: { region: PhoneRegion; prefix: string }; international?: boolean }
  | { ok: false; message: string };

const REGION_SOURCE_WORDS: Record<PhoneRegion['source'], string> = {
  nazionalita: 'nationality',
  issuingstate: 'issuing state',
  luogonascita: 'country of birth',
  default: 'default region',
};

function regionList(regions: readonly PhoneRegion[]): string {
  const byRegion = new Map<CountryCode, string[]>();
  for (const { region, source } of regions) byRegion.set(region, [...(byRegion.get(region) ?? []), REGION_SOURCE_WORDS[source]]);
  return [...byRegion].map(([region, sources]) => `${region} (${sources.join(', ')})`).join(', ');
}

/**
 * E.164. A number that starts with + or 00 is international. Any other is tried in `regions` in
 * order (the passenger's nationality, issuing state, country of birth, then the default region)
 * and taken in the first where it is valid; a number read through the default region says so in
 * `assumed`, one written without the national prefix of the passenger's country in
 * `withoutPrefix`. Digits valid in none of them are tried once more as international (Excel drops
 * the + of number cells), and say so in `international`; a number with its area code in brackets
 * is national, and never read that way.
 */
export function normalizePhone(value: unknown, options: { regions?: readonly PhoneRegion[] } = {}): PhoneReading {
  const regions = options.regions ?? [];
  const expected = 'expected a telephone number with its country code, such as +44 7911 123456';
  let text = textOf(value);
  if (text === undefined) return { ok: false, message: `${expected}, got ${describe(value)}` };
  text = text.replace(/^tel:/i, '').trim();
  if (!PHONE_CHARACTERS.test(text)) return { ok: false, message: `${expected}, got ${describe(value)}` };
  if (text.startsWith('00')) text = `+${text.slice(2)}`;
  if (text.startsWith('+')) {
    const phone = toE164(text);
    return phone ? { ok: true, value: phone === text ? text : phone } : { ok: false, message: `${expected}, got ${describe(value)}: it is not a valid number of any country` };
  }
  const seen = new Set<CountryCode>();
  for (const candidate of regions) {
    if (seen.has(candidate.region)) continue;
    seen.add(candidate.region);
    const parsed = validNumber(text, candidate.region);
    if (!parsed) continue;
    if (candidate.source === 'default') return { ok: true, value: parsed.number, assumed: candidate };
    const prefix = omittedPrefix(parsed, text);
    return prefix ? { ok: true, value: parsed.number, withoutPrefix: { region: candidate, prefix } } : { ok: true, value: parsed.number };
  }
  // Brackets mark an area code: a national number, never an international one that lost its +.
  const digits = text.replace(/\D/g, '');
  const international = digits.length >= 8 && !/[()]/.test(text) ? toE164(`+${digits}`) : undefined;
  if (international) return { ok: true, value: international, international: true };
  const tried = regions.length
    ? `; without a country code it was tried as a number of ${regionList(regions)}, and is valid in none`
    : "; a number without a country code needs the passenger's nationality, issuing state or country of birth, or a default region";
  return { ok: false, message: `${expected}, got ${describe(value)}${tried}` };
}

/**
 * A number the user probably meant, for a phone `normalizePhone` could not read in `regions`, where
 * one can honestly be derived; undefined otherwise. Candidates: the number in one of `otherRegions`
 * (countries the passenger's row names but that were not read, such as a misspelt nationality that
 * has a suggestion); digits whose leading 0 a number cell dropped (`612345678` for a French
 * passenger: 0612345678); an international number whose prefix lost a digit or came in a foreign
 * form (`0 44 …` for 00 44 …, the North American `011 44 …`, `+0044 …`); the trunk 0 written after the country
 * code (`+44 (0)7911 123456`). Only when exactly one valid number comes out of them is it offered:
 * two are a guess.
 */
export function suggestPhone(value: unknown, regions: readonly PhoneRegion[], otherRegions: readonly CountryCode[] = []): string | undefined {
  let text = textOf(value)?.replace(/^tel:/i, '').trim();
  if (text === undefined || !PHONE_CHARACTERS.test(text)) return undefined;
  const digits = text.replace(/\D/g, '');
  const found = new Set<string>();
  const add = (phone: string | undefined) => {
    if (phone) found.add(phone);
  };
  if (text.startsWith('00')) text = `+${text.slice(2)}`;
  if (text.startsWith('+')) {
    // `+0044 …`, `+044 …`: the 00 prefix kept after the +.
    const international = digits.replace(/^0+/, '');
    if (international !== digits) add(toE164(`+${international}`));
    for (let codeLength = 1; codeLength <= 3; codeLength += 1) {
      if (international[codeLength] === '0') add(toE164(`+${international.slice(0, codeLength)}${international.slice(codeLength + 1)}`));
    }
  } else {
    for (const region of otherRegions) add(toE164(text, region));
    if (!digits.startsWith('0')) for (const { region } of regions) add(toE164(`0${digits}`, region));
    if (/^0[1-9]/.test(digits)) add(toE164(`+${digits.slice(1)}`));
    if (digits.startsWith('011')) add(toE164(`+${digits.slice(3)}`));
  }
  return found.size === 1 ? [...found][0] : undefined;
}

/** The countries a passenger's phone number without a country code is tried in, in order. */
export function phoneRegionsOf(fields: Record<string, unknown>, defaultRegion?: CountryCode): PhoneRegion[] {
  const regions: PhoneRegion[] = [];
  for (const source of ['nazionalita', 'issuingstate', 'luogonascita'] as const) {
    const code = fields[source];
    if (typeof code === 'string' && isPhoneRegion(code)) regions.push({ region: code, source });
  }
  if (defaultRegion) regions.push({ region: defaultRegion, source: 'default' });
  return regions;
}

const WRITE_COUNTRY_CODE = 'If that is wrong, write the number with its country code';

/** The warning for a number read through a guess (`PhoneReading`), or undefined when it took none. */
export function phoneNote(raw: unknown, reading: Extract<PhoneReading, { ok: true }>, regions: readonly PhoneRegion[]): string | undefined {
  if (reading.assumed) return assumedRegionNote(raw, reading.value, reading.assumed, regions);
  const guess = phoneGuess(reading, regions);
  return guess && `${describe(raw)} ${guess}. ${WRITE_COUNTRY_CODE}`;
}

/** What a reading in the passenger's country without its prefix, or as international, guessed (the note's words after the number). */
function phoneGuess(reading: Extract<PhoneReading, { ok: true }>, regions: readonly PhoneRegion[]): string | undefined {
  if (reading.withoutPrefix) {
    const { region, prefix } = reading.withoutPrefix;
    const sources = regions.filter((r) => r.region === region.region && r.source !== 'default');
    return `is written without the national prefix ${prefix} of ${region.region} numbers; read as a number of the passenger's ${regionList(sources)}: ${reading.value}`;
  }
  if (reading.international) {
    const own = regions.length ? `is not a valid number of the passenger's ${regionList(regions)}` : 'names no country';
    return `has no country code and ${own}; read as the international number ${reading.value}, as if a number cell had dropped its +`;
  }
  return undefined;
}

/** The warning for a number read through the default region. */
export function assumedRegionNote(raw: unknown, phone: string, assumed: PhoneRegion, ownRegions: readonly PhoneRegion[]): string {
  const own = ownRegions.filter((r) => r.source !== 'default');
  const why = own.length ? `is not a valid number of the passenger's ${regionList(own)}` : 'has no country code and the passenger has no country';
  // A default region shares its country code with others (US with Canada): the number's own country is named.
  const country = parsePhoneNumberFromString(phone)?.country ?? assumed.region;
  const where = country === assumed.region ? `${countryName(country)} (${country}, the default region)` : `${countryName(country)} (${country}), through the default region ${assumed.region}`;
  return `${describe(raw)} ${why}; read as a number of ${where}: ${phone}. If that is wrong, write the number with its country code`;
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
  if (FORMULA_START.test(text)) return fail(`${expected}, got ${describe(value)}: an address cannot start with =, +, - or @ (a spreadsheet opening an export would run it as a formula)`);
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
  mannlich: 'M',
  maennlich: 'M',
  weiblich: 'F',
  masculin: 'M',
  homme: 'M',
  feminin: 'F',
  femme: 'F',
  i: 'I',
};

/** M, F or I, also from the words in English, Italian, German and French (male, maschio, männlich, masculin…). */
export const normalizeGender = memoized(function normalizeGender(value: unknown): Normalized<GenderCode> {
  const code = typeof value === 'string' ? GENDERS[foldText(value)] : undefined;
  return code ? ok(code) : fail(`expected M (male), F (female) or I (also male, maschio, männlich, homme, female, femmina, weiblich, femme), got ${describe(value)}`);
});

const YES = new Set(['yes', 'y', 'si', 'ja', 'oui', 'true', 't', '1', 'x']);
const NO = new Set(['no', 'n', 'nein', 'non', 'false', 'f', '0']);
/** Marks of a ticked box (a tick, a ticked or crossed box, a plus) and of an empty one (an empty box, a dash). */
const TICKED = new Set(['✓', '✔', '☑', '✅', '☒', '+']);
const UNTICKED = new Set(['☐', '-', '–', '—']);

/**
 * true / false from a boolean, 1 / 0, yes, no (also in Italian, German and French), x, true, false,
 * or a tick mark; empty means no. A cross (✗, ✘) is refused: beside ticks it means no, alone it
 * means ticked, and which one a list meant cannot be told from one cell.
 */
export const normalizeInfantFlag = memoized(function normalizeInfantFlag(value: unknown): Normalized<boolean> {
  if (typeof value === 'boolean') return ok(value);
  if (value === 1 || value === 0) return ok(value === 1);
  if (typeof value === 'string') {
    const text = value.trim();
    if (text === '' || UNTICKED.has(text)) return ok(false);
    if (TICKED.has(text)) return ok(true);
    const key = foldText(text);
    if (YES.has(key)) return ok(true);
    if (NO.has(key)) return ok(false);
  }
  return fail(`expected yes or no (also sì, ja, oui, x, ✓, true, false, 1, 0, or empty for no), got ${describe(value)}`);
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
  date_born: { normalize: (v, o) => normalizeDate(v, { order: o.dateOrders?.date_born }) },
  luogonascita: { normalize: normalizeCountry },
  nazionalita: { normalize: normalizeCountry },
  typedoc: { normalize: normalizeDocumentType },
  numberdoc: { normalize: normalizeDocumentNumber },
  scadenza: { normalize: (v, o) => normalizeDate(v, { order: o.dateOrders?.scadenza }) },
  issuingstate: { normalize: normalizeCountry },
  email: { empty: null, normalize: normalizeEmail },
  // Read in normalizePassengerInto, which knows the passenger's countries.
  phone: { empty: null, normalize: (v, o) => normalizePhone(v, { regions: phoneRegionsOf({}, o.defaultPhoneRegion) }) },
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

/** Every field in place and unset, in the rules' order: copied, it gives every passenger one object shape. */
const UNSET_FIELDS = Object.fromEntries(FIELD_NAMES.map((field) => [field, undefined])) as Record<PassengerFieldName, undefined>;

function unsetFields(): Record<PassengerFieldName, undefined> {
  return { ...UNSET_FIELDS };
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
  notes?: FieldNote[],
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
    let result: Normalized<unknown>;
    if (field === 'phone') {
      // Countries come before the phone in RULES: the passenger's own are known by now.
      const regions = phoneRegionsOf(target, options.defaultPhoneRegion);
      const phone = normalizePhone(value, { regions });
      // A reader that hears no notes (the JSON push: its stored list keeps no trace of a guess) takes no guess.
      const guess = phone.ok && !notes ? phoneGuess(phone, regions) : undefined;
      if (guess) result = fail(`expected a telephone number with its country code, such as +44 7911 123456, got ${describe(value)}, which ${guess}: a guess a push does not take`);
      else {
        const note = phone.ok && notes ? phoneNote(value, phone, regions) : undefined;
        if (note) notes?.push({ field, value, message: note });
        result = phone;
      }
    } else if ((field === 'date_born' || field === 'scadenza') && !options.dateOrders && textDateOrders(value) === 'both') {
      // A reader with no column to tell the order (the JSON push) takes no guess.
      const dayFirst = normalizeDate(value, { order: 'DMY' });
      const monthFirst = normalizeDate(value, { order: 'MDY' });
      result = fail(`expected a date as YYYY-MM-DD, got ${describe(value)}, which reads both day first (${dayFirst.ok ? dayFirst.value : ''}) and month first (${monthFirst.ok ? monthFirst.value : ''}): write it as YYYY-MM-DD`);
    } else result = normalize(value, options);
    if (result.ok && notes && (field === 'nazionalita' || field === 'issuingstate' || field === 'luogonascita')) {
      const reading = typeof value === 'string' ? readCountry(value) : undefined;
      if (reading?.language && typeof value === 'string') {
        notes.push({ field, value, message: `"${value.trim()}" was read as ${reading.alpha2} (${countryName(reading.alpha2)}), its ${languageName(reading.language)} name` });
      }
    }
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
