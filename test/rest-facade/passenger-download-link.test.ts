import request from 'supertest';
import { PassengerListDownloadUrlDocument, PassengerListExportsDocument } from '../../src/graphql/generated/operations';
import { downloadLinkKey, redactSignature, signedQuery } from '../../src/passengers/export/download-link';
import { passengerRecord } from '../helpers/passengers';
import { startTestApp, TEST_SECRET, type TestApp } from '../helpers/test-app';
import { createFlight, createReferenceData } from '../helpers/timeline-fixtures';

/** The path and query of an absolute link, for supertest. */
const pathOf = (url: string) => {
  const parsed = new URL(url);
  return parsed.pathname + parsed.search;
};

describe('signed download links (passengerListDownloadUrl)', () => {
  let testApp: TestApp;
  let flightId: number;

  beforeAll(async () => {
    testApp = await startTestApp('passenger_download_link');
    await createReferenceData(testApp);
    flightId = await createFlight(testApp, { resourceId: 2, from: 'LPPT', to: 'LIRF', departureAt: '2026-12-15T08:00:00Z', arrivalAt: '2026-12-15T11:00:00Z' });
    const writer = `Bearer ${await testApp.token(['passengers:write'])}`;
    await request(testApp.app).post(`/api/broker/v0/flight/${flightId}/passenger`).set('Authorization', writer).send({ created: [passengerRecord(1)], modified: [], deleted: [] }).expect(200);
  });
  afterAll(() => testApp.close());

  const link = async (format: string, scopes = ['passengers:read'], id = flightId) =>
    testApp.graphql(PassengerListDownloadUrlDocument, { flightId: id, format }, await testApp.token(scopes, 'browser-user'));

  it('answers a link that downloads the file without a token for five minutes, recorded as the caller’s export', async () => {
    const before = Date.now();
    const { body } = await link('csv');
    expect(body.errors).toBeUndefined();
    const { url, expiresAt } = body.data!.passengerListDownloadUrl;
    expect(url).toMatch(new RegExp(`/api/broker/v0/flight/${flightId}/passenger\\?format=csv&expires=\\d+&sub=browser-user&signature=`));
    const lifetime = Date.parse(expiresAt) - before;
    expect(lifetime).toBeGreaterThan(240_000);
    expect(lifetime).toBeLessThanOrEqual(301_000);

    const res = await request(testApp.app).get(pathOf(url)).expect(200);
    expect(res.headers['content-type']).toMatch(/^text\/csv/);
    // No Authorization header: without this a shared cache could keep the file past the link's life.
    expect(res.headers['cache-control']).toBe('private, no-store');
    expect(res.text).toContain('ROSSI');
    const exports = (await testApp.graphql(PassengerListExportsDocument, { flightId })).body.data!.passengerListExports;
    expect(exports[0]).toMatchObject({ subject: 'browser-user', format: 'csv', version: 1 });
  });

  it('refuses a link changed in its format, flight or subject, and an expired one (401)', async () => {
    const url = pathOf((await link('csv')).body.data!.passengerListDownloadUrl.url);
    const forgeries = [
      url.replace('format=csv', 'format=xlsx'),
      url.replace('sub=browser-user', 'sub=admin'),
      url.replace(`/flight/${flightId}/`, `/flight/${flightId + 1}/`),
      url.replace(/signature=[^&]+/, 'signature=AAAA'),
      // The same number of seconds, written otherwise: still a changed link.
      url.replace('expires=', 'expires=0'),
    ];
    for (const forged of forgeries) {
      const res = await request(testApp.app).get(forged).expect(401);
      expect(res.body.error.message).toMatch(/Download link refused/);
    }
    const key = downloadLinkKey({ exportLinkSecret: null, jwtSecret: TEST_SECRET })!;
    const expired = signedQuery({ flightId, format: 'csv', subject: 'browser-user', expires: Math.floor(Date.now() / 1000) - 1 }, key);
    const res = await request(testApp.app).get(`/api/broker/v0/flight/${flightId}/passenger?${expired}`).expect(401);
    expect(res.body.error.message).toMatch(/expired/);
  });

  it('needs timeline:read for pdf and paxlst links, and refuses json, unknown formats and unknown flights', async () => {
    const pdf = await link('pdf');
    expect(pdf.body.errors![0].extensions!.code).toBe('FORBIDDEN');
    const granted = await link('pdf', ['passengers:read', 'timeline:read']);
    const res = await request(testApp.app).get(pathOf(granted.body.data!.passengerListDownloadUrl.url)).expect(200);
    expect(res.headers['content-type']).toBe('application/pdf');
    expect((await link('json')).body.errors![0].extensions!.code).toBe('BAD_USER_INPUT');
    expect((await link('docx')).body.errors![0].message).toMatch(/xlsx, csv, pdf, paxlst/);
    expect((await link('csv', ['passengers:read'], 999_999)).body.errors![0].extensions!.code).toBe('NOT_FOUND');
  });

  it('keeps the signature out of logged URLs', () => {
    expect(redactSignature('/api/broker/v0/flight/1/passenger?format=csv&expires=1&sub=a&signature=abc-_123')).toBe('/api/broker/v0/flight/1/passenger?format=csv&expires=1&sub=a&signature=[redacted]');
  });
});
