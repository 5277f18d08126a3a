import { deserialize, Double, Int32, Long, serialize, type Document } from 'bson';
import fc from 'fast-check';
import { emptyTimelineFlight, readKnownFlight, readTimelineFlight, timelineFlightFields, type TimelineFlightFields } from '../../src/timeline/timeline-flight-reader';

/**
 * The fields, comparable: a value the general path passes through as it is (a corrupted element
 * may decode as an invalid date, which toEqual finds unequal to itself) as its time value.
 */
function comparable(fields: TimelineFlightFields): unknown {
  return Object.fromEntries(Object.entries(fields).map(([key, value]) => [key, value instanceof Date ? { date: String(value.getTime()) } : value]));
}

/** What the general path (bson's decoder, then the fields of the decoded flight) makes of the bytes, or the error it throws. */
function general(bytes: Uint8Array): unknown {
  try {
    return comparable(timelineFlightFields(deserialize(bytes), emptyTimelineFlight()));
  } catch (error) {
    return { threw: (error as Error).constructor.name };
  }
}

/** One record for every read, as a timeline read reuses it: nothing of a flight may show in the next. */
const shared = emptyTimelineFlight();

function fast(bytes: Uint8Array): unknown {
  try {
    return comparable(readTimelineFlight(bytes, shared));
  } catch (error) {
    return { threw: (error as Error).constructor.name };
  }
}

const text = fc.oneof(fc.string({ maxLength: 12 }), fc.string({ unit: 'grapheme', maxLength: 12 }), fc.constantFrom('LIRF', 'LPPT', 'gold', 'royalblue', '#ffffff', 'ÆØÅ', '', 'a\u0000b'));
const number = fc.oneof(
  fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }),
  fc.double({ noNaN: false }),
  fc.integer().map((value) => new Int32(value)),
  fc.double().map((value) => new Double(value)),
  fc.integer().map((value) => Long.fromNumber(value)),
);
const date = fc.oneof(fc.integer({ min: -8.64e15, max: 8.64e15 }), fc.constantFrom(8.64e15 + 1, -8.64e15 - 1, 2 ** 53 + 2)).map((ms) => (Number.isSafeInteger(ms) && Math.abs(ms) <= 8.64e15 ? new Date(ms) : Long.fromNumber(ms)));
const endpoint = fc.record({ icao: text, at: date }, { requiredKeys: [] });
const colours = fc.record({ background: fc.option(text), text: fc.option(text), border: fc.option(text) }, { requiredKeys: [] });
const passengerList = fc.array(fc.oneof(fc.record({ passengerCount: fc.option(number) }, { requiredKeys: [] }), fc.constant(7)), { maxLength: 3 });
const flight = fc.record(
  {
    flightId: number,
    flightNumber: text,
    resourceId: number,
    departure: endpoint,
    arrival: endpoint,
    colours: fc.oneof(colours, fc.constant(null)),
    passengerList,
    // Outside the shape: the reader must hand these documents to bson whole.
    extra: fc.oneof(fc.integer(), fc.constant([1, 2]), fc.constant({ nested: true })),
  },
  { requiredKeys: ['departure', 'arrival'] },
);
/** Flights as the service stores them, in any field order: the reader must take these itself. */
const storedFlight = fc
  .record({
    flightId: fc.integer({ min: 1, max: 2 ** 31 - 1 }),
    flightNumber: text,
    resourceId: fc.oneof(fc.integer({ min: 1, max: 1000 }), fc.double({ noNaN: true })),
    departure: fc.record({ icao: text, at: date.filter((value) => value instanceof Date) }),
    arrival: fc.record({ at: date.filter((value) => value instanceof Date), icao: text }),
    colours: fc.oneof(colours, fc.constant(null)),
    // One list per flight in the database; the reader's rule (the first element's count) is tested on two.
    passengerList: fc.array(fc.record({ passengerCount: fc.option(fc.integer({ min: 0, max: 500 })) }, { requiredKeys: [] }), { maxLength: 2 }),
  }, { requiredKeys: ['flightId', 'flightNumber', 'resourceId', 'departure', 'arrival'] })
  .chain((document) => fc.shuffledSubarray(Object.keys(document), { minLength: Object.keys(document).length }).map((order) => Object.fromEntries(order.map((name) => [name, document[name as keyof typeof document]]))));

describe('the timeline flight reader reads exactly what bson decodes', () => {
  it('takes every flight as the service stores it itself, and reads the same values as the general path', () => {
    fc.assert(
      fc.property(storedFlight, (document) => {
        const bytes = Buffer.from(serialize(document));
        const into = emptyTimelineFlight();
        expect(readKnownFlight(bytes, into)).toBe(true);
        expect(comparable(into)).toEqual(general(bytes));
      }),
      { numRuns: 2000 },
    );
  });

  it('for flights of the timeline shape, their variations and fields outside it, one record reused for all', () => {
    fc.assert(
      fc.property(flight, (document) => {
        const bytes = serialize(document as Document);
        expect(fast(bytes)).toEqual(general(bytes));
      }),
      { numRuns: 3000 },
    );
  });

  it('for the shape as the service stores it (int32 and double numbers, dates on both sides of 1970, a null colour, UTF-8)', () => {
    const document = { flightId: 100123, flightNumber: 'IFL 201 ✈', resourceId: 3, departure: { icao: 'LIRF', at: new Date('2026-05-01T08:00:00Z') }, arrival: { icao: 'LPPT', at: new Date('1969-12-31T23:59:59.999Z') }, colours: { background: 'gold', text: null }, passengerList: [{ passengerCount: 100 }] };
    const into = emptyTimelineFlight();
    expect(readKnownFlight(serialize(document), into)).toBe(true);
    const expected: TimelineFlightFields = { flightId: 100123, flightNumber: 'IFL 201 ✈', resourceId: 3, departureIcao: 'LIRF', departureAt: Date.parse('2026-05-01T08:00:00Z'), arrivalIcao: 'LPPT', arrivalAt: -1, background: 'gold', text: undefined, border: undefined, passengerCount: 100 };
    expect(into).toEqual(expected);
    // The next flight, without colours or a list, in the same record: nothing of the first shows.
    const bare = { flightId: 7, flightNumber: 'X1', resourceId: 1, departure: { icao: 'LIRF', at: new Date(0) }, arrival: { icao: 'LIRF', at: new Date(60_000) } };
    expect(readTimelineFlight(serialize(bare), into)).toEqual({ flightId: 7, flightNumber: 'X1', resourceId: 1, departureIcao: 'LIRF', departureAt: 0, arrivalIcao: 'LIRF', arrivalAt: 60_000, background: undefined, text: undefined, border: undefined, passengerCount: 0 });
  });

  it('refuses a stored flight whose time is not a date, naming the flight and the field', () => {
    const missing = { flightId: 9, flightNumber: 'X1', resourceId: 1, departure: { icao: 'LIRF' }, arrival: { icao: 'LIRF', at: new Date(0) } };
    expect(() => readTimelineFlight(serialize(missing), emptyTimelineFlight())).toThrow('flight 9: stored departure.at is not a valid date');
    const beyond = { ...missing, departure: { icao: 'LIRF', at: Long.fromNumber(8.64e15 + 1) } };
    expect(() => readTimelineFlight(serialize(beyond), emptyTimelineFlight())).toThrow('flight 9: stored departure.at is not a valid date');
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
      { numRuns: 3000 },
    );
  });

  it('for a corrupted count that decodes as an invalid date (a case CI found)', () => {
    // -0 is stored as a double, whose bytes read as a date are no valid time: a count turned Date(NaN).
    const bytes = Buffer.from(serialize({ flightId: 1, flightNumber: 'X1', resourceId: 1, departure: { icao: 'LIRF', at: new Date(0) }, arrival: { icao: 'LIRF', at: new Date(0) }, passengerList: [{ passengerCount: -0 }] }));
    const name = bytes.indexOf('passengerCount\0');
    expect(bytes[name - 1]).toBe(0x01);
    bytes[name - 1] = 0x09;
    expect((deserialize(bytes).passengerList as Array<{ passengerCount: unknown }>)[0].passengerCount).toEqual(expect.any(Date));
    expect(fast(bytes)).toEqual(general(bytes));
  });
});
