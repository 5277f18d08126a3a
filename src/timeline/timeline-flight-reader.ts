import { deserialize, type Document } from 'bson';

/**
 * One flight of the timeline's aggregate (the fields of FLIGHT_PROJECTION and the joined
 * `passengerList: [{passengerCount}]`) as the timeline shows it: plain values, no nested objects,
 * no `Date`. The reader fills one such record per read and the service copies it into an entry, so
 * a flight costs its entry and its strings, nothing else.
 */
export interface TimelineFlightFields {
  flightId: number;
  flightNumber: string;
  resourceId: number;
  departureIcao: string;
  /** Milliseconds since 1970 (UTC). */
  departureAt: number;
  arrivalIcao: string;
  arrivalAt: number;
  /** The flight's own colours; undefined where it sets none (its resource's then apply). */
  background: string | undefined;
  text: string | undefined;
  border: string | undefined;
  /** The joined list's count; 0 without a list. */
  passengerCount: number;
}

/** A record to fill (one per read: each flight overwrites the last). */
export function emptyTimelineFlight(): TimelineFlightFields {
  return { flightId: 0, flightNumber: '', resourceId: 0, departureIcao: '', departureAt: 0, arrivalIcao: '', arrivalAt: 0, background: undefined, text: undefined, border: undefined, passengerCount: 0 };
}

/**
 * Reads one flight straight from its BSON bytes into `into` and returns it. `bson`'s `deserialize`
 * is general: it allocates many times the document's size (per-call options, a frame per nested
 * document, a string per key, a Long and a Date per date), and a general reader of the decoded
 * shape still made an object per nested document and a Date per time (figures: docs/performance.md,
 * "Figures behind the code"). This one knows the
 * fields, in any order, with the element types they are stored with (strings, int32 and double
 * numbers, dates, the nested documents, null colours); a document holding anything else (an int64,
 * another field, a missing field, a malformed length, invalid UTF-8) is handed to `deserialize`
 * whole and read by `timelineFlightFields`, so the result never depends on which path read it
 * (test/timeline/timeline-flight-reader.test.ts compares both).
 */
export function readTimelineFlight(bytes: Uint8Array, into: TimelineFlightFields): TimelineFlightFields {
  return readKnownFlight(bytes, into) ? into : timelineFlightFields(deserialize(bytes), into);
}

/**
 * The same fields from a decoded flight (the path of documents the fast reader leaves, and of
 * results the driver's cursor decoded). A time that is not a valid date is refused: a stored flight
 * without its times cannot be drawn, and a timeline must not show "NaN" for one.
 */
export function timelineFlightFields(flight: Document, into: TimelineFlightFields): TimelineFlightFields {
  const departure = flight.departure as Document | undefined;
  const arrival = flight.arrival as Document | undefined;
  const colours = flight.colours as Document | null | undefined;
  const joined = flight.passengerList as Array<Document | undefined> | undefined;
  into.flightId = flight.flightId as number;
  into.flightNumber = flight.flightNumber as string;
  into.resourceId = flight.resourceId as number;
  into.departureIcao = departure?.icao as string;
  into.departureAt = timeOf(departure?.at, 'departure.at', flight.flightId);
  into.arrivalIcao = arrival?.icao as string;
  into.arrivalAt = timeOf(arrival?.at, 'arrival.at', flight.flightId);
  into.background = (colours?.background as string | null | undefined) ?? undefined;
  into.text = (colours?.text as string | null | undefined) ?? undefined;
  into.border = (colours?.border as string | null | undefined) ?? undefined;
  into.passengerCount = (joined?.[0]?.passengerCount as number | null | undefined) ?? 0;
  return into;
}

function timeOf(value: unknown, field: string, flightId: unknown): number {
  const time = value instanceof Date ? value.getTime() : Number.NaN;
  if (Number.isNaN(time)) throw new Error(`flight ${String(flightId)}: stored ${field} is not a valid date`);
  return time;
}

/** BSON element types this reader decodes. */
const DOUBLE = 0x01;
const STRING = 0x02;
const DOCUMENT = 0x03;
const ARRAY = 0x04;
const DATE = 0x09;
const NULL = 0x0a;
const INT32 = 0x10;

/** The latest time a JavaScript Date holds (a stored date beyond it is read by the general path, which refuses it). */
const MAX_TIME = 8.64e15;

const key = (name: string) => Buffer.from(name, 'latin1');
// Top level.
const FLIGHT_ID = key('flightId');
const FLIGHT_NUMBER = key('flightNumber');
const RESOURCE_ID = key('resourceId');
const DEPARTURE = key('departure');
const ARRIVAL = key('arrival');
const COLOURS = key('colours');
const PASSENGER_LIST = key('passengerList');
// departure and arrival.
const ICAO = key('icao');
const AT = key('at');
// colours.
const BACKGROUND = key('background');
const TEXT = key('text');
const BORDER = key('border');
// An element of passengerList.
const PASSENGER_COUNT = key('passengerCount');

/** What a top-level read found of the fields a flight must have, one bit each. */
const HAS_FLIGHT_ID = 1;
const HAS_FLIGHT_NUMBER = 2;
const HAS_RESOURCE_ID = 4;
const HAS_DEPARTURE = 8;
const HAS_ARRIVAL = 16;
const REQUIRED = HAS_FLIGHT_ID | HAS_FLIGHT_NUMBER | HAS_RESOURCE_ID | HAS_DEPARTURE | HAS_ARRIVAL;

const float64 = new Float64Array(1);
const float64Bytes = new Uint8Array(float64.buffer);
const utf8 = new TextDecoder('utf-8', { fatal: true });

function int32At(bytes: Uint8Array, at: number): number {
  return bytes[at] | (bytes[at + 1] << 8) | (bytes[at + 2] << 16) | (bytes[at + 3] << 24);
}

function doubleAt(bytes: Uint8Array, at: number): number {
  for (let i = 0; i < 8; i += 1) float64Bytes[i] = bytes[at + i];
  return float64[0];
}

/** Whether the element name at [start, end) is `name`, byte by byte (no string made per element). */
function isKey(bytes: Uint8Array, start: number, end: number, name: Uint8Array): boolean {
  if (end - start !== name.length) return false;
  for (let i = 0; i < name.length; i += 1) if (bytes[start + i] !== name[i]) return false;
  return true;
}

/**
 * The reading position, and the name of the element just entered: the readers below share them
 * instead of returning pairs (no object per element; a read is synchronous, start to end).
 */
let at = 0;
let nameStart = 0;
let nameEnd = 0;

/** Enters the element at `at` (type byte, then its name): returns its type, leaves `at` on its value and `nameStart`/`nameEnd` on its name; -1 when the name runs past `end`. */
function enterElement(bytes: Uint8Array, end: number): number {
  const type = bytes[at];
  nameStart = at + 1;
  nameEnd = nameStart;
  while (nameEnd < end && bytes[nameEnd] !== 0) nameEnd += 1;
  if (nameEnd >= end - 1) return -1;
  at = nameEnd + 1;
  return type;
}

/** A number's value at `at` (int32 or double), moving past it; undefined for another type or a value past `end`. */
function numberValue(bytes: Uint8Array, type: number, end: number): number | undefined {
  if (type === INT32) {
    if (at + 4 > end) return undefined;
    const value = int32At(bytes, at);
    at += 4;
    return value;
  }
  if (type === DOUBLE) {
    if (at + 8 > end) return undefined;
    const value = doubleAt(bytes, at);
    at += 8;
    return value;
  }
  return undefined;
}

/** A string's value at `at`, moving past it; undefined for another type, a bad length or invalid UTF-8. */
function stringValue(bytes: Uint8Array, type: number, end: number): string | undefined {
  if (type !== STRING || at + 4 > end) return undefined;
  const length = int32At(bytes, at);
  const textStart = at + 4;
  const textEnd = textStart + length - 1;
  if (length < 1 || textEnd >= end || bytes[textEnd] !== 0) return undefined;
  at = textEnd + 1;
  return text(bytes, textStart, textEnd);
}

/** The end of a nested document or array whose value starts at `at`, or -1 when its length does not fit in `end`. */
function nestedEnd(bytes: Uint8Array, end: number): number {
  if (at + 5 > end) return -1;
  const nested = at + int32At(bytes, at);
  if (nested > end || nested < at + 5 || bytes[nested - 1] !== 0) return -1;
  return nested;
}

/** Reads a whole flight into `into`; false (and `into` half filled) when it is not of the known shape. Exported for its test. */
export function readKnownFlight(bytes: Uint8Array, into: TimelineFlightFields): boolean {
  const end = bytes.length;
  if (end < 5 || int32At(bytes, 0) !== end || bytes[end - 1] !== 0) return false;
  into.background = undefined;
  into.text = undefined;
  into.border = undefined;
  into.passengerCount = 0;
  let found = 0;
  // Values end before the document's closing 0.
  const last = end - 1;
  at = 4;
  while (at < last) {
    const type = enterElement(bytes, end);
    if (type < 0) return false;
    if (isKey(bytes, nameStart, nameEnd, FLIGHT_ID)) {
      const value = numberValue(bytes, type, last);
      if (value === undefined) return false;
      into.flightId = value;
      found |= HAS_FLIGHT_ID;
    } else if (isKey(bytes, nameStart, nameEnd, FLIGHT_NUMBER)) {
      const value = stringValue(bytes, type, last);
      if (value === undefined) return false;
      into.flightNumber = value;
      found |= HAS_FLIGHT_NUMBER;
    } else if (isKey(bytes, nameStart, nameEnd, RESOURCE_ID)) {
      const value = numberValue(bytes, type, last);
      if (value === undefined) return false;
      into.resourceId = value;
      found |= HAS_RESOURCE_ID;
    } else if (isKey(bytes, nameStart, nameEnd, DEPARTURE)) {
      if (type !== DOCUMENT || !readEndpoint(bytes, last, into, true)) return false;
      found |= HAS_DEPARTURE;
    } else if (isKey(bytes, nameStart, nameEnd, ARRIVAL)) {
      if (type !== DOCUMENT || !readEndpoint(bytes, last, into, false)) return false;
      found |= HAS_ARRIVAL;
    } else if (isKey(bytes, nameStart, nameEnd, COLOURS)) {
      // null: no colours of its own (as the record was reset to).
      if (type !== NULL && (type !== DOCUMENT || !readColours(bytes, last, into))) return false;
    } else if (isKey(bytes, nameStart, nameEnd, PASSENGER_LIST)) {
      if (type !== ARRAY || !readPassengerList(bytes, last, into)) return false;
    } else {
      return false;
    }
  }
  return at === last && found === REQUIRED;
}

/** `{icao, at}`, both required. */
function readEndpoint(bytes: Uint8Array, outerEnd: number, into: TimelineFlightFields, departure: boolean): boolean {
  const end = nestedEnd(bytes, outerEnd);
  if (end < 0) return false;
  const last = end - 1;
  let icao: string | undefined;
  let time: number | undefined;
  at += 4;
  while (at < last) {
    const type = enterElement(bytes, end);
    if (type < 0) return false;
    if (isKey(bytes, nameStart, nameEnd, ICAO)) {
      icao = stringValue(bytes, type, last);
      if (icao === undefined) return false;
    } else if (isKey(bytes, nameStart, nameEnd, AT)) {
      if (type !== DATE || at + 8 > last) return false;
      const low = int32At(bytes, at) >>> 0;
      const high = int32At(bytes, at + 4);
      time = high * 0x1_0000_0000 + low;
      if (time > MAX_TIME || time < -MAX_TIME) return false;
      at += 8;
    } else {
      return false;
    }
  }
  if (at !== last || icao === undefined || time === undefined) return false;
  at = end;
  if (departure) {
    into.departureIcao = icao;
    into.departureAt = time;
  } else {
    into.arrivalIcao = icao;
    into.arrivalAt = time;
  }
  return true;
}

/** `{background, text, border}`, each a string, null or absent. */
function readColours(bytes: Uint8Array, outerEnd: number, into: TimelineFlightFields): boolean {
  const end = nestedEnd(bytes, outerEnd);
  if (end < 0) return false;
  const last = end - 1;
  at += 4;
  while (at < last) {
    const type = enterElement(bytes, end);
    if (type < 0) return false;
    const value = type === NULL ? undefined : stringValue(bytes, type, last);
    if (value === undefined && type !== NULL) return false;
    if (isKey(bytes, nameStart, nameEnd, BACKGROUND)) into.background = value;
    else if (isKey(bytes, nameStart, nameEnd, TEXT)) into.text = value;
    else if (isKey(bytes, nameStart, nameEnd, BORDER)) into.border = value;
    else return false;
  }
  if (at !== last) return false;
  at = end;
  return true;
}

/** `[{passengerCount}, …]`: the first element's count (a number, null or absent) is the flight's. */
function readPassengerList(bytes: Uint8Array, outerEnd: number, into: TimelineFlightFields): boolean {
  const end = nestedEnd(bytes, outerEnd);
  if (end < 0) return false;
  const last = end - 1;
  let first = true;
  at += 4;
  while (at < last) {
    // Element names of an array ("0", "1", …) are not read: bson's deserialize numbers them itself.
    if (enterElement(bytes, end) !== DOCUMENT) return false;
    const elementEnd = nestedEnd(bytes, last);
    if (elementEnd < 0) return false;
    const elementLast = elementEnd - 1;
    at += 4;
    while (at < elementLast) {
      const type = enterElement(bytes, elementEnd);
      if (type < 0 || !isKey(bytes, nameStart, nameEnd, PASSENGER_COUNT)) return false;
      let count: number | undefined;
      if (type !== NULL) {
        count = numberValue(bytes, type, elementLast);
        if (count === undefined) return false;
      }
      if (first) into.passengerCount = count ?? 0;
    }
    if (at !== elementLast) return false;
    at = elementEnd;
    first = false;
  }
  if (at !== last) return false;
  at = end;
  return true;
}

/**
 * ASCII texts of up to 32 bytes met before, by a hash of their bytes (FNV-1a), one per slot: the
 * same flight numbers, airport codes and colour names come back flight after flight, and a text
 * found here costs a comparison instead of a new string (the entries then share it). A slot holds
 * the last text that hashed to it; bounded at 4,096 short strings.
 */
const TEXT_SLOTS = 4096;
const LONGEST_KEPT_TEXT = 32;
const knownTexts: Array<string | undefined> = new Array<string | undefined>(TEXT_SLOTS).fill(undefined);

/** UTF-8 text; undefined when it is not valid UTF-8 (bson's deserialize then refuses it as it would). */
function text(bytes: Uint8Array, start: number, end: number): string | undefined {
  const length = end - start;
  let hash = 0x811c9dc5;
  let high = 0;
  for (let i = start; i < end; i += 1) {
    const byte = bytes[i];
    high |= byte;
    hash = Math.imul(hash ^ byte, 0x01000193);
  }
  if (high >= 0x80 || length > LONGEST_KEPT_TEXT) return decoded(bytes, start, end, high < 0x80);
  const slot = hash & (TEXT_SLOTS - 1);
  const known = knownTexts[slot];
  if (known !== undefined && known.length === length) {
    let i = 0;
    while (i < length && known.charCodeAt(i) === bytes[start + i]) i += 1;
    if (i === length) return known;
  }
  const made = decoded(bytes, start, end, true)!;
  knownTexts[slot] = made;
  return made;
}

function decoded(bytes: Uint8Array, start: number, end: number, ascii: boolean): string | undefined {
  if (ascii && Buffer.isBuffer(bytes)) return bytes.toString('latin1', start, end);
  try {
    return utf8.decode(bytes.subarray(start, end));
  } catch {
    return undefined;
  }
}
