import fc from 'fast-check';
import type { CountryCode } from 'libphonenumber-js/max';
import {
  assumedRegionNote,
  phoneNote,
  isPhoneRegion,
  normalizeCountry,
  normalizeDate,
  normalizeDocumentNumber,
  normalizeDocumentType,
  normalizeEmail,
  normalizeGender,
  normalizeInfantFlag,
  normalizePassenger,
  normalizePassengerInto,
  normalizePersonName,
  normalizePhone,
  normalizeRowReference,
  PASSENGER_FIELD_RULES,
  phoneRegionsOf,
  REQUIRED_PASSENGER_FIELDS,
  suggestPhone,
  textDateOrders,
  validatePassengerFields,
  type FieldProblem,
  type Normalized,
} from '../../src/passengers/passenger.normalize';

const TODAY = '2026-11-21';

function valueOf<T>(result: Normalized<T>): T {
  if (!result.ok) throw new Error(`expected a value, got the problem: ${result.message}`);
  return result.value;
}

function messageOf<T>(result: Normalized<T>): string {
  if (result.ok) throw new Error(`expected a problem, got the value ${JSON.stringify(result.value)}`);
  return result.message;
}

/** A passenger as the JSON push sends it. */
const pushed = {
  id: 12,
  idvolo: 7,
  surname: ' de  la Cruz ',
  name: 'maría josé',
  luogonascita: 'Spagna',
  nazionalita: 'ESP',
  typedoc: 'P',
  numberdoc: 'pa 123456',
  date_born: '1990-04-30',
  scadenza: '30/04/2030',
  issuingstate: 'Spain',
  email: 'Maria@Example.ES',
  phone: '+34 612 345 678',
  is_carring_infant: false,
  gender: 'F',
  parent_id: null,
  row_number_parent_id: null,
  row_number: 1,
};

describe('normalizePersonName', () => {
  it('trims, collapses inner spaces and upper-cases', () => {
    expect(valueOf(normalizePersonName('  de  la\tCruz '))).toBe('DE LA CRUZ');
    expect(valueOf(normalizePersonName('müller'))).toBe('MÜLLER');
    // Invisible characters pasted with a name (zero-width space, soft hyphen, direction mark, BOM) are dropped.
    expect(valueOf(normalizePersonName('\u200BSmith'))).toBe('SMITH');
    expect(valueOf(normalizePersonName('Mül\u00ADler'))).toBe('MÜLLER');
    expect(valueOf(normalizePersonName('Jürgen\u200E'))).toBe('JÜRGEN');
    expect(valueOf(normalizePersonName('\uFEFFAnna Maria'))).toBe('ANNA MARIA');
  });

  it('refuses text without letters and values that are not text', () => {
    expect(messageOf(normalizePersonName('123'))).toMatch(/letters/);
    expect(messageOf(normalizePersonName(true))).toMatch(/expected a name as text/);
    expect(messageOf(normalizePersonName('A'.repeat(101)))).toMatch(/at most 100/);
  });
});

describe('normalizeCountry', () => {
  it.each([
    ['IT', 'IT'],
    ['it', 'IT'],
    ['ITA', 'IT'],
    ['Italy', 'IT'],
    ['Italia', 'IT'],
    ['  germania ', 'DE'],
    ['Deutschland', 'DE'],
    ['Allemagne', 'DE'],
    ['Alemania', 'DE'],
    ['Германия', 'DE'],
    ['Atlantis', undefined],
    ['Côte d’Ivoire', 'CI'],
    ['Stati Uniti', 'US'],
    ["Stati Uniti d'America", 'US'],
    ['United States', 'US'],
    ['UK', 'GB'],
    ['Regno Unito', 'GB'],
    ['Svizzera', 'CH'],
  ])('reads %s as %s', (input, expected) => {
    const result = normalizeCountry(input);
    if (expected) expect(valueOf(result)).toBe(expected);
    else expect(messageOf(result)).toMatch(/ISO code or its name in a known language/);
  });

  it('says what is expected when the country is unknown', () => {
    expect(messageOf(normalizeCountry('Atlantis'))).toBe(
      'expected a country as an ISO code or its name in a known language (e.g. IT, ITA, Italy, Italia, Deutschland), got "Atlantis"',
    );
    expect(messageOf(normalizeCountry(39))).toMatch(/got 39/);
  });
});

describe('normalizeDate', () => {
  it('takes the UTC day of a date cell (no shift of a day)', () => {
    expect(valueOf(normalizeDate(new Date(Date.UTC(1980, 4, 17))))).toBe('1980-05-17');
    expect(valueOf(normalizeDate(new Date(Date.UTC(1980, 4, 17, 23, 59))))).toBe('1980-05-17');
  });

  it('refuses numbers: a number is a date only as a cell formatted as a date, which the sheet readers give as a Date', () => {
    // Serial numbers of date cells: test/passengers/sheet/number-formats.test.ts.
    expect(messageOf(normalizeDate(29358))).toBe('expected a date as YYYY-MM-DD, DD/MM/YYYY, DD-MM-YYYY or DD.MM.YYYY, got the number 29358');
    expect(messageOf(normalizeDate(1980))).toBe('expected a date as YYYY-MM-DD, DD/MM/YYYY, DD-MM-YYYY or DD.MM.YYYY, got the number 1980');
    expect(messageOf(normalizeDate(29358, { order: 'MDY' }))).toBe('expected a date as YYYY-MM-DD, MM/DD/YYYY, MM-DD-YYYY or MM.DD.YYYY, got the number 29358');
  });

  it.each([
    ['1980-05-17', '1980-05-17'],
    ['1980-5-7', '1980-05-07'],
    ['17/05/1980', '1980-05-17'],
    ['17-05-1980', '1980-05-17'],
    ['17.05.1980', '1980-05-17'],
    [' 7/5/1980 ', '1980-05-07'],
    ['29/02/2024', '2024-02-29'],
    // Year first is unambiguous (Gnumeric's CSV writes date cells as YYYY/MM/DD).
    ['1980/05/17', '1980-05-17'],
    ['1980.05.17', '1980-05-17'],
    ['1980/5/7', '1980-05-07'],
  ])('reads the text %s', (input, expected) => {
    expect(valueOf(normalizeDate(input))).toBe(expected);
  });

  it('reads a year-first date the same in a day-first and a month-first column, and it proves no order', () => {
    expect(valueOf(normalizeDate('1980/05/06', { order: 'MDY' }))).toBe('1980-05-06');
    expect(valueOf(normalizeDate('1980/05/06', { order: 'DMY' }))).toBe('1980-05-06');
    expect(textDateOrders('1980/05/17')).toBe('same');
  });

  it.each([
    ['31/02/2020', /not a real date: 2020-02 has 29 days/],
    ['29/02/2023', /2023-02 has 28 days/],
    ['2020-13-01', /has no month 13/],
    ['1980/17/05', /has no month 17/],
    ['1980/05-17', /expected a date as/],
    ['17/05/80', /expected a date as YYYY-MM-DD, DD\/MM\/YYYY, DD-MM-YYYY or DD.MM.YYYY/],
    ['17 May 1980', /expected a date as/],
    ['0980-05-17', /year from 1850 to 2200/],
    [3_000_000, /got the number 3000000/],
    [true, /expected a date as/],
  ])('refuses %s', (input, message) => {
    expect(messageOf(normalizeDate(input))).toMatch(message);
  });
});

describe('suggestPhone (the preview\'s suggestion for a number that could not be read)', () => {
  const own = (...regions: ('GB' | 'IT' | 'US' | 'FR')[]) => regions.map((region) => ({ region, source: 'nazionalita' as const }));

  it.each([
    ['an Italian landline whose leading 0 a number cell dropped', 612345678, own('IT'), '+390612345678'],
    ['a 00 prefix that lost a 0', '044 7911 123456', own('FR'), '+447911123456'],
    ['the 00 prefix kept after the +', '+0044 7911 123456', own('GB'), '+447911123456'],
    ['a trunk 0 kept after the country code', '+39 0 333 123 4567', own('IT'), '+393331234567'],
  ])('offers %s', (_what, value, regions, expected) => {
    expect(normalizePhone(value, { regions }).ok).toBe(false);
    expect(suggestPhone(value, regions)).toBe(expected);
  });

  it("offers a number of a country the row names but that was not read (a misspelt nationality's suggestion)", () => {
    expect(normalizePhone('030 1234567', { regions: [] }).ok).toBe(false);
    expect(suggestPhone('030 1234567', [], ['DE'])).toBe('+49301234567');
  });

  it('never throws, and offers only a number the rules read as it is (generated inputs, fixed seed)', () => {
    const phoneLike = fc.oneof(
      fc.stringMatching(/^(\+|00|0|011)?[0-9 ()./-]{0,18}$/),
      fc.string({ maxLength: 24 }),
      fc.integer({ min: 0, max: 99_999_999_999 }),
    );
    const region = fc.constantFrom<CountryCode>('IT', 'GB', 'US', 'FR', 'DE', 'IE', 'ES');
    let offered = 0;
    fc.assert(
      fc.property(phoneLike, fc.array(region, { maxLength: 3 }), fc.array(region, { maxLength: 2 }), (value, tried, other) => {
        const suggestion = suggestPhone(value, tried.map((r) => ({ region: r, source: 'nazionalita' as const })), other);
        if (suggestion === undefined) return;
        offered += 1;
        expect(normalizePhone(suggestion)).toEqual({ ok: true, value: suggestion });
      }),
      { numRuns: 2000, seed: 23 },
    );
    // The inputs reach the suggestions, so the property says something.
    expect(offered).toBeGreaterThan(20);
  });

  it('offers nothing where no honest suggestion exists: a number of a country the passenger is not linked to, or two candidates', () => {
    // An Italian mobile for an American passenger: valid only in a country the row does not name.
    expect(suggestPhone('347 123 4567', own('US'))).toBeUndefined();
    expect(suggestPhone('06 12 34 56 78', own('GB'))).toBeUndefined();
    // 0151 23456789 is a German mobile, and also 00 1 512 345 6789 (Texas) that lost a 0: two readings, no suggestion.
    expect(suggestPhone('0151 23456789', [], ['DE'])).toBeUndefined();
    expect(suggestPhone('12', own('IT'))).toBeUndefined();
    expect(suggestPhone('+39 333', own('IT'))).toBeUndefined();
    expect(suggestPhone('call me', own('IT'))).toBeUndefined();
  });
});

describe('normalizePhone', () => {
  it('keeps international numbers and writes them as E.164', () => {
    expect(valueOf(normalizePhone('+39 333 123 4567'))).toBe('+393331234567');
    expect(valueOf(normalizePhone('0044 7911 123456'))).toBe('+447911123456');
    expect(valueOf(normalizePhone('tel:+1 (202) 555-0143'))).toBe('+12025550143');
  });

  it("reads a number without a country code in the passenger's countries, in order, then the default region", () => {
    const own = (region: 'IT' | 'GB' | 'DE' | 'FR', source: 'nazionalita' | 'issuingstate' = 'nazionalita') => ({ region, source });
    expect(normalizePhone('333 1234567', { regions: [own('IT')] })).toEqual({ ok: true, value: '+393331234567' });
    expect(normalizePhone('07911 123456', { regions: [own('GB')] })).toEqual({ ok: true, value: '+447911123456' });
    expect(normalizePhone('0151 23456789', { regions: [own('DE')] })).toEqual({ ok: true, value: '+4915123456789' });
    expect(normalizePhone('06 12 34 56 78', { regions: [own('FR')] })).toEqual({ ok: true, value: '+33612345678' });
    // A German mobile is no Italian number: the issuing state comes next.
    expect(normalizePhone('0151 23456789', { regions: [own('IT'), own('DE', 'issuingstate')] })).toEqual({ ok: true, value: '+4915123456789' });
    expect(normalizePhone('202 555 0143', { regions: [own('FR'), { region: 'US', source: 'default' }] })).toEqual({
      ok: true,
      value: '+12025550143',
      assumed: { region: 'US', source: 'default' },
    });
  });

  it('refuses a number without a country code that no region given makes valid, naming the regions tried', () => {
    expect(messageOf(normalizePhone('333 1234567'))).toMatch(/needs the passenger's nationality, issuing state or country of birth, or a default region/);
    expect(messageOf(normalizePhone('0151 23456789', { regions: [{ region: 'FR', source: 'nazionalita' }] }))).toMatch(/tried as a number of FR \(nationality\), and is valid in none/);
  });

  it('restores the + that a numeric cell dropped', () => {
    expect(valueOf(normalizePhone(447911123456))).toBe('+447911123456');
    expect(valueOf(normalizePhone(393331234567))).toBe('+393331234567');
  });

  it('refuses what is not a telephone number', () => {
    expect(messageOf(normalizePhone('+39 333'))).toMatch(/expected a telephone number with its country code, such as \+44 7911 123456/);
    expect(messageOf(normalizePhone('+39 999 1234567'))).toMatch(/not a valid number of any country/);
    expect(messageOf(normalizePhone('call me'))).toMatch(/got "call me"/);
  });
});

describe('normalizeEmail', () => {
  it('accepts an address, drops mailto: and lower-cases the domain only', () => {
    expect(valueOf(normalizeEmail(' Mario.Rossi@Example.COM '))).toBe('Mario.Rossi@example.com');
    expect(valueOf(normalizeEmail('mailto:anna+list@example.co.uk?subject=hi'))).toBe('anna+list@example.co.uk');
  });

  it.each(['mario.rossi@example', 'mario rossi@example.com', '@example.com', 'a@b@example.com', 'a..b@example.com', 'x@-bad.com'])(
    'refuses %s',
    (input) => {
      expect(messageOf(normalizeEmail(input))).toMatch(/expected an e-mail address such as name@example.com/);
    },
  );
});

describe('codes', () => {
  it.each([
    ['P', 'P'],
    ['passport', 'P'],
    ['Passaporto', 'P'],
    ['I', 'I'],
    ['ID card', 'I'],
    ['Identity card', 'I'],
    ["Carta d'identità", 'I'],
    ['carta di identita', 'I'],
  ])('reads the document type %s as %s', (input, expected) => {
    expect(valueOf(normalizeDocumentType(input))).toBe(expected);
  });

  it('refuses an unknown document type, naming the codes', () => {
    expect(messageOf(normalizeDocumentType('visa'))).toBe('expected P (passport) or I (identity card), got "visa"');
  });

  it.each([
    ['M', 'M'],
    ['m', 'M'],
    ['Male', 'M'],
    ['maschio', 'M'],
    ['F', 'F'],
    ['female', 'F'],
    ['Femmina', 'F'],
    ['männlich', 'M'],
    ['Maennlich', 'M'],
    ['weiblich', 'F'],
    ['Homme', 'M'],
    ['masculin', 'M'],
    ['Femme', 'F'],
    ['féminin', 'F'],
    ['I', 'I'],
  ])('reads the gender %s as %s', (input, expected) => {
    expect(valueOf(normalizeGender(input))).toBe(expected);
  });

  it('refuses an unknown gender', () => {
    expect(messageOf(normalizeGender('X'))).toMatch(/expected M \(male\), F \(female\) or I/);
  });

  it.each([
    [true, true],
    [false, false],
    [1, true],
    [0, false],
    ['yes', true],
    ['Sì', true],
    ['si', true],
    ['x', true],
    ['TRUE', true],
    ['no', false],
    ['false', false],
    ['0', false],
    ['ja', true],
    ['Oui', true],
    ['nein', false],
    ['non', false],
    ['✓', true],
    ['✔', true],
    ['☑', true],
    ['☒', true],
    [' + ', true],
    ['☐', false],
    ['-', false],
    ['', false],
  ])('reads the infant flag %s as %s', (input, expected) => {
    expect(valueOf(normalizeInfantFlag(input))).toBe(expected);
  });

  it('refuses an infant flag it cannot read', () => {
    expect(messageOf(normalizeInfantFlag('maybe'))).toMatch(/expected yes or no/);
    expect(messageOf(normalizeInfantFlag(2))).toMatch(/expected yes or no/);
  });

  it('refuses a mark that is no tick and no word rather than reading it as empty, and a cross, which means yes alone and no beside ticks', () => {
    for (const mark of ['✗', '✘', '*', '?', '•']) expect(messageOf(normalizeInfantFlag(mark))).toMatch(/expected yes or no/);
  });

  it('upper-cases document numbers and drops spaces', () => {
    expect(valueOf(normalizeDocumentNumber(' ya 123 4567 '))).toBe('YA1234567');
    expect(valueOf(normalizeDocumentNumber(4455667))).toBe('4455667');
    expect(messageOf(normalizeDocumentNumber('YA#123'))).toMatch(/letters and digits/);
  });

  it('reads a row reference as a whole number from 1', () => {
    expect(valueOf(normalizeRowReference(3))).toBe(3);
    expect(valueOf(normalizeRowReference(' 12 '))).toBe(12);
    expect(messageOf(normalizeRowReference(0))).toMatch(/row number of another passenger/);
    expect(messageOf(normalizeRowReference(1.5))).toMatch(/row number of another passenger/);
    expect(messageOf(normalizeRowReference('row 2'))).toMatch(/row number of another passenger/);
  });
});

describe('normalizePassenger', () => {
  it('normalises a pushed JSON passenger, ignoring the list fields', () => {
    const { value, problems } = normalizePassenger(pushed, { today: TODAY });
    expect(problems).toEqual([]);
    expect(value).toEqual({
      surname: 'DE LA CRUZ',
      name: 'MARÍA JOSÉ',
      luogonascita: 'ES',
      nazionalita: 'ES',
      typedoc: 'P',
      numberdoc: 'PA123456',
      date_born: '1990-04-30',
      scadenza: '2030-04-30',
      issuingstate: 'ES',
      email: 'Maria@example.es',
      phone: '+34612345678',
      is_carring_infant: false,
      gender: 'F',
    });
  });

  it('is also exported as validatePassengerFields', () => {
    expect(validatePassengerFields).toBe(normalizePassenger);
  });

  it('gives empty optional fields their empty value', () => {
    const { value } = normalizePassenger({ ...pushed, email: '', phone: null, is_carring_infant: undefined }, { today: TODAY });
    expect(value).toMatchObject({ email: null, phone: null, is_carring_infant: false });
  });

  it('reports every missing required field and every bad value at once', () => {
    const { value, problems } = normalizePassenger(
      { surname: 'Rossi', date_born: '31/02/2020', nazionalita: 'Atlantis', email: 'nope' },
      { today: TODAY },
    );
    expect(value).toBeUndefined();
    expect(problems.map((p) => p.field).sort()).toEqual(
      [...REQUIRED_PASSENGER_FIELDS.filter((f) => f !== 'surname'), 'email'].sort(),
    );
    expect(problems.find((p) => p.field === 'date_born')).toEqual({
      field: 'date_born',
      value: '31/02/2020',
      message: '"31/02/2020" is not a real date: 2020-02 has 29 days',
    });
    expect(problems.find((p) => p.field === 'name')).toEqual({ field: 'name', value: null, message: 'a value is required' });
  });

  it('refuses an expiry date before the date of birth', () => {
    const { problems } = normalizePassenger({ ...pushed, scadenza: '1989-12-31' }, { today: TODAY });
    expect(problems).toEqual([
      {
        field: 'scadenza',
        value: '1989-12-31',
        message: 'the document expiry date 1989-12-31 is before the date of birth 1990-04-30',
      },
    ]);
  });

  it('refuses a birth date after today, with today passed in', () => {
    const born = { ...pushed, date_born: '2026-11-22', scadenza: '2031-01-01' };
    expect(normalizePassenger(born, { today: TODAY }).problems).toEqual([
      { field: 'date_born', value: '2026-11-22', message: 'the date of birth 2026-11-22 is in the future (today is 2026-11-21)' },
    ]);
    expect(normalizePassenger(born, { today: new Date(Date.UTC(2026, 10, 22)) }).problems).toEqual([]);
  });

  it('in partial mode checks only the fields given, and keeps absent ones absent', () => {
    const { value, problems } = normalizePassenger({ name: 'anna', phone: null }, { partial: true, today: TODAY });
    expect(problems).toEqual([]);
    expect(value).toEqual({ name: 'ANNA', phone: null });
  });

  it('in partial mode still refuses clearing a required field and still checks dates against each other', () => {
    expect(normalizePassenger({ surname: '' }, { partial: true }).problems).toEqual([
      { field: 'surname', value: '', message: 'a value is required' },
    ]);
    expect(
      normalizePassenger({ date_born: '2000-01-01', scadenza: '1999-01-01' }, { partial: true, today: TODAY }).problems,
    ).toEqual([expect.objectContaining({ field: 'scadenza' })]);
  });
});

describe('what a refusal quotes', () => {
  it('quotes text, cutting a long one, and names dates, numbers and structured values', () => {
    expect(messageOf(normalizeCountry('Atlantide'))).toMatch(/, got "Atlantide"$/);
    const sixty = 'x'.repeat(60);
    expect(messageOf(normalizeCountry(sixty))).toMatch(new RegExp(`, got "${sixty}"$`));
    expect(messageOf(normalizeCountry('y'.repeat(61)))).toMatch(new RegExp(`, got "${'y'.repeat(57)}\\.\\.\\."$`));
    expect(messageOf(normalizePersonName(new Date(Date.UTC(1980, 4, 17))))).toBe('expected a name as text, got 1980-05-17T00:00:00.000Z');
    expect(messageOf(normalizePersonName(new Date(Number.NaN)))).toBe('expected a name as text, got an invalid date');
    expect(messageOf(normalizeGender({ code: 'M' }))).toBe('expected M (male), F (female) or I (also male, maschio, männlich, homme, female, femmina, weiblich, femme), got a structured value');
    expect(messageOf(normalizeGender(3))).toBe('expected M (male), F (female) or I (also male, maschio, männlich, homme, female, femmina, weiblich, femme), got 3');
    expect(messageOf(normalizePersonName(Number.POSITIVE_INFINITY))).toBe('expected a name as text, got Infinity');
  });
});

describe('normalizePersonName, edges', () => {
  it('reads numbers as their text, composes accents and collapses every kind of white space', () => {
    expect(messageOf(normalizePersonName(1.5))).toBe('expected a name made of letters, got 1.5');
    expect(valueOf(normalizePersonName('Mu\u0308ller'))).toBe('M\u00dcLLER');
    expect(valueOf(normalizePersonName(' Anna\n\tMaria  Rossi '))).toBe('ANNA MARIA ROSSI');
  });

  it('takes up to 100 characters, counted after the spaces are collapsed', () => {
    expect(valueOf(normalizePersonName('A'.repeat(100)))).toHaveLength(100);
    expect(valueOf(normalizePersonName(`${'A'.repeat(50)}     ${'B'.repeat(49)}`))).toHaveLength(100);
    expect(messageOf(normalizePersonName('A'.repeat(101)))).toBe('expected at most 100 characters, got 101');
  });
});

describe('normalizeCountry, edges', () => {
  it('refuses a name two countries share, naming both, in any language it is written in', () => {
    for (const name of ['Congo', 'CONGO', ' congo ']) {
      expect(messageOf(normalizeCountry(name))).toBe(`"${name.trim()}" names 2 countries, CG (Republic of the Congo) and CD (Democratic Republic of the Congo): write the one meant as its code`);
    }
    expect(valueOf(normalizeCountry('Republic of the Congo'))).toBe('CG');
    expect(valueOf(normalizeCountry('Democratic Republic of the Congo'))).toBe('CD');
    expect(valueOf(normalizeCountry('CD'))).toBe('CD');
  });

  it('refuses what is no text, and empty text', () => {
    expect(messageOf(normalizeCountry(380))).toMatch(/got 380$/);
    expect(messageOf(normalizeCountry('   '))).toMatch(/got " {3}"$/);
    expect(valueOf(normalizeCountry('  it  '))).toBe('IT');
  });
});

describe('normalizeDate, edges', () => {
  it('takes years from 1850 to 2200 only', () => {
    expect(valueOf(normalizeDate('1850-01-01'))).toBe('1850-01-01');
    expect(valueOf(normalizeDate('31/12/2200'))).toBe('2200-12-31');
    expect(messageOf(normalizeDate('1849-12-31'))).toBe('expected a year from 1850 to 2200, got "1849-12-31"');
    expect(messageOf(normalizeDate('01/01/2201'))).toBe('expected a year from 1850 to 2200, got "01/01/2201"');
  });

  it('names the month or day that does not exist, with the formats of the order in force', () => {
    expect(messageOf(normalizeDate('1980-00-10'))).toBe('"1980-00-10" has no month 0; expected YYYY-MM-DD, DD/MM/YYYY, DD-MM-YYYY or DD.MM.YYYY');
    expect(messageOf(normalizeDate('13/05/1980', { order: 'MDY' }))).toBe('"13/05/1980" has no month 13; expected YYYY-MM-DD, MM/DD/YYYY, MM-DD-YYYY or MM.DD.YYYY');
    expect(messageOf(normalizeDate('1980-05-00'))).toBe('"1980-05-00" is not a real date: 1980-05 has 31 days');
    expect(messageOf(normalizeDate('31/04/1980'))).toBe('"31/04/1980" is not a real date: 1980-04 has 30 days');
    expect(valueOf(normalizeDate('31/12/1980'))).toBe('1980-12-31');
    expect(valueOf(normalizeDate('10/10/1980'))).toBe('1980-10-10');
    expect(valueOf(normalizeDate(new Date(Date.UTC(2010, 9, 10))))).toBe('2010-10-10');
    expect(valueOf(normalizeDate('1980-1-1'))).toBe('1980-01-01');
  });

  it('knows the leap years of the Gregorian calendar', () => {
    expect(valueOf(normalizeDate('29/02/2000'))).toBe('2000-02-29');
    expect(messageOf(normalizeDate('29/02/1900'))).toBe('"29/02/1900" is not a real date: 1900-02 has 28 days');
    expect(messageOf(normalizeDate('29/02/2100'))).toBe('"29/02/2100" is not a real date: 2100-02 has 28 days');
    expect(valueOf(normalizeDate('2096-02-29'))).toBe('2096-02-29');
    expect(valueOf(normalizeDate('28/02/2023'))).toBe('2023-02-28');
  });

  it('reads text month first when asked, in every separator, and says which formats it expected', () => {
    expect(valueOf(normalizeDate('05/17/1980', { order: 'MDY' }))).toBe('1980-05-17');
    expect(valueOf(normalizeDate('5-7-1980', { order: 'MDY' }))).toBe('1980-05-07');
    expect(valueOf(normalizeDate('1980-05-17', { order: 'MDY' }))).toBe('1980-05-17');
    expect(valueOf(normalizeDate('05/06/1980', { order: 'DMY' }))).toBe('1980-06-05');
    expect(messageOf(normalizeDate('17 May 1980', { order: 'MDY' }))).toBe('expected a date as YYYY-MM-DD, MM/DD/YYYY, MM-DD-YYYY or MM.DD.YYYY, got "17 May 1980"');
    expect(messageOf(normalizeDate('17/05-1980'))).toBe('expected a date as YYYY-MM-DD, DD/MM/YYYY, DD-MM-YYYY or DD.MM.YYYY, got "17/05-1980"');
    expect(messageOf(normalizeDate('x1980-05-17'))).toMatch(/^expected a date as/);
    expect(messageOf(normalizeDate('1980-05-17x'))).toMatch(/^expected a date as/);
    expect(messageOf(normalizeDate('117/05/1980'))).toMatch(/^expected a date as/);
    expect(messageOf(normalizeDate('17/05/19801'))).toMatch(/^expected a date as/);
  });

  it('refuses every number, a serial date or not', () => {
    for (const serial of [0, 0.99, -5, 1, 60, Number.NaN, Number.POSITIVE_INFINITY, 2_958_465, 2_958_466]) {
      expect(messageOf(normalizeDate(serial))).toBe(`expected a date as YYYY-MM-DD, DD/MM/YYYY, DD-MM-YYYY or DD.MM.YYYY, got the number ${serial}`);
    }
    expect(valueOf(normalizeDate('05/17/1980', { order: 'MDY' }))).toBe('1980-05-17');
  });

  it('refuses a date cell past the years it takes', () => {
    // 9999-12-31 is the last day Excel has: a date, but not a year a passenger's dates may hold.
    expect(messageOf(normalizeDate(new Date(Date.UTC(9999, 11, 31))))).toBe('expected a year from 1850 to 2200, got 9999-12-31T00:00:00.000Z');
  });

  it('refuses an invalid date cell', () => {
    expect(messageOf(normalizeDate(new Date(Number.NaN)))).toBe('expected a date as YYYY-MM-DD, DD/MM/YYYY, DD-MM-YYYY or DD.MM.YYYY, got an invalid date');
    expect(messageOf(normalizeDate(new Date(Date.UTC(1700, 0, 1))))).toBe('expected a year from 1850 to 2200, got 1700-01-01T00:00:00.000Z');
  });
});

describe('textDateOrders', () => {
  it.each([
    ['17/05/1980', 'DMY'],
    ['05/17/1980', 'MDY'],
    ['02/29/2024', 'MDY'],
    ['29/02/2024', 'DMY'],
    ['05/06/1980', 'both'],
    [' 5.6.1980 ', 'both'],
    ['12/12/1980', 'same'],
    ['1980-05-06', 'same'],
    ['31/31/1980', 'none'],
    ['29/02/2023', 'none'],
    ['00/05/1980', 'none'],
    ['01/05/1980', 'both'],
    ['05/01/1980', 'both'],
  ] as const)('reads %s as %s', (text, orders) => {
    expect(textDateOrders(text)).toBe(orders);
  });

  it('has no order to choose for a date cell or a number', () => {
    expect(textDateOrders(new Date(0))).toBe('same');
    expect(textDateOrders(31072)).toBe('same');
  });
});

describe('normalizePhone, edges', () => {
  it('accepts the characters people write numbers with, and TEL: in any case', () => {
    expect(valueOf(normalizePhone('TEL:+39 (333) 123.4567'))).toBe('+393331234567');
    expect(valueOf(normalizePhone('+39-333-123-4567'))).toBe('+393331234567');
    expect(valueOf(normalizePhone('+393331234567'))).toBe('+393331234567');
    expect(messageOf(normalizePhone('+39 333 123 4567 ext 5'))).toBe('expected a telephone number with its country code, such as +44 7911 123456, got "+39 333 123 4567 ext 5"');
    expect(messageOf(normalizePhone(true))).toBe('expected a telephone number with its country code, such as +44 7911 123456, got true');
  });

  it('refuses numbers of no country (+800) and says which countries a local number was tried in, once each', () => {
    expect(messageOf(normalizePhone('+800 1234 5678'))).toBe(
      'expected a telephone number with its country code, such as +44 7911 123456, got "+800 1234 5678": it is not a valid number of any country',
    );
    const regions = [
      { region: 'FR', source: 'nazionalita' },
      { region: 'FR', source: 'issuingstate' },
      { region: 'ES', source: 'luogonascita' },
      { region: 'PT', source: 'default' },
    ] as const;
    expect(messageOf(normalizePhone('0151 23456789', { regions }))).toBe(
      'expected a telephone number with its country code, such as +44 7911 123456, got "0151 23456789"; without a country code it was tried as a number of FR (nationality, issuing state), ES (country of birth), PT (default region), and is valid in none',
    );
  });

  it('tries digits as an international number only from 8 digits on, saying so', () => {
    expect(normalizePhone('3906 6988 4857')).toEqual({ ok: true, value: '+390669884857', international: true });
    expect(normalizePhone(50051234)).toEqual({ ok: true, value: '+50051234', international: true });
    // +683 4002 is a number of Niue, but seven digits without a + are no evidence of it.
    expect(messageOf(normalizePhone('683 4002'))).toMatch(/needs the passenger's nationality/);
  });

  it('reads tel: and 00 with spaces around them', () => {
    expect(valueOf(normalizePhone('tel: 0044 7911 123456'))).toBe('+447911123456');
    expect(messageOf(normalizePhone('x tel:+447911123456'))).toMatch(/^expected a telephone number/);
  });

  it('never reads a number with its area code in brackets as an international one that lost its +', () => {
    // (321) 234-5678 is a US-style number; as +32 12 34 56 78 it would be a Belgian one.
    expect(messageOf(normalizePhone('(321) 234-5678', { regions: [{ region: 'FR', source: 'nazionalita' }] }))).toMatch(/tried as a number of FR \(nationality\), and is valid in none/);
    expect(messageOf(normalizePhone('(604) 555-0134', { regions: [{ region: 'GB', source: 'nazionalita' }] }))).toMatch(/is valid in none/);
  });

  it("notes a number read in the passenger's country although written without that country's national prefix", () => {
    const gb = { region: 'GB', source: 'nazionalita' } as const;
    expect(normalizePhone('(207) 234-5678', { regions: [gb] })).toEqual({ ok: true, value: '+442072345678', withoutPrefix: { region: gb, prefix: '0' } });
    expect(normalizePhone(7911123456, { regions: [gb] })).toEqual({ ok: true, value: '+447911123456', withoutPrefix: { region: gb, prefix: '0' } });
    expect(normalizePhone('(617) 555-0199', { regions: [{ region: 'DE', source: 'issuingstate' }] })).toMatchObject({ ok: true, withoutPrefix: { prefix: '0' } });
    // National forms without a prefix to omit: a US number without its 1, an Italian one.
    expect(normalizePhone('(617) 555-0199', { regions: [{ region: 'US', source: 'nazionalita' }] })).toEqual({ ok: true, value: '+16175550199' });
    expect(normalizePhone('1 617 555 0199', { regions: [{ region: 'US', source: 'nazionalita' }] })).toEqual({ ok: true, value: '+16175550199' });
    expect(normalizePhone('020 7234 5678', { regions: [gb] })).toEqual({ ok: true, value: '+442072345678' });
  });

  it('words the warning of each guess', () => {
    const gb = { region: 'GB', source: 'nazionalita' } as const;
    const withoutPrefix = normalizePhone('(207) 234-5678', { regions: [gb] });
    expect(withoutPrefix.ok && phoneNote('(207) 234-5678', withoutPrefix, [gb])).toBe(
      '"(207) 234-5678" is written without the national prefix 0 of GB numbers; read as a number of the passenger\'s GB (nationality): +442072345678. If that is wrong, write the number with its country code',
    );
    const fr = { region: 'FR', source: 'nazionalita' } as const;
    const international = normalizePhone(447911123456, { regions: [fr] });
    expect(international.ok && phoneNote(447911123456, international, [fr])).toBe(
      "447911123456 has no country code and is not a valid number of the passenger's FR (nationality); read as the international number +447911123456, as if a number cell had dropped its +. If that is wrong, write the number with its country code",
    );
    const plain = normalizePhone('+44 7911 123456');
    expect(plain.ok && phoneNote('+44 7911 123456', plain, [])).toBeUndefined();
  });

  it('says nothing was assumed when the number is valid in one of the passenger\'s own countries', () => {
    expect(normalizePhone('333 1234567', { regions: [{ region: 'IT', source: 'issuingstate' }, { region: 'IT', source: 'default' }] })).toEqual({ ok: true, value: '+393331234567' });
  });
});

describe('phone regions and the note on an assumed region', () => {
  it("tries the nationality, the issuing state, the country of birth, then the default region", () => {
    expect(phoneRegionsOf({ luogonascita: 'ES', issuingstate: 'FR', nazionalita: 'IT' }, 'DE')).toEqual([
      { region: 'IT', source: 'nazionalita' },
      { region: 'FR', source: 'issuingstate' },
      { region: 'ES', source: 'luogonascita' },
      { region: 'DE', source: 'default' },
    ]);
    expect(phoneRegionsOf({ nazionalita: 'it', issuingstate: 'XX', luogonascita: 39 })).toEqual([]);
  });

  it('knows the numbering plans of upper-case country codes only', () => {
    expect(isPhoneRegion('IT')).toBe(true);
    expect(isPhoneRegion('it')).toBe(false);
    expect(isPhoneRegion('XX')).toBe(false);
    expect(isPhoneRegion('ITA')).toBe(false);
    expect(isPhoneRegion('xIT')).toBe(false);
  });

  it("names the passenger's countries the number is not valid in, or says the passenger has none", () => {
    const own = [{ region: 'FR', source: 'nazionalita' }, { region: 'US', source: 'default' }] as const;
    expect(assumedRegionNote('202 555 0143', '+12025550143', own[1], own)).toBe(
      '"202 555 0143" is not a valid number of the passenger\'s FR (nationality); read as a number of United States of America (US, the default region): +12025550143. If that is wrong, write the number with its country code',
    );
    // Canada shares the US country code: the note names the number's own country.
    expect(assumedRegionNote('(604) 555-0134', '+16045550134', own[1], own)).toBe(
      '"(604) 555-0134" is not a valid number of the passenger\'s FR (nationality); read as a number of Canada (CA), through the default region US: +16045550134. If that is wrong, write the number with its country code',
    );
    expect(assumedRegionNote(2025550143, '+12025550143', own[1], [own[1]])).toBe(
      '2025550143 has no country code and the passenger has no country; read as a number of United States of America (US, the default region): +12025550143. If that is wrong, write the number with its country code',
    );
  });
});

describe('normalizeEmail, edges', () => {
  it('drops a mailto: with spaces around it, only at the start', () => {
    expect(valueOf(normalizeEmail(' mailto:anna@example.com'))).toBe('anna@example.com');
    expect(valueOf(normalizeEmail('mailto: anna@example.com'))).toBe('anna@example.com');
    expect(messageOf(normalizeEmail('xmailto:anna@example.com'))).toMatch(/^expected an e-mail address/);
  });

  it('keeps an address as written when its domain is already lower case, and drops MAILTO: in any case', () => {
    expect(valueOf(normalizeEmail('MAILTO:Anna.Bianchi@example.it'))).toBe('Anna.Bianchi@example.it');
    expect(valueOf(normalizeEmail("o'brien+x@sub.example.travel"))).toBe("o'brien+x@sub.example.travel");
  });

  it('takes a local part of up to 64 characters and an address of up to 254', () => {
    const domain = `${'d'.repeat(60)}.${'e'.repeat(60)}.${'f'.repeat(60)}.example.com`;
    expect(valueOf(normalizeEmail(`${'l'.repeat(64)}@example.com`))).toHaveLength(76);
    expect(messageOf(normalizeEmail(`${'l'.repeat(65)}@example.com`))).toMatch(/^expected an e-mail address/);
    const at254 = `${'l'.repeat(254 - domain.length - 1)}@${domain}`;
    expect(at254).toHaveLength(254);
    expect(valueOf(normalizeEmail(at254))).toBe(at254);
    expect(messageOf(normalizeEmail(`l${at254}`))).toMatch(/^expected an e-mail address/);
  });

  it('refuses what is no address: no text, nothing before the @, dots out of place, odd domains', () => {
    for (const text of ['a@example.c', 'a@example.com.', '.a@example.com', 'a.@example.com', 'a@exa_mple.com', 'a@example.c0m', 'a@-example.com', 'a@example-.com', 'à@example.com', 'a@example', 'aexample.com', 'x a@example.com', 'a@example.com x']) {
      expect(messageOf(normalizeEmail(text))).toBe(`expected an e-mail address such as name@example.com, got "${text}"`);
    }
    expect(messageOf(normalizeEmail(42))).toBe('expected an e-mail address such as name@example.com, got 42');
    expect(valueOf(normalizeEmail(`a@${'b'.repeat(63)}.com`))).toBe(`a@${'b'.repeat(63)}.com`);
    expect(messageOf(normalizeEmail(`a@${'b'.repeat(64)}.com`))).toMatch(/^expected an e-mail address/);
    expect(valueOf(normalizeEmail('a@b.co'))).toBe('a@b.co');
  });
});

describe('codes, edges', () => {
  it.each([
    [' passport ', 'P'],
    ['PP', 'P'],
    ['National ID card', 'I'],
    ['CIE', 'I'],
    ["Carta d'identità elettronica", 'I'],
    ['ID', 'I'],
    ['Identity document', 'I'],
    ['National ID', 'I'],
    ['CI', 'I'],
    ['Carta identità', 'I'],
  ])('reads the document type %s as %s', (input, expected) => {
    expect(valueOf(normalizeDocumentType(input))).toBe(expected);
  });

  it('refuses a document type that is no text', () => {
    expect(messageOf(normalizeDocumentType(1))).toBe('expected P (passport) or I (identity card), got 1');
  });

  it.each([
    ['Uomo', 'M'],
    ['man', 'M'],
    ['Donna', 'F'],
    ['woman', 'F'],
    ['i', 'I'],
  ])('reads the gender %s as %s', (input, expected) => {
    expect(valueOf(normalizeGender(input))).toBe(expected);
  });

  it('reads an empty infant flag as no, and refuses anything else with the words it takes', () => {
    expect(valueOf(normalizeInfantFlag(''))).toBe(false);
    expect(valueOf(normalizeInfantFlag(' X '))).toBe(true);
    expect(valueOf(normalizeInfantFlag('y'))).toBe(true);
    expect(valueOf(normalizeInfantFlag('T'))).toBe(true);
    expect(valueOf(normalizeInfantFlag('1'))).toBe(true);
    expect(valueOf(normalizeInfantFlag('N'))).toBe(false);
    expect(valueOf(normalizeInfantFlag('f'))).toBe(false);
    expect(messageOf(normalizeInfantFlag(null))).toBe('expected yes or no (also sì, ja, oui, x, ✓, true, false, 1, 0, or empty for no), got a structured value');
  });

  it('takes document numbers of up to 30 letters, digits, - and /, starting with a letter or digit', () => {
    expect(valueOf(normalizeDocumentNumber('ab/12-3'))).toBe('AB/12-3');
    expect(valueOf(normalizeDocumentNumber('A'.repeat(30)))).toHaveLength(30);
    expect(messageOf(normalizeDocumentNumber('A'.repeat(31)))).toBe(`expected a document number of letters and digits (at most 30), got "${'A'.repeat(31)}"`);
    expect(messageOf(normalizeDocumentNumber('-123'))).toMatch(/letters and digits/);
    expect(messageOf(normalizeDocumentNumber('12.5'))).toMatch(/letters and digits/);
    expect(messageOf(normalizeDocumentNumber('   '))).toMatch(/letters and digits/);
    expect(messageOf(normalizeDocumentNumber(false))).toBe('expected a document number of letters and digits (at most 30), got false');
  });

  it('reads a row reference only from whole numbers from 1', () => {
    expect(valueOf(normalizeRowReference(1))).toBe(1);
    expect(valueOf(normalizeRowReference('7'))).toBe(7);
    expect(messageOf(normalizeRowReference('0'))).toBe('expected the row number of another passenger in the list (1 is the first passenger), got "0"');
    expect(messageOf(normalizeRowReference('1.5'))).toMatch(/row number of another passenger/);
    expect(messageOf(normalizeRowReference('2 3'))).toMatch(/row number of another passenger/);
    expect(messageOf(normalizeRowReference('x2'))).toMatch(/row number of another passenger/);
    expect(messageOf(normalizeRowReference('2x'))).toMatch(/row number of another passenger/);
    expect(messageOf(normalizeRowReference(true))).toMatch(/row number of another passenger/);
  });
});

describe('normalizePassenger, edges', () => {
  it('accepts an expiry on the day of birth and a birth today', () => {
    expect(normalizePassenger({ ...pushed, date_born: TODAY, scadenza: TODAY }, { today: TODAY }).problems).toEqual([]);
  });

  it("judges today from a Date's UTC day, and from now when none is given", () => {
    const born = { ...pushed, date_born: '2026-01-06', scadenza: '2031-01-01' };
    expect(normalizePassenger(born, { today: new Date(Date.UTC(2026, 0, 5, 23, 59)) }).problems).toEqual([
      { field: 'date_born', value: '2026-01-06', message: 'the date of birth 2026-01-06 is in the future (today is 2026-01-05)' },
    ]);
    expect(normalizePassenger({ ...pushed, date_born: '2199-01-01', scadenza: '2200-01-01' }).problems).toEqual([
      expect.objectContaining({ field: 'date_born', message: expect.stringMatching(/^the date of birth 2199-01-01 is in the future \(today is \d{4}-\d{2}-\d{2}\)$/) }),
    ]);
  });

  it('reports a required field given as undefined with the value null, and an empty one as given', () => {
    const { problems } = normalizePassenger({ ...pushed, name: undefined, surname: '  ' }, { today: TODAY });
    expect(problems).toEqual([
      { field: 'surname', value: '  ', message: 'a value is required' },
      { field: 'name', value: null, message: 'a value is required' },
    ]);
  });

  it('skips the date checks when a date is refused', () => {
    expect(normalizePassenger({ ...pushed, date_born: '2030-02-30', scadenza: '2020-01-01' }, { today: TODAY }).problems.map((p) => p.field)).toEqual(['date_born']);
    expect(normalizePassenger({ ...pushed, scadenza: 'soon' }, { today: TODAY }).problems.map((p) => p.field)).toEqual(['scadenza']);
  });

  it('reads each date field in its own order', () => {
    const { value } = normalizePassenger({ ...pushed, date_born: '04/05/1990', scadenza: '04/05/2030' }, { today: TODAY, dateOrders: { scadenza: 'MDY' } });
    expect(value).toMatchObject({ date_born: '1990-05-04', scadenza: '2030-04-05' });
    const other = normalizePassenger({ ...pushed, date_born: '04/05/1990', scadenza: '04/05/2030' }, { today: TODAY, dateOrders: { date_born: 'MDY' } });
    expect(other.value).toMatchObject({ date_born: '1990-04-05', scadenza: '2030-05-04' });
    expect(normalizePassenger({ ...pushed, date_born: 27896 }, { today: TODAY }).problems).toEqual([
      { field: 'date_born', value: 27896, message: 'expected a date as YYYY-MM-DD, DD/MM/YYYY, DD-MM-YYYY or DD.MM.YYYY, got the number 27896' },
    ]);
  });

  it("reads a local phone number in the passenger's countries, then the default region, with a note", () => {
    const local = { ...pushed, phone: '612 34 56 78' };
    expect(normalizePassenger(local, { today: TODAY }).value).toMatchObject({ phone: '+34612345678' });
    const notes: FieldProblem[] = [];
    const target: Record<string, unknown> = {};
    const problems: FieldProblem[] = [];
    normalizePassengerInto({ ...pushed, phone: '202 555 0143' }, target, { today: TODAY, defaultPhoneRegion: 'US' }, problems, notes);
    expect(problems).toEqual([]);
    expect(target.phone).toBe('+12025550143');
    expect(notes).toEqual([
      {
        field: 'phone',
        value: '202 555 0143',
        message: '"202 555 0143" is not a valid number of the passenger\'s ES (nationality, issuing state, country of birth); read as a number of United States of America (US, the default region): +12025550143. If that is wrong, write the number with its country code',
      },
    ]);
    // The phone rule alone (a partial record without countries) knows only the default region.
    expect(PASSENGER_FIELD_RULES.phone.normalize('202 555 0143', { defaultPhoneRegion: 'US' })).toEqual({ ok: true, value: '+12025550143', assumed: { region: 'US', source: 'default' } });
  });

  it('notes a country read from its name in another language, and only when notes are asked for', () => {
    const notes: FieldProblem[] = [];
    const target: Record<string, unknown> = {};
    normalizePassengerInto({ ...pushed, nazionalita: ' Spanien ', issuingstate: 'ES', luogonascita: 'Espagne' }, target, { today: TODAY }, [], notes);
    expect(target).toMatchObject({ nazionalita: 'ES', issuingstate: 'ES', luogonascita: 'ES' });
    expect(notes.map((n) => [n.field, n.message])).toEqual([
      ['luogonascita', '"Espagne" was read as ES (Spain), its French name'],
      ['nazionalita', '"Spanien" was read as ES (Spain), its German name'],
    ]);
    // A name refused makes no note; an English or Italian name and a code make none.
    const quiet: FieldProblem[] = [];
    normalizePassengerInto({ ...pushed, nazionalita: 'Spain', issuingstate: 'ESP', luogonascita: 'Atlantide' }, {}, { today: TODAY }, [], quiet);
    normalizePassengerInto({ ...pushed, nazionalita: 'Spagna', issuingstate: 'ES', luogonascita: 'ES' }, {}, { today: TODAY }, [], quiet);
    // A surname that happens to be a country's name in some language is a surname.
    normalizePassengerInto({ ...pushed, surname: 'Allemagne', name: 'Francia', nazionalita: 'ES', issuingstate: 'ES', luogonascita: 'ES' }, {}, { today: TODAY }, [], quiet);
    expect(quiet).toEqual([]);
    const issued: FieldProblem[] = [];
    normalizePassengerInto({ ...pushed, issuingstate: 'Espagne' }, {}, { today: TODAY }, [], issued);
    expect(issued.map((n) => n.field)).toEqual(['issuingstate']);
  });

  it('reads names in other languages and local numbers through the default region without notes when none are asked for', () => {
    const { value, problems } = normalizePassenger(
      { ...pushed, nazionalita: 'Spanien', issuingstate: 'Espagne', luogonascita: 'Spanje', phone: '202 555 0143' },
      { today: TODAY, defaultPhoneRegion: 'US' },
    );
    expect(problems).toEqual([]);
    expect(value).toMatchObject({ nazionalita: 'ES', issuingstate: 'ES', luogonascita: 'ES', phone: '+12025550143' });
  });

  it('in partial mode sets an optional field given as null to its empty value', () => {
    expect(normalizePassenger({ email: null, is_carring_infant: '' }, { partial: true }).value).toEqual({ email: null, is_carring_infant: false });
  });
});
