import { deserialize } from 'bson';

/**
 * Decodes one flight of the timeline's aggregate (the fields of FLIGHT_PROJECTION and the joined
 * `passengerList: [{passengerCount}]`) straight from its BSON bytes into the object `bson`'s
 * `deserialize` would give. `deserialize` is general: it allocates many times the document's size
 * (per-call options, a frame per nested document, a string per key, a Long per date); this reader
 * allocates the result alone (figures: docs/performance.md, "Figures behind the code"). It knows the element types these fields are stored with (strings, int32 and double
 * numbers, dates, nested documents, null); a document holding anything else (an int64, another
 * field, a malformed length) is handed to `deserialize` whole, so the result never depends on
 * which path decoded it (test/timeline/timeline-flight-reader.test.ts compares both).
 */
export function readTimelineFlight(bytes: Uint8Array): Record<string, unknown> {
  return (readKnownDocument(bytes, 0, bytes.length, TOP_LEVEL) as Record<string, unknown> | undefined) ?? (deserialize(bytes) as Record<string, unknown>);
}

/** BSON element types this reader decodes. */
const DOUBLE = 0x01;
const STRING = 0x02;
const DOCUMENT = 0x03;
const ARRAY = 0x04;
const DATE = 0x09;
const NULL = 0x0a;
const INT32 = 0x10;

/** The keys a document may hold, each a plain value or a document of its own shape. */
interface Key {
  name: string;
  bytes: Uint8Array;
  nested: Shape | 'value';
}
type Shape = readonly Key[];

function shape(keys: Record<string, Shape | 'value'>): Shape {
  return Object.entries(keys).map(([name, nested]) => ({ name, bytes: Buffer.from(name, 'latin1'), nested }));
}

const ENDPOINT = shape({ icao: 'value', at: 'value' });
const COLOURS = shape({ background: 'value', text: 'value', border: 'value' });
/** An array's elements, keyed "0", "1"...: each a `{passengerCount}` document. */
const COUNT_LIST = shape({ '*': shape({ passengerCount: 'value' }) });
const TOP_LEVEL = shape({
  flightId: 'value',
  flightNumber: 'value',
  resourceId: 'value',
  departure: ENDPOINT,
  arrival: ENDPOINT,
  colours: COLOURS,
  passengerList: COUNT_LIST,
});

const float64 = new Float64Array(1);
const float64Bytes = new Uint8Array(float64.buffer);
const utf8 = new TextDecoder('utf-8', { fatal: true });

function int32At(bytes: Uint8Array, at: number): number {
  return bytes[at] | (bytes[at + 1] << 8) | (bytes[at + 2] << 16) | (bytes[at + 3] << 24);
}

/**
 * The document at [start, end) as a plain object, or undefined when it holds an element this
 * reader does not decode (a type outside the list above, a key the shape does not name) or its
 * lengths do not add up.
 */
function readKnownDocument(bytes: Uint8Array, start: number, end: number, shape: Shape, asArray = false): Record<string, unknown> | unknown[] | undefined {
  if (end - start < 5 || int32At(bytes, start) !== end - start || bytes[end - 1] !== 0) return undefined;
  const result: Record<string, unknown> | unknown[] = asArray ? [] : {};
  let at = start + 4;
  while (at < end - 1) {
    const type = bytes[at];
    const nameStart = at + 1;
    let nameEnd = nameStart;
    while (nameEnd < end && bytes[nameEnd] !== 0) nameEnd += 1;
    if (nameEnd >= end - 1) return undefined;
    const key = asArray ? shape[0] : keyOf(shape, bytes, nameStart, nameEnd);
    if (key === undefined) return undefined;
    const { name, nested } = key;
    at = nameEnd + 1;
    let value: unknown;
    switch (type) {
      case INT32:
        if (at + 4 > end - 1) return undefined;
        value = int32At(bytes, at);
        at += 4;
        break;
      case DOUBLE:
        if (at + 8 > end - 1) return undefined;
        for (let i = 0; i < 8; i += 1) float64Bytes[i] = bytes[at + i];
        value = float64[0];
        at += 8;
        break;
      case DATE: {
        if (at + 8 > end - 1) return undefined;
        const low = int32At(bytes, at) >>> 0;
        const high = int32At(bytes, at + 4);
        const ms = high * 0x1_0000_0000 + low;
        if (!Number.isSafeInteger(ms)) return undefined;
        value = new Date(ms);
        at += 8;
        break;
      }
      case STRING: {
        const length = int32At(bytes, at);
        const textStart = at + 4;
        const textEnd = textStart + length - 1;
        if (length < 1 || textEnd >= end - 1 || bytes[textEnd] !== 0) return undefined;
        value = text(bytes, textStart, textEnd);
        if (value === undefined) return undefined;
        at = textEnd + 1;
        break;
      }
      case NULL:
        value = null;
        break;
      case DOCUMENT:
      case ARRAY: {
        if (nested === 'value') return undefined;
        const documentEnd = at + int32At(bytes, at);
        if (documentEnd > end - 1 || documentEnd <= at) return undefined;
        value = readKnownDocument(bytes, at, documentEnd, nested, type === ARRAY);
        if (value === undefined) return undefined;
        at = documentEnd;
        break;
      }
      default:
        return undefined;
    }
    if (asArray) (result as unknown[]).push(value);
    else (result as Record<string, unknown>)[name] = value;
  }
  return at === end - 1 ? result : undefined;
}

/** The shape's key spelled by the bytes [start, end), compared byte by byte (no string made per element). */
function keyOf(keys: Shape, bytes: Uint8Array, start: number, end: number): Key | undefined {
  const length = end - start;
  for (const key of keys) {
    if (key.bytes.length !== length) continue;
    let i = 0;
    while (i < length && key.bytes[i] === bytes[start + i]) i += 1;
    if (i === length) return key;
  }
  return undefined;
}

/** ASCII texts of up to 4 bytes (ICAO codes, short colour names) by their bytes as one number: one string per text, not per element. */
const shortTexts = new Map<number, string>();

function shortText(bytes: Uint8Array, start: number, end: number): string {
  let code = end - start;
  for (let i = start; i < end; i += 1) code = code * 128 + bytes[i];
  let known = shortTexts.get(code);
  if (known === undefined) {
    if (shortTexts.size >= 10_000) shortTexts.clear();
    known = '';
    for (let i = start; i < end; i += 1) known += String.fromCharCode(bytes[i]);
    shortTexts.set(code, known);
  }
  return known;
}

/** UTF-8 text; undefined when it is not valid UTF-8 (bson's deserialize then refuses it as it would). */
function text(bytes: Uint8Array, start: number, end: number): string | undefined {
  let ascii = true;
  for (let i = start; i < end && ascii; i += 1) ascii = bytes[i] < 0x80;
  if (ascii && end - start <= 4) return shortText(bytes, start, end);
  if (ascii && Buffer.isBuffer(bytes)) return bytes.toString('latin1', start, end);
  try {
    return utf8.decode(bytes.subarray(start, end));
  } catch {
    return undefined;
  }
}
