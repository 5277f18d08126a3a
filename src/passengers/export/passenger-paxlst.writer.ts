import countries from 'i18n-iso-countries';
import type { ExportPassenger } from './export-columns';
import { toUnoaText, transliterateIcao } from './icao-transliteration';
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
 * A UN/EDIFACT PAXLST (D.05B, IATA's association code) for one flight leg: service string
 * advice, interchange and message headers, BGM+745, the reporting party, the flight with its
 * departure and arrival places and local times, then per passenger NAD+FL, sex, date and country
 * of birth, ports of embarkation and debarkation, nationality, travel document with its expiry and
 * issuing state; CNT+42 and trailers with their counts. UNOA: upper case, names transliterated
 * by ICAO Doc 9303, service characters in data released with `?`.
 */
export function writePassengerPaxlst(input: PaxlstInput): Buffer {
  const at = input.producedAt.toISOString();
  const date = at.slice(2, 10).replace(/-/g, '');
  const time = at.slice(11, 16).replace(':', '');
  // Unique per second and readable: the production time, UTC.
  const reference = `${date}${time}${at.slice(17, 19)}`;
  const from = airportCode(input.departure);
  const to = airportCode(input.arrival);

  const message: string[] = [
    segment('UNH', '1', ['PAXLST', 'D', '05B', 'UN', 'IATA']),
    segment('BGM', '745'),
    segment('NAD', 'MS', '', '', toUnoaText(input.parties.reportingParty)),
    segment('TDT', '20', transliterateIcao(input.flightNumber)),
    segment('LOC', '125', from),
    segment('DTM', ['189', localDateTime(input.departure.localTime), '201']),
    segment('LOC', '87', to),
    segment('DTM', ['232', localDateTime(input.arrival.localTime), '201']),
  ];
  for (const passenger of input.passengers) {
    const [first = '', ...more] = transliterateIcao(passenger.name).split(' ');
    message.push(
      segment('NAD', 'FL', '', '', [transliterateIcao(passenger.surname), first, more.join(' ')]),
      segment('ATT', '2', '', sexCode(passenger.gender)),
      segment('DTM', ['329', yymmdd(passenger.date_born)]),
      segment('LOC', '178', from),
      segment('LOC', '179', to),
      segment('LOC', '180', alpha3(passenger.luogonascita)),
      segment('NAT', '2', alpha3(passenger.nazionalita)),
      segment('DOC', [passenger.typedoc === 'I' ? 'I' : 'P', '110', '111'], transliterateIcao(passenger.numberdoc)),
      segment('DTM', ['36', yymmdd(passenger.scadenza)]),
      segment('LOC', '91', alpha3(passenger.issuingstate)),
    );
  }
  message.push(segment('CNT', ['42', String(input.passengers.length)]));
  message.push(segment('UNT', String(message.length + 1), '1'));

  const interchange = [
    "UNA:+.? '",
    segment('UNB', ['UNOA', '4'], input.parties.senderId, input.parties.recipientId, [date, time], reference, '', 'APIS'),
    ...message,
    segment('UNZ', '1', reference),
  ];
  return Buffer.from(interchange.join(''), 'ascii');
}
