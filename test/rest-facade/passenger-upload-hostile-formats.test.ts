import { print } from 'graphql';
import request from 'supertest';
import { UploadPassengerListDocument } from '../../src/graphql/generated/operations';
import { odsContent, odsPackage, odsRow } from '../helpers/passenger-formats';
import { ENGLISH_HEADINGS, FIELDS, zerosPart } from '../helpers/passenger-workbook';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { createFlight, createReferenceData } from '../helpers/timeline-fixtures';

/**
 * The hostile-file guarantees of the .xlsx reader held by CSV and .ods uploads through the REST
 * upload, the GraphQL upload and previewPassengerUpload: each refused with its status and the limit
 * it reached (the uploads store nothing; the refusal comes before any record is built). How cheaply: test/passengers/sheet/csv-ods-bounds.test.ts
 * bounds the heap, and `npm run bench -- sheet` times them in a fresh process.
 */

const HEADINGS = FIELDS.map((f) => ENGLISH_HEADINGS[f]);

describe('hostile CSV and .ods uploads through REST, GraphQL and the preview', () => {
  let testApp: TestApp;
  let token: string;
  let flightId: number;

  beforeAll(async () => {
    testApp = await startTestApp('passenger_upload_hostile_formats');
    token = `Bearer ${await testApp.token(['passengers:write'])}`;
    await createReferenceData(testApp);
    flightId = await createFlight(testApp, { resourceId: 1, from: 'LIRF', to: 'LGAV', departureAt: '2026-12-10T09:00:00Z', arrivalAt: '2026-12-10T11:30:00Z' });
  });
  afterAll(() => testApp.close());

  /** The status and message each API answers for the file. */
  async function refusals(bytes: Buffer, filename: string): Promise<[number, string][]> {
    const rest = await request(testApp.app).post(`/api/broker/v0/upload/${flightId}`).set('Authorization', token).attach('paxlist', bytes, filename);
    const answers: [number, string][] = [[rest.status, rest.body.error?.message]];
    const upload = { query: print(UploadPassengerListDocument), variables: { flightId, file: null } };
    const preview = { query: 'mutation($flightId: Int!, $file: Upload!) { previewPassengerUpload(flightId: $flightId, file: $file) { problemCount } }', variables: { flightId, file: null } };
    for (const operations of [upload, preview]) {
      const response = await request(testApp.app)
        .post('/graphql')
        .set('Authorization', token)
        .set('Apollo-Require-Preflight', 'true')
        .field('operations', JSON.stringify(operations))
        .field('map', JSON.stringify({ 0: ['variables.file'] }))
        .attach('0', bytes, filename);
      const error = response.body.errors?.[0];
      answers.push([error?.extensions.http?.status ?? response.status, error?.message]);
    }
    return answers;
  }

  it.each([
    [
      'a CSV bomb: 3 MiB of separators, 3 million empty cells',
      () => Buffer.from(`${HEADINGS.join(',')}\n${`${','.repeat(99)}\n`.repeat(31_000)}`),
      'bomb.csv',
      413,
      /^The workbook has more than 200000 cells and rows in the sheets read \(the limit UPLOAD_MAX_CELLS\)/,
    ],
    [
      'a zip bomb in an .ods: content.xml of 60 MiB of zeros',
      async () => odsPackage(await zerosPart('content.xml', 60 * 1024 * 1024)),
      'bomb.ods',
      413,
      /^The workbook expands to \d+ bytes when decompressed, over the limit of 52428800 bytes$/,
    ],
    [
      'an .ods content.xml that inflates far beyond its declared size',
      async () => odsPackage({ ...(await zerosPart('content.xml', 8 * 1024 * 1024)), size: 4000 }),
      'liar.ods',
      413,
      /^The workbook part content\.xml expands beyond the 4000 bytes its zip header declares; it looks like a zip bomb/,
    ],
    [
      'a huge .ods: 150,000 rows of one value beside the list',
      () => odsPackage(odsContent([{ name: 'Huge', rows: odsRow(HEADINGS) + odsRow([{ xml: '<table:table-cell table:number-columns-repeated="15"/>' }, 'x']).repeat(150_000) }])),
      'huge.ods',
      413,
      /^The workbook has more than 200000 cells and rows in the sheets read/,
    ],
  ])('refuses %s on every API, naming the limit it reached', async (_what, build, filename, status, message) => {
    const bytes = await build();
    expect(bytes.length).toBeLessThan(5 * 1024 * 1024);
    for (const [answered, text] of await refusals(bytes, filename)) {
      expect(answered).toBe(status);
      expect(text).toMatch(message);
    }
  });
});
