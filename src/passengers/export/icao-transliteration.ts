/**
 * Latin letters as ICAO Doc 9303 (Part 3, transliteration of Latin letters with diacritics)
 * writes them in the machine readable zone, where the letter is not simply the base letter with
 * its mark removed. The rest lose their marks (É → E, Ő → O, Ễ → E).
 */
const SPECIAL: Record<string, string> = {
  Ä: 'AE', Å: 'AA', Æ: 'AE', Ö: 'OE', Ø: 'OE', Ü: 'UE', ß: 'SS', ẞ: 'SS', Þ: 'TH', Ð: 'D', Đ: 'D', Ħ: 'H', Ł: 'L', Ŀ: 'L', Œ: 'OE', Ĳ: 'IJ', Ŧ: 'T', Ŋ: 'N', ı: 'I',
};

/**
 * A name in the upper-case letters, digits and spaces of the UNOA character set: ICAO 9303
 * transliteration, then hyphens and other punctuation as spaces and apostrophes dropped (as the
 * machine readable zone does, where both become the filler or nothing). Characters with no Latin
 * transliteration (Cyrillic, Greek…) are dropped; the import stores names in Latin letters.
 */
export function transliterateIcao(text: string): string {
  const upper = text.toUpperCase();
  let out = '';
  for (const char of upper) {
    const special = SPECIAL[char] ?? SPECIAL[char.toUpperCase()];
    if (special) {
      out += special;
      continue;
    }
    const base = char.normalize('NFD').replace(/\p{M}/gu, '');
    if (/^[A-Z0-9 ]$/.test(base)) out += base;
    else if (/['’‘`´]/.test(char)) continue;
    else out += ' ';
  }
  return out.replace(/\s+/g, ' ').trim();
}

/** The UNOA character set's punctuation (besides letters, digits and space); `'`, `+`, `:` and `?` are released when written. */
const UNOA_PUNCTUATION = new Set([...`.,-()/='+:?!"%&*;<>`]);

/**
 * Free text (a party's name) in UNOA: letters transliterated as for names, UNOA punctuation kept
 * (the writer releases the service characters among it), anything else a space.
 */
export function toUnoaText(text: string): string {
  let out = '';
  for (const char of text.toUpperCase()) {
    if (UNOA_PUNCTUATION.has(char)) out += char;
    else if (char === '’') out += "'";
    else out += transliterateIcao(char) || ' ';
  }
  return out.replace(/\s+/g, ' ').trim();
}
