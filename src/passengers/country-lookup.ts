import { closest, distance } from 'fastest-levenshtein';
import countries from 'i18n-iso-countries';
import english from 'i18n-iso-countries/langs/en.json';
import italian from 'i18n-iso-countries/langs/it.json';

/**
 * Names in common use that are not in the ISO tables. `UK` is an exceptionally reserved ISO code
 * that people write for GB; the parts of the United Kingdom appear on forms as countries.
 */
const EXTRA_NAMES: Record<string, string> = {
  uk: 'GB',
  england: 'GB',
  inghilterra: 'GB',
  scotland: 'GB',
  scozia: 'GB',
  wales: 'GB',
  galles: 'GB',
  northernireland: 'GB',
  irlandadelnord: 'GB',
  statiuniti: 'US',
  holland: 'NL',
  olanda: 'NL',
};

/** Lower case, accents removed, everything but letters and digits dropped: "Côte d'Ivoire" → "cotedivoire". */
export function foldText(text: string): string {
  return text
    .normalize('NFD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '');
}

/**
 * The key of a country name in any script: lower case, accents removed, everything but letters and
 * digits dropped ("Côte d'Ivoire" → "cotedivoire", "Германия" → "германия").
 */
function countryKey(text: string): string {
  return text
    .normalize('NFD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '');
}

/** The languages whose names are read without a warning (the list's documented ones). */
const HOME_LANGUAGES = ['en', 'it'];

/** Languages whose names come first among the others, most used in passenger lists first. */
const WIDELY_USED = ['de', 'fr', 'es', 'pt', 'nl', 'ru', 'pl', 'sv', 'da', 'nb', 'fi', 'el', 'tr', 'ar', 'zh', 'ja', 'uk', 'cs', 'ro', 'hu'];

interface CountryEntry {
  alpha2: string;
  /** The language of the name, when the name is read only through one of the other languages. */
  language?: string;
}

let byKey: Map<string, CountryEntry> | undefined;
/** English and Italian names that name two countries ("Congo": CG and CD), with the countries. */
const ambiguousNames = new Map<string, string[]>();

/**
 * Codes first, then English and Italian names (and the extra names), then the names of every
 * other language i18n-iso-countries carries (its Node entry registers them all). A name that the
 * other languages give to two different countries is left out: it would be a guess.
 */
function buildTable(): Map<string, CountryEntry> {
  countries.registerLocale(english);
  countries.registerLocale(italian);
  const table = new Map<string, CountryEntry>();
  const add = (name: string, alpha2: string) => {
    const key = countryKey(name);
    // Codes are added first, so a name never shadows a code.
    if (key && !table.has(key)) table.set(key, { alpha2 });
  };
  const alpha2Codes = Object.keys(countries.getAlpha2Codes());
  for (const alpha2 of alpha2Codes) add(alpha2, alpha2);
  for (const [alpha3, alpha2] of Object.entries(countries.getAlpha3Codes())) add(alpha3, alpha2);
  const codeKeys = new Set(table.keys());
  for (const lang of HOME_LANGUAGES) {
    for (const [alpha2, names] of Object.entries(countries.getNames(lang, { select: 'all' }))) {
      for (const name of names) {
        const key = countryKey(name);
        const owner = table.get(key);
        if (owner && owner.alpha2 !== alpha2 && !codeKeys.has(key)) ambiguousNames.set(key, [...new Set([...(ambiguousNames.get(key) ?? [owner.alpha2]), alpha2])]);
        add(name, alpha2);
      }
    }
  }
  // A name two countries share is a guess either way: it is not read (the message names both).
  for (const key of ambiguousNames.keys()) table.delete(key);
  for (const [name, alpha2] of Object.entries(EXTRA_NAMES)) add(name, alpha2);
  const foreign = new Map<string, CountryEntry | null>();
  // A name several languages share is told in the most widely used of them ("Alemania": Spanish, not Basque).
  const languages = countries.getSupportedLanguages().filter((lang) => !HOME_LANGUAGES.includes(lang));
  const rank = (lang: string) => (WIDELY_USED.includes(lang) ? WIDELY_USED.indexOf(lang) : WIDELY_USED.length);
  languages.sort((a, b) => rank(a) - rank(b));
  for (const lang of languages) {
    for (const [alpha2, names] of Object.entries(countries.getNames(lang, { select: 'all' }))) {
      for (const name of names) {
        const key = countryKey(name);
        if (!key || table.has(key) || ambiguousNames.has(key)) continue;
        const earlier = foreign.get(key);
        if (earlier === undefined) foreign.set(key, { alpha2, language: lang });
        else if (earlier !== null && earlier.alpha2 !== alpha2) foreign.set(key, null);
      }
    }
  }
  for (const [key, entry] of foreign) if (entry) table.set(key, entry);
  return table;
}

/**
 * ISO 3166-1 alpha-2 code for a country written as an alpha-2 or alpha-3 code or as its name in
 * any language i18n-iso-countries knows (any case, accents optional), or undefined.
 */
export function lookupCountry(text: string): string | undefined {
  return readCountry(text)?.alpha2;
}

/** As lookupCountry, with the language of the name when it is neither English nor Italian. */
export function readCountry(text: string): CountryEntry | undefined {
  byKey ??= buildTable();
  return byKey.get(countryKey(text));
}

/** The countries an English or Italian name is given to when it names more than one ("Congo": CG, CD). */
export function countriesNamed(text: string): string[] | undefined {
  byKey ??= buildTable();
  return ambiguousNames.get(countryKey(text));
}

/** The English name of a language code of i18n-iso-countries (`de` → "German"). */
export function languageName(code: string): string {
  try {
    return new Intl.DisplayNames(['en'], { type: 'language' }).of(code) ?? code;
  } catch {
    return code;
  }
}

/** The English short name of an ISO 3166-1 alpha-2 code (`GB` → "United Kingdom"), or the code itself. */
export function countryName(alpha2: string): string {
  byKey ??= buildTable();
  return countries.getName(alpha2, 'en') ?? alpha2;
}

/** The languages a misspelt name is compared in (a few thousand names: cheap to compare against). */
const SUGGESTION_LANGUAGES = ['en', 'it', 'de', 'fr', 'es'];
let suggestionKeys: { keys: string[]; alpha2: Map<string, string> } | undefined;
const suggested = new Map<string, string | null>();
const MAX_REMEMBERED = 10_000;

/**
 * The country a misspelt name probably means ("Deutchland" → DE): the nearest name in English,
 * Italian, German, French or Spanish by edit distance, when at most 2 letters (1 for a name of up
 * to 5) differ; undefined otherwise.
 */
export function suggestCountry(text: string): string | undefined {
  const key = countryKey(text);
  if (key.length < 4 || key.length > 60) return undefined;
  const known = suggested.get(key);
  if (known !== undefined) return known ?? undefined;
  if (!suggestionKeys) {
    byKey ??= buildTable();
    const alpha2 = new Map<string, string>();
    for (const lang of SUGGESTION_LANGUAGES) {
      for (const [code, names] of Object.entries(countries.getNames(lang, { select: 'all' }))) {
        for (const name of names) {
          const nameKey = countryKey(name);
          if (nameKey.length >= 4 && !alpha2.has(nameKey)) alpha2.set(nameKey, code);
        }
      }
    }
    suggestionKeys = { keys: [...alpha2.keys()], alpha2 };
  }
  const nearest = closest(key, suggestionKeys.keys);
  const found = distance(key, nearest) <= (key.length <= 5 ? 1 : 2) ? suggestionKeys.alpha2.get(nearest) : undefined;
  if (suggested.size >= MAX_REMEMBERED) suggested.clear();
  suggested.set(key, found ?? null);
  return found;
}
