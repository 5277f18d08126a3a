import { buildSchema, parse, print, type GraphQLEnumType, type GraphQLSchema } from 'graphql';
import request from 'supertest';
import { FlightDocument, TimelineEventsDocument } from '../../src/graphql/generated/operations';
import { gatewaySchema } from '../../src/graphql/schema';
import { leavesAreTrusted } from '../../src/graphql/trusted-leaves';
import { EXACTLY_TYPED_OUTPUT_TYPES } from '../../src/timeline/timeline-event.type';
import { passengerRecord } from '../helpers/passengers';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { createFlight, createReferenceData } from '../helpers/timeline-fixtures';
import { Schema, type Model } from 'mongoose';
import { mapAggregateInOneReply } from '../../src/timeline/one-reply-aggregate';

const trusted = new Set<string>(EXACTLY_TYPED_OUTPUT_TYPES);

describe('timeline data path', () => {
  let testApp: TestApp;
  let bearer: string;
  const flights: number[] = [];

  beforeAll(async () => {
    testApp = await startTestApp('timeline_data_path');
    await createReferenceData(testApp);
    flights.push(await createFlight(testApp, { flightNumber: 'IFL201', resourceId: 1, from: 'LIRF', to: 'LPPT', departureAt: '2026-09-01T08:00:00Z', arrivalAt: '2026-09-01T10:30:00Z', backgroundColor: 'gold' }));
    flights.push(await createFlight(testApp, { flightNumber: 'IFL202', resourceId: 2, from: 'LGAV', to: 'LIML', departureAt: '2026-09-01T09:00:00Z', arrivalAt: '2026-09-01T11:00:00Z' }));
    bearer = `Bearer ${await testApp.token(['timeline:read'])}`;
  });
  afterAll(() => testApp.close());

  describe('passenger counts, read with the flights', () => {
    const CALENDAR = '/api/broker/v0/calendar/timeline/event?start=2026-09-01&end=2026-09-01';
    const counts = async () => {
      const rest = (await request(testApp.app).get(CALENDAR).set('Authorization', bearer).expect(200)).body as { flight_id: number; passengers: number }[];
      const { body } = await testApp.graphql(TimelineEventsDocument, { view: 'RESOURCE', start: '2026-09-01', end: '2026-09-01', timeZone: null });
      const graphql = Object.fromEntries(body.data!.timelineEvents.map((entry) => [entry.flightId, entry.passengers]));
      // Both routes answer the same counts; the REST order is the calendar's.
      expect(Object.fromEntries(rest.map((entry) => [entry.flight_id, entry.passengers]))).toEqual(graphql);
      return rest.map((entry) => entry.passengers);
    };
    const push = async (flightId: number, changes: Record<string, unknown>) => {
      const writer = `Bearer ${await testApp.token(['passengers:write'])}`;
      const response = await request(testApp.app).post(`/api/broker/v0/flight/${flightId}/passenger`).set('Authorization', writer).send(changes);
      expect(response.status).toBe(200);
    };

    it('counts 0 without a list, and every push from the read that follows its answer on', async () => {
      expect(await counts()).toEqual([0, 0]);
      await push(flights[0], { created: [1, 2, 3].map((id) => passengerRecord(id)), modified: [], deleted: [] });
      expect(await counts()).toEqual([3, 0]);
      await push(flights[1], { created: [passengerRecord(1)], modified: [], deleted: [] });
      await push(flights[0], { created: [], modified: [], deleted: [2] });
      expect(await counts()).toEqual([2, 1]);
    });
  });

  describe('one reply, or the cursor when one reply cannot hold the result', () => {
    interface Bulky {
      n: number;
      text: string;
    }
    const bulky = () => testApp.database.connection.model('BulkyDocument', new Schema({ n: Number, text: String }), 'bulky_documents') as unknown as Model<Bulky>;

    it('maps every document of a result larger than 16 MiB, in order, through the cursor', async () => {
      const model = bulky();
      // 20 documents of 1 MiB: the first reply stops short of 16 MiB and leaves a cursor open.
      const text = 'x'.repeat(1024 * 1024);
      await model.collection.insertMany(Array.from({ length: 20 }, (_, n) => ({ n, text })));
      const seen = await mapAggregateInOneReply(model, [{ $sort: { n: -1 } }], 5000, (document: { n: number; text: string }) => `${document.n}:${document.text.length}`);
      expect(seen).toEqual(Array.from({ length: 20 }, (_, i) => `${19 - i}:${1024 * 1024}`));
    });

    it('maps a result that fits in one reply, and an empty one', async () => {
      const model = bulky();
      expect(await mapAggregateInOneReply(model, [{ $match: { n: { $lt: 3 } } }, { $sort: { n: 1 } }, { $project: { _id: 0, n: 1 } }], 5000, (document: { n: number }) => document.n)).toEqual([0, 1, 2]);
      expect(await mapAggregateInOneReply(model, [{ $match: { n: -1 } }], 5000, (document: { n: number }) => document.n)).toEqual([]);
    });

    it('answers a server error as an error, not as an empty list', async () => {
      await expect(mapAggregateInOneReply(bulky(), [{ $nonsense: 1 } as never], 5000, () => 1)).rejects.toThrow(/nonsense/);
    });
  });

  describe('compiled queries skip leaf serialisation only where every leaf is exactly typed', () => {
    it('gives the same answer, types included, compiled (second request on) as interpreted (first request)', async () => {
      const body = { query: print(TimelineEventsDocument), variables: { view: 'CALENDAR', start: '2026-09-01', end: '2026-09-01' } };
      const answers = [];
      for (let i = 0; i < 3; i += 1) answers.push((await request(testApp.app).post('/graphql').set('Authorization', bearer).send(body).expect(200)).text);
      expect(answers[1]).toBe(answers[0]);
      expect(answers[2]).toBe(answers[0]);
      const entries = JSON.parse(answers[0]).data.timelineEvents;
      expect(entries.map((entry: { flightId: number }) => entry.flightId)).toEqual(flights);
      expect(entries[0]).toMatchObject({ resourceId: 1, flightNumber: 'IFL201', backgroundColor: 'gold', passengers: expect.any(Number), dep: { icao: 'LIRF', iata: 'FCO' } });
    });

    it('trusts the timeline document, not documents with ID fields, enums with other internal values or other types', async () => {
      const gateway: GraphQLSchema = await gatewaySchema();
      expect(leavesAreTrusted(gateway, TimelineEventsDocument, trusted)).toBe(true);
      expect(leavesAreTrusted(gateway, FlightDocument, trusted)).toBe(false);
      const schema = buildSchema(`
        enum Plain { A B }
        type Entry { n: Int! s: String f: Float b: Boolean id: ID! plain: Plain }
        type Other { n: Int! }
        type Query { entries: [Entry!]! other: Other }
      `);
      const entryTypes = new Set(['Entry']);
      expect(leavesAreTrusted(schema, parse('{ entries { n s f b plain __typename } }'), entryTypes)).toBe(true);
      expect(leavesAreTrusted(schema, parse('{ entries { n id } }'), entryTypes)).toBe(false);
      expect(leavesAreTrusted(schema, parse('{ entries { n } other { n } }'), entryTypes)).toBe(false);
      expect(leavesAreTrusted(schema, parse('{ __schema { queryType { name } } }'), entryTypes)).toBe(false);
      expect(leavesAreTrusted(schema, parse('{ entries { n } }'), new Set())).toBe(false);
      // An enum whose internal values are not its names needs its serialiser.
      const plain = schema.getType('Plain') as GraphQLEnumType;
      plain.getValue('A')!.value = 'a';
      expect(leavesAreTrusted(schema, parse('{ entries { plain } }'), entryTypes)).toBe(false);
    });
  });
});
