import { randomInt } from 'node:crypto';
import countries from 'i18n-iso-countries';
import { unprocessable, type ErrorDetail } from '../../errors';
import type { ExportPassenger } from './export-columns';
import { cyrillicLanguageOf, describeCharacter, toUnoaText, transliterateIcao } from './icao-transliteration';
import type { ManifestEndpoint } from './passenger-pdf.writer';

/** Who sends the message to whom, and who reports (configuration: PAXLST_SENDER_ID…). */
export interface PaxlstParties {
  senderId: string;
  recipientId: string;
  reportingParty: string;
}

export interface PaxlstInput {
  parties: PaxlstParties;
  flightNumber: string;
  departure: ManifestEndpoint;
  arrival: ManifestEndpoint;
  producedAt: Date;
  passengers: readonly ExportPassenger[];
}

/** The release character `?` before each service character found in data (UNA:+.? '). */
const release = (text: string) => text.replace(/([?'+:])/g, '?$1');

/** A segment from its elements, each an array of components; trailing empty elements dropped. */
function segment(tag: string, ...elements: (string | string[])[]): string {
  const parts = elements.map((element) => (Array.isArray(element) ? element.map(release).join(':').replace(/:+$/, '') : release(element)));
  while (parts.length && parts[parts.length - 1] === '') parts.pop();
  return [tag, ...parts].join('+') + "'";
}

/** ISO 3166-1 alpha-3 of a stored alpha-2 code (PAXLST wants alpha-3); an unknown code is kept as stored. */
const alpha3 = (alpha2: string) => countries.alpha2ToAlpha3(alpha2) ?? alpha2;

/** `2026-12-15` → `261215` (the guide's DTM format for dates: YYMMDD). */
const yymmdd = (date: string) => date.slice(2).replace(/-/g, '');
/** `2026-12-15 08:00` (airport local time) → `2612150800` (format 201, YYMMDDHHMM). */
const localDateTime = (localTime: string) => localTime.replace(/\D/g, '').slice(2, 12);
/** The airport code of LOC: IATA, else the ICAO location indicator (airfields without an IATA code). */
const airportCode = (endpoint: ManifestEndpoint) => endpoint.airport?.iata || endpoint.icao;
/** ATT sex codes: M, F; the import's I (indeterminate) is written X, as in travel documents. */
const sexCode = (gender: string) => (gender === 'M' || gender === 'F' ? gender : 'X');
/**
 * The carrier of a flight number, for TDT's carrier identification (C040): three letters before
 * one to four digits (and an optional suffix letter) are an ICAO designator (`IFL100` → IFL), else
 * the first two characters, one a letter, an IATA one (`BA117`, `U21234`); none when the number has
 * neither shape, as a registration used as call sign (`N123AB`): then C040 is left out.
 */
export function carrierOf(flightNumber: string): string | undefined {
  const compact = flightNumber.replace(/\s/g, '').toUpperCase();
  return /^([A-Z]{3})\d{1,4}[A-Z]?$/.exec(compact)?.[1] ?? /^((?=[A-Z0-9]{0,1}[A-Z])[A-Z0-9]{2})\d{1,4}[A-Z]?$/.exec(compact)?.[1];
}

/** A passenger's name as NAD's party name components: surname, first given name, other given names. */
type PaxlstName = [surname: string, first: string, others: string];

/**
 * Characters one party name component holds: data element 3036 is an..70 in the D.05B directory
 * UNH declares (an..35 up to D.01B). C080 has five 3036 components, but PAXLST gives them meanings
 * (surname, first given name, other given names; 3045 code 1 makes the fourth a maiden name and the
 * fifth a title): a long part cannot run on into the next component.
 */
export const NAME_COMPONENT_MAX = 70;

const NAME_FIELDS = [
  { field: 'surname', label: 'surname' },
  { field: 'name', label: 'given names' },
] as const;

const listed = (rows: readonly number[]) => `${rows.length === 1 ? 'row' : 'rows'} ${rows.slice(0, 20).join(', ')}${rows.length > 20 ? '…' : ''}`;

/**
 * Each passenger's name transliterated for NAD (ICAO Doc 9303, with the Cyrillic exceptions of the
 * language of the document's issuing state), or a 422 listing every name PAXLST cannot carry whole:
 * one with characters that have no Latin form (Chinese, Japanese, Korean, Arabic, Hebrew, Greek
 * letters, emoji), or a part longer than a name component holds (NAME_COMPONENT_MAX). A name is
 * never written in part, nor cut.
 */
function paxlstNames(passengers: readonly ExportPassenger[]): PaxlstName[] {
  const untransliterable: ErrorDetail[] = [];
  const tooLong: ErrorDetail[] = [];
  const names = passengers.map((passenger, index): PaxlstName => {
    const language = cyrillicLanguageOf(passenger.issuingstate);
    const who = `Passenger ${index + 1} (id ${passenger.id})`;
    const [surname, given] = NAME_FIELDS.map(({ field, label }) => {
      const value = passenger[field];
      const { text, untransliterable: characters } = transliterateIcao(value, language);
      if (characters.length || !text) {
        const what = characters.length
          ? `has characters with no Latin transliteration in ICAO Doc 9303: ${characters.slice(0, 10).map(describeCharacter).join(', ')}${characters.length > 10 ? ` and ${characters.length - 10} more` : ''}`
          : 'has no letter PAXLST can write';
        untransliterable.push({
          field,
          id: passenger.id,
          row: index + 1,
          value,
          message: `${who}: ${label} "${value}" ${what}; store the name's Latin form as printed in the passport's machine-readable zone`,
        });
      }
      return text;
    });
    const [first = '', ...more] = given.split(' ');
    const name: PaxlstName = [surname, first, more.join(' ')];
    const parts = [
      { field: 'surname', label: 'surname is', value: passenger.surname },
      { field: 'name', label: 'first given name is', value: passenger.name },
      { field: 'name', label: 'given names after the first are', value: passenger.name },
    ];
    name.forEach((written, component) => {
      if (written.length <= NAME_COMPONENT_MAX) return;
      const { field, label, value } = parts[component];
      tooLong.push({
        field,
        id: passenger.id,
        row: index + 1,
        value,
        length: written.length,
        max: NAME_COMPONENT_MAX,
        message:
          `${who}: the ${label} ${written.length} characters as PAXLST writes it ("${written}"), over the ${NAME_COMPONENT_MAX} that one name component holds ` +
          `(C080 3036, an..${NAME_COMPONENT_MAX} in D.05B); store the name as printed in the passport's machine-readable zone`,
      });
    });
    return name;
  });
  if (untransliterable.length || tooLong.length) {
    const problems = [...untransliterable, ...tooLong].sort((a, b) => (a.row as number) - (b.row as number));
    const rows = [...new Set(problems.map((problem) => problem.row as number))];
    const rowsOf = (found: ErrorDetail[]) => {
      const numbers = [...new Set(found.map((problem) => problem.row as number))];
      return `${listed(numbers)} ${numbers.length === 1 ? 'has' : 'have'}`;
    };
    const reasons = [
      ...(untransliterable.length ? [`${rowsOf(untransliterable)} characters with no Latin transliteration in ICAO Doc 9303 (Chinese, Japanese, Korean, Arabic, Hebrew or Greek script, symbols)`] : []),
      ...(tooLong.length ? [`${rowsOf(tooLong)} a name part longer than the ${NAME_COMPONENT_MAX} characters one PAXLST name component holds`] : []),
    ];
    throw unprocessable(
      `PAXLST cannot carry the names of ${rows.length} passenger${rows.length === 1 ? '' : 's'} (${listed(rows)}): ${reasons.join('; ')}. A name is never sent in part or cut: ` +
        'store each name\'s Latin form as printed in the passport\'s machine-readable zone (push or upload the list again); the xlsx and csv exports keep every character as stored',
      problems,
    );
  }
  return names;
}

const BASE36_DIGITS = 7;
const base36 = (value: number) => value.toString(36).toUpperCase().padStart(BASE36_DIGITS, '0');

/**
 * The interchange control reference (UNB 0020, an..14), which EDIFACT wants unique for each
 * interchange from a sender, also the functional group's reference (UNG 0048, an..14) and repeated
 * by UNE and UNZ: seven characters of the production time (seconds since 1970 in base 36, so
 * references sort by time until the year 4453), then seven random ones (36^7, about 7.8 × 10^10
 * values, from the operating system's random source), all upper-case letters and digits (UNOA).
 * The time alone (YYMMDDHHMMSS) gave every file made in the same second, by any process, one
 * reference; two files in one second now share one with a chance of about 1 in 10^10.
 */
export function interchangeReference(producedAt: Date): string {
  return base36(Math.floor(producedAt.getTime() / 1000)).slice(-BASE36_DIGITS) + base36(randomInt(36 ** BASE36_DIGITS));
}

/**
 * A UN/EDIFACT PAXLST (D.05B, IATA's association code) for one flight leg, laid out as the
 * WCO/IATA/ICAO PAXLST Implementation Guide (6.0) frames its air-mode example: service string
 * advice, interchange header, functional group header, message header, BGM+745, the reporting
 * party (group 1), the flight with its carrier (group 2) and its departure and arrival places and
 * local times (group 3), then per passenger (group 4) NAD+FL, sex, date of birth, ports of
 * embarkation and debarkation, place of birth, nationality, and the travel document with its
 * expiry and issuing state (group 5); CNT+42 and trailers with their counts. UNOA: upper case,
 * names transliterated by ICAO Doc 9303 (a name with characters it gives no Latin form for is a
 * 422, see paxlstNames), service characters in data released with `?`.
 * test/rest-facade/passenger-paxlst.test.ts checks the structure against the guide's.
 */
export function writePassengerPaxlst(input: PaxlstInput): Buffer {
  const at = input.producedAt.toISOString();
  const date = at.slice(2, 10).replace(/-/g, '');
  const time = at.slice(11, 16).replace(':', '');
  const reference = interchangeReference(input.producedAt);
  const from = airportCode(input.departure);
  const to = airportCode(input.arrival);
  const names = paxlstNames(input.passengers);

  const message: string[] = [
    segment('UNH', '1', ['PAXLST', 'D', '05B', 'UN', 'IATA']),
    segment('BGM', '745'),
    segment('NAD', 'MS', '', '', toUnoaText(input.parties.reportingParty)),
    segment('TDT', '20', transliterateIcao(input.flightNumber).text, '', '', carrierOf(input.flightNumber) ?? ''),
    segment('LOC', '125', from),
    segment('DTM', ['189', localDateTime(input.departure.localTime), '201']),
    segment('LOC', '87', to),
    segment('DTM', ['232', localDateTime(input.arrival.localTime), '201']),
  ];
  input.passengers.forEach((passenger, index) => {
    message.push(
      segment('NAD', 'FL', '', '', names[index]),
      segment('ATT', '2', '', sexCode(passenger.gender)),
      segment('DTM', ['329', yymmdd(passenger.date_born)]),
      segment('LOC', '178', from),
      segment('LOC', '179', to),
      // Place of birth is a name (C517's fourth component); what is stored is the country of birth.
      segment('LOC', '180', ['', '', '', alpha3(passenger.luogonascita)]),
      segment('NAT', '2', alpha3(passenger.nazionalita)),
      // As stored: letters, digits, `-` and `/` (normalizeDocumentNumber), all of them UNOA characters.
      segment('DOC', passenger.typedoc === 'I' ? 'I' : 'P', toUnoaText(passenger.numberdoc)),
      segment('DTM', ['36', yymmdd(passenger.scadenza)]),
      segment('LOC', '91', alpha3(passenger.issuingstate)),
    );
  });
  message.push(segment('CNT', ['42', String(input.passengers.length)]));
  message.push(segment('UNT', String(message.length + 1), '1'));

  const interchange = [
    "UNA:+.? '",
    segment('UNB', ['UNOA', '4'], input.parties.senderId, input.parties.recipientId, [date, time], reference, '', 'APIS'),
    // The functional group the guide's examples put around the message (one group, one message).
    segment('UNG', 'PAXLST', input.parties.senderId, input.parties.recipientId, [date, time], reference, 'UN', ['D', '05B']),
    ...message,
    segment('UNE', '1', reference),
    segment('UNZ', '1', reference),
  ];
  return Buffer.from(interchange.join(''), 'ascii');
}
