/**
 * Latin letters as ICAO Doc 9303 (Part 3, transliteration of multinational Latin-based characters)
 * writes them in the machine readable zone, where the letter is not simply the base letter with
 * its mark removed. The rest lose their marks (É → E, Ő → O, Ễ → E).
 */
const LATIN: Record<string, string> = {
  Ä: 'AE', Å: 'AA', Æ: 'AE', Ö: 'OE', Ø: 'OE', Ü: 'UE', ß: 'SS', ẞ: 'SS', Þ: 'TH', Ð: 'D', Đ: 'D', Ħ: 'H', Ł: 'L', Ŀ: 'L', Œ: 'OE', Ĳ: 'IJ', Ŧ: 'T', Ŋ: 'N', ı: 'I',
};

/** The languages whose exceptions the Cyrillic table of Doc 9303 lists. */
export type CyrillicLanguage = 'bel' | 'bul' | 'mkd' | 'srp' | 'ukr';

/**
 * Cyrillic letters by the recommended transliteration of ICAO Doc 9303 Part 3 (transliteration of
 * Cyrillic characters), written from the table's mapping: the letter's Latin form in the machine
 * readable zone. Ь (soft sign) is not transliterated. The table's entry printed as Һ (C) is kept
 * as printed, and Ћ, the Serbian letter whose Latin form Ć that entry stands for, is C as well.
 */
const CYRILLIC: Record<string, string> = {
  А: 'A', Б: 'B', В: 'V', Г: 'G', Д: 'D', Е: 'E', Ё: 'E', Ж: 'ZH', З: 'Z', И: 'I', І: 'I', Й: 'I', К: 'K', Л: 'L', М: 'M',
  Н: 'N', О: 'O', П: 'P', Р: 'R', С: 'S', Т: 'T', У: 'U', Ф: 'F', Х: 'KH', Ц: 'TS', Ч: 'CH', Ш: 'SH', Щ: 'SHCH', Ы: 'Y',
  Ъ: 'IE', Ь: '', Э: 'E', Ю: 'IU', Я: 'IA', Ѵ: 'Y', Ґ: 'G', Ў: 'U', Ѫ: 'U', Ѓ: 'G', Ђ: 'D', Ѕ: 'DZ', Ј: 'J', Ќ: 'K',
  Љ: 'LJ', Њ: 'NJ', Һ: 'C', Ћ: 'C', Џ: 'DZ', Є: 'IE', Ї: 'I',
};

/**
 * The table's exceptions by language ("H in Belorussian", "SHT in Bulgarian"…). One is left out:
 * the table also gives Г as H in Serbian, where the Serbian Latin alphabet, which Serbian
 * passports print, has G (Горан is GORAN); Serbian Г stays G.
 */
const CYRILLIC_EXCEPTIONS: Record<CyrillicLanguage, Record<string, string>> = {
  bel: { Г: 'H', Ё: 'IO' },
  bul: { Щ: 'SHT' },
  mkd: { Х: 'H', Ц: 'C', Ѓ: 'GJ', Ќ: 'KJ', Џ: 'DJ' },
  srp: { Ж: 'Z', Х: 'H', Ц: 'C', Ч: 'C', Ш: 'S' },
  ukr: { И: 'Y' },
};

/**
 * The language whose exceptions apply to a name, by the issuing state of the passenger's travel
 * document (ISO 3166-1 alpha-2): the state that wrote the document's machine readable zone. Any
 * other state: the table's main column.
 */
const LANGUAGE_OF_ISSUING_STATE: Record<string, CyrillicLanguage> = { BY: 'bel', BG: 'bul', MK: 'mkd', RS: 'srp', UA: 'ukr' };

export const cyrillicLanguageOf = (issuingState: string | null | undefined): CyrillicLanguage | undefined =>
  issuingState ? LANGUAGE_OF_ISSUING_STATE[issuingState.toUpperCase()] : undefined;

/** What a transliteration made of a text, and the characters it has no Latin form for (each once, in order). */
export interface IcaoTransliteration {
  text: string;
  untransliterable: string[];
}

/** Apostrophes, which the machine readable zone leaves out (O'BRIEN → OBRIEN). */
const APOSTROPHES = new Set([...`'’‘\`´ʼ`]);

function letterOf(char: string, language: CyrillicLanguage | undefined): string | undefined {
  return LATIN[char] ?? (language ? CYRILLIC_EXCEPTIONS[language][char] : undefined) ?? CYRILLIC[char];
}

/**
 * A name in the upper-case letters, digits and spaces of the UNOA character set, by ICAO Doc 9303
 * Part 3: Latin letters with marks as its Latin table writes them (Ä → AE, Ł → L, the rest lose
 * their marks), Cyrillic letters by its Cyrillic table (with the exceptions of `language`), hyphens
 * and other punctuation as spaces, apostrophes left out (as the machine readable zone does, where
 * these become the filler or nothing). Doc 9303 gives no table for Greek, Hebrew, Chinese, Japanese
 * or Korean, and its Arabic table needs the vowels Arabic names are written without: characters of
 * those scripts, and symbols (emoji…), have no Latin form here. They are listed in
 * `untransliterable` and left out of `text`, which the caller must then not use as the name.
 */
export function transliterateIcao(value: string, language?: CyrillicLanguage): IcaoTransliteration {
  let out = '';
  const untransliterable = new Set<string>();
  for (const char of value.normalize('NFC').toUpperCase()) {
    const letter = letterOf(char, language);
    if (letter !== undefined) {
      out += letter;
      continue;
    }
    if (APOSTROPHES.has(char)) continue;
    const decomposed = char.normalize('NFD');
    const base = decomposed.replace(/\p{M}/gu, '');
    if (/^[A-Z0-9 ]$/.test(base)) out += base;
    // A letter with a mark the tables do not list (a stressed Cyrillic vowel, И̂): its base letter.
    else if (base !== decomposed && base.length === 1 && letterOf(base, language) !== undefined) out += letterOf(base, language);
    else if (/^[\p{P}\p{Z}]$/u.test(char)) out += ' ';
    // A combining mark on its own (a variation selector after an emoji): nothing to write.
    else if (/^\p{M}$/u.test(char)) continue;
    else untransliterable.add(char);
  }
  return { text: out.replace(/\s+/g, ' ').trim(), untransliterable: [...untransliterable] };
}

/** Scripts named when a refusal lists the characters without a Latin form. */
const SCRIPTS = ['Han', 'Hiragana', 'Katakana', 'Hangul', 'Arabic', 'Hebrew', 'Greek', 'Cyrillic', 'Latin', 'Thai', 'Devanagari', 'Bengali', 'Tamil', 'Armenian', 'Georgian', 'Ethiopic', 'Syriac', 'Thaana'].map(
  (name) => ({ name, pattern: new RegExp(`^\\p{Script=${name}}`, 'u') }),
);

/** What a character is, for a message: its script (`Han`), or `symbol`, and its code point (`小 (Han, U+5C0F)`). */
export function describeCharacter(char: string): string {
  const codePoint = char.codePointAt(0)!;
  const kind = SCRIPTS.find((script) => script.pattern.test(char))?.name ?? (/^\p{S}/u.test(char) ? 'symbol' : 'character');
  return `${char} (${kind}, U+${codePoint.toString(16).toUpperCase().padStart(4, '0')})`;
}

/** The UNOA character set's punctuation (besides letters, digits and space); `'`, `+`, `:` and `?` are released when written. */
const UNOA_PUNCTUATION = new Set([...`.,-()/='+:?!"%&*;<>`]);

/**
 * Free text (a party's name, a document number) in UNOA: letters transliterated as for names, UNOA
 * punctuation kept (the writer releases the service characters among it), anything else a space.
 */
export function toUnoaText(text: string): string {
  let out = '';
  for (const char of text.toUpperCase()) {
    if (UNOA_PUNCTUATION.has(char)) out += char;
    else if (char === '’') out += "'";
    else out += transliterateIcao(char).text || ' ';
  }
  return out.replace(/\s+/g, ' ').trim();
}
