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

let byKey: Map<string, string> | undefined;

function buildTable(): Map<string, string> {
  countries.registerLocale(english);
  countries.registerLocale(italian);
  const table = new Map<string, string>();
  const add = (name: string, alpha2: string) => {
    const key = foldText(name);
    // Codes are added first, so a name never shadows a code.
    if (key && !table.has(key)) table.set(key, alpha2);
  };
  const alpha2Codes = Object.keys(countries.getAlpha2Codes());
  for (const alpha2 of alpha2Codes) add(alpha2, alpha2);
  for (const [alpha3, alpha2] of Object.entries(countries.getAlpha3Codes())) add(alpha3, alpha2);
  for (const lang of ['en', 'it']) {
    for (const [alpha2, names] of Object.entries(countries.getNames(lang, { select: 'all' }))) {
      for (const name of names) add(name, alpha2);
    }
  }
  for (const [name, alpha2] of Object.entries(EXTRA_NAMES)) add(name, alpha2);
  return table;
}

/**
 * ISO 3166-1 alpha-2 code for a country written as an alpha-2 or alpha-3 code or as an English or
 * Italian name (any case, accents optional), or undefined.
 */
export function lookupCountry(text: string): string | undefined {
  byKey ??= buildTable();
  return byKey.get(foldText(text));
}

/** The English short name of an ISO 3166-1 alpha-2 code (`GB` → "United Kingdom"), or the code itself. */
export function countryName(alpha2: string): string {
  byKey ??= buildTable();
  return countries.getName(alpha2, 'en') ?? alpha2;
}
