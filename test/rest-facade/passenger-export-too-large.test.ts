import request from 'supertest';
import { PassengerListDownloadUrlDocument, PassengerListExportsDocument } from '../../src/graphql/generated/operations';
import { passengerRecord } from '../helpers/passengers';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { createFlight, createReferenceData } from '../helpers/timeline-fixtures';

/** A small RESPONSE_MAX_BYTES: the one limit a list's file can reach (docs/rest-api.md, "Passenger list exports"). */
const MAX_BYTES = 4096;

const pathOf = (url: string) => {
  const parsed = new URL(url);
  return parsed.pathname + parsed.search;
};

describe('a list too large for a file', () => {
  let testApp: TestApp;
  let reader: string;
  let small: number;
  let large: number;

  beforeAll(async () => {
    testApp = await startTestApp('passenger_export_too_large', {
      RESPONSE_MAX_BYTES: String(MAX_BYTES),
      PAXLST_SENDER_ID: 'BROKERGW',
      PAXLST_RECIPIENT_ID: 'APISPT',
      PAXLST_REPORTING_PARTY: 'Aquila Jet',
    });
    reader = `Bearer ${await testApp.token(['passengers:read', 'timeline:read'], 'big-exporter')}`;
    await createReferenceData(testApp);
    const writer = `Bearer ${await testApp.token(['passengers:write'])}`;
    const flight = (day: number) => createFlight(testApp, { resourceId: 2, from: 'LPPT', to: 'LIRF', departureAt: `2026-12-${day}T08:00:00Z`, arrivalAt: `2026-12-${day}T11:00:00Z` });
    small = await flight(15);
    large = await flight(16);
    await request(testApp.app).post(`/api/broker/v0/flight/${small}/passenger`).set('Authorization', writer).send({ created: [passengerRecord(1)], modified: [], deleted: [] }).expect(200);
    const created = Array.from({ length: 150 }, (_, index) => passengerRecord(index + 1, { numberdoc: `YA${String(index).padStart(7, '0')}` }));
    await request(testApp.app).post(`/api/broker/v0/flight/${large}/passenger`).set('Authorization', writer).send({ created, modified: [], deleted: [] }).expect(200);
  });
  afterAll(() => testApp.close());

  const exportsOf = async (flightId: number) => (await testApp.graphql(PassengerListExportsDocument, { flightId })).body.data!.passengerListExports;

  /** The 413 of a format, and that it names the format, the size, the limit and the setting. */
  const expectTooLarge = (res: request.Response, format: string) => {
    expect(res.status).toBe(413);
    expect(res.body.error.code).toBe('RESPONSE_TOO_LARGE');
    expect(res.body.error.message).toMatch(new RegExp(`^The ${format} file of this list would be \\d+ bytes, over the limit of ${MAX_BYTES} \\(RESPONSE_MAX_BYTES\\)`));
    const [detail] = res.body.error.details;
    expect(detail).toMatchObject({ field: 'format', maxBytes: MAX_BYTES });
    expect(detail.bytes).toBeGreaterThan(MAX_BYTES);
    expect(res.headers.etag).toBeUndefined();
    expect(res.headers['content-disposition']).toBeUndefined();
  };

  it('answers 413 naming the format, its size and RESPONSE_MAX_BYTES, and records nothing', async () => {
    // One passenger: CSV and PAXLST fit in 4 KiB; an xlsx (a zip of XML parts) and a PDF (with its font) do not.
    for (const format of ['csv', 'paxlst']) await request(testApp.app).get(`/api/broker/v0/flight/${small}/passenger?format=${format}`).set('Authorization', reader).expect(200);
    for (const format of ['xlsx', 'pdf']) expectTooLarge(await request(testApp.app).get(`/api/broker/v0/flight/${small}/passenger?format=${format}`).set('Authorization', reader), format);
    expect((await exportsOf(small)).map((entry) => entry.format)).toEqual(['paxlst', 'csv']);

    // 150 passengers (some 10 KB of CSV): every format is over the limit, the compact ones too.
    for (const format of ['csv', 'paxlst', 'xlsx', 'pdf']) {
      expectTooLarge(await request(testApp.app).get(`/api/broker/v0/flight/${large}/passenger?format=${format}`).set('Authorization', reader), format);
    }
    const accept = await request(testApp.app).get(`/api/broker/v0/flight/${large}/passenger`).set('Authorization', reader).set('Accept', 'text/csv');
    expectTooLarge(accept, 'csv');
    expect(await exportsOf(large)).toEqual([]);
  });

  it('a signed link from GraphQL gives the same 413, and records nothing', async () => {
    const token = await testApp.token(['passengers:read', 'timeline:read'], 'browser-user');
    for (const format of ['csv', 'pdf']) {
      const { body } = await testApp.graphql(PassengerListDownloadUrlDocument, { flightId: large, format }, token);
      expect(body.errors).toBeUndefined();
      expectTooLarge(await request(testApp.app).get(pathOf(body.data!.passengerListDownloadUrl.url)), format);
    }
    expect(await exportsOf(large)).toEqual([]);
  });
});
