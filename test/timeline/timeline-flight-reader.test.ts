import { deserialize, Double, Int32, Long, serialize, type Document } from 'bson';
import fc from 'fast-check';
import { readTimelineFlight } from '../../src/timeline/timeline-flight-reader';

/** Dates as their time value (an invalid date, NaN, is unequal to itself under toEqual). */
function comparable(value: unknown): unknown {
  if (value instanceof Date) return { date: String(value.getTime()) };
  if (Array.isArray(value)) return value.map(comparable);
  if (value && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, comparable(inner)]));
  return value;
}

/** What bson's general decoder makes of the bytes, or the error it throws. */
function general(bytes: Uint8Array): unknown {
  try {
    return comparable(deserialize(bytes));
  } catch (error) {
    return { threw: (error as Error).constructor.name };
  }
}

function fast(bytes: Uint8Array): unknown {
  try {
    return comparable(readTimelineFlight(bytes));
  } catch (error) {
    return { threw: (error as Error).constructor.name };
  }
}

const text = fc.oneof(fc.string({ maxLength: 12 }), fc.string({ unit: 'grapheme', maxLength: 12 }), fc.constantFrom('LIRF', 'LPPT', 'gold', '#ffffff', 'ÆØÅ', '', 'a\u0000b'));
const number = fc.oneof(
  fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }),
  fc.double({ noNaN: false }),
  fc.integer().map((value) => new Int32(value)),
  fc.double().map((value) => new Double(value)),
  fc.integer().map((value) => Long.fromNumber(value)),
);
const date = fc.integer({ min: -8.64e15, max: 8.64e15 }).map((ms) => new Date(ms));
const endpoint = fc.record({ icao: text, at: date }, { requiredKeys: [] });
const colours = fc.record({ background: fc.option(text), text: fc.option(text), border: fc.option(text) }, { requiredKeys: [] });
const flight = fc.record(
  {
    flightId: number,
    flightNumber: text,
    resourceId: number,
    departure: endpoint,
    arrival: endpoint,
    colours: fc.oneof(colours, fc.constant(null)),
    passengerList: fc.array(fc.record({ passengerCount: number }), { maxLength: 3 }),
    // Outside the shape: the reader must hand these documents to bson whole.
    extra: fc.oneof(fc.integer(), fc.constant([1, 2]), fc.constant({ nested: true })),
  },
  { requiredKeys: [] },
);

describe('the timeline flight reader decodes exactly what bson decodes', () => {
  it('for flights of the timeline shape, their variations and fields outside it', () => {
    fc.assert(
      fc.property(flight, (document) => {
        const bytes = serialize(document as Document);
        expect(fast(bytes)).toEqual(general(bytes));
      }),
      { numRuns: 2000 },
    );
  });

  it('for the shape as the service stores it (int32 and double numbers, dates on both sides of 1970, a null colour, UTF-8)', () => {
    const document = { flightId: 100123, flightNumber: 'IFL 201 ✈', resourceId: 3, departure: { icao: 'LIRF', at: new Date('2026-05-01T08:00:00Z') }, arrival: { icao: 'LPPT', at: new Date('1969-12-31T23:59:59.999Z') }, colours: { background: 'gold', text: null }, passengerList: [{ passengerCount: 100 }] };
    const bytes = serialize(document);
    expect(readTimelineFlight(bytes)).toEqual(deserialize(bytes));
    expect(readTimelineFlight(bytes)).toEqual(document);
  });

  it('for corrupted bytes: truncated, lengths that do not add up, invalid UTF-8', () => {
    fc.assert(
      fc.property(flight, fc.nat(), fc.integer({ min: 0, max: 255 }), (document, position, byte) => {
        const bytes = Buffer.from(serialize(document as Document));
        const corrupted = Buffer.from(bytes);
        corrupted[position % corrupted.length] = byte;
        expect(fast(corrupted)).toEqual(general(corrupted));
        const truncated = bytes.subarray(0, position % bytes.length);
        expect(fast(truncated)).toEqual(general(truncated));
      }),
      { numRuns: 2000 },
    );
  });
});
