import fc from 'fast-check';
import type { CountryCode } from 'libphonenumber-js/max';
import {
  normalizeCountry,
  normalizeDate,
  normalizeDocumentNumber,
  normalizeDocumentType,
  normalizeEmail,
  normalizeGender,
  normalizeInfantFlag,
  normalizePassenger,
  normalizePersonName,
  normalizePhone,
  normalizeRowReference,
  REQUIRED_PASSENGER_FIELDS,
  suggestPhone,
  textDateOrders,
  validatePassengerFields,
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

  it('reads Excel serial numbers in the 1900 and 1904 systems, dropping the time', () => {
    expect(valueOf(normalizeDate(29358))).toBe('1980-05-17');
    expect(valueOf(normalizeDate(29358.75))).toBe('1980-05-17');
    expect(valueOf(normalizeDate(61))).toBe('1900-03-01');
    expect(valueOf(normalizeDate(27896, { date1904: true }))).toBe('1980-05-17');
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
  ])('reads the infant flag %s as %s', (input, expected) => {
    expect(valueOf(normalizeInfantFlag(input))).toBe(expected);
  });

  it('refuses an infant flag it cannot read', () => {
    expect(messageOf(normalizeInfantFlag('maybe'))).toMatch(/expected yes or no/);
    expect(messageOf(normalizeInfantFlag(2))).toMatch(/expected yes or no/);
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
