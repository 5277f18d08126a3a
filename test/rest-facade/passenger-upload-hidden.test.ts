import { readFileSync } from 'node:fs';
import path from 'node:path';
import { print } from 'graphql';
import request from 'supertest';
import { UploadPassengerListDocument } from '../../src/graphql/generated/operations';
import { buildPassengerWorkbook, passenger } from '../helpers/passenger-workbook';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { createFlight, createReferenceData } from '../helpers/timeline-fixtures';

/**
 * Hidden rows and columns, totals rows and UTF-16 parts through both upload APIs: the REST upload
 * (option `?hiddenRows=`, warnings in X-Sheet-Warnings, the contract's bare array) and the GraphQL
 * mutation (argument `hiddenRows`, warnings in extensions.warnings).
 */

const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
const fixture = (name: string) => readFileSync(path.join(__dirname, '../fixtures/passengers', name));

describe('hidden content through the REST and GraphQL uploads', () => {
  let testApp: TestApp;
  let writer: string;
  let flightId: number;

  beforeAll(async () => {
    testApp = await startTestApp('passenger_upload_hidden');
    writer = `Bearer ${await testApp.token(['passengers:write', 'passengers:read', 'timeline:read'])}`;
    await createReferenceData(testApp);
    flightId = await createFlight(testApp, { resourceId: 1, from: 'LIRF', to: 'LGAV', departureAt: '2026-12-10T09:00:00Z', arrivalAt: '2026-12-10T11:30:00Z' });
  });
  afterAll(() => testApp.close());

  const rest = (bytes: Buffer, query = '') =>
    request(testApp.app).post(`/api/broker/v0/upload/${flightId}${query}`).set('Authorization', writer).attach('paxlist', bytes, { filename: 'list.xlsx', contentType: XLSX });
  const restWarnings = (response: request.Response) => decodeURIComponent(response.headers['x-sheet-warnings'] ?? '').split(' | ');

  const graphql = (bytes: Buffer, variables: Record<string, unknown> = {}) =>
    request(testApp.app)
      .post('/graphql')
      .set('Authorization', writer)
      .field('operations', JSON.stringify({ query: print(UploadPassengerListDocument), variables: { flightId, file: null, ...variables } }))
      .field('map', JSON.stringify({ 0: ['variables.file'] }))
      .attach('0', bytes, 'list.xlsx');

  const surnames = (records: { surname: string; row_number: number }[]) => records.map((p) => [p.row_number, p.surname]);
  const SKIPPED = [
    [1, 'ROSSI'],
    [2, 'VERDI'],
    [3, 'GALLO'],
  ];
  const IMPORTED = [
    [1, 'ROSSI'],
    [2, 'DUPONT'],
    [3, 'VERDI'],
    [4, 'NERI'],
    [5, 'GALLO'],
  ];

  it('REST: skips rows hidden by a filter or by hand by default, and imports them with ?hiddenRows=import, naming them in X-Sheet-Warnings', async () => {
    const bytes = fixture('hidden-libreoffice.xlsx');
    const skipped = await rest(bytes).expect(200);
    // The contract's answer: the bare array of records.
    expect(Array.isArray(skipped.body)).toBe(true);
    expect(surnames(skipped.body)).toEqual(SKIPPED);
    expect(restWarnings(skipped)).toEqual([
      'Column K "Mobile" is hidden; its values were read like those of the other columns',
      'Sheet row 7 holds SUBTOTAL formulas (a totals row), not a passenger, and was skipped',
      'Sheet row 3 (Dupont Claire) is hidden by the filter and was skipped; to import hidden rows, upload again with the option hiddenRows=IMPORT',
      'Sheet row 5 (Neri Paola) is hidden and was skipped; to import hidden rows, upload again with the option hiddenRows=IMPORT',
    ]);
    for (const query of ['?hiddenRows=import', '?hiddenRows=IMPORT']) {
      const imported = await rest(bytes, query).expect(200);
      expect(surnames(imported.body)).toEqual(IMPORTED);
      expect(restWarnings(imported)[2]).toBe('Sheet row 3 (Dupont Claire) is hidden by the filter and was imported as passenger 2 (option hiddenRows=IMPORT)');
    }
    expect(surnames((await rest(bytes, '?hiddenRows=skip').expect(200)).body)).toEqual(SKIPPED);
  });

  it('REST: refuses an unknown hiddenRows value, or the parameter twice, with 400 naming it', async () => {
    const bytes = await buildPassengerWorkbook([passenger()]);
    const wrong = await rest(bytes, '?hiddenRows=maybe').expect(400);
    expect(wrong.body.error.message).toBe('query parameter hiddenRows must be SKIP or IMPORT, got "maybe"');
    expect(wrong.body.error.details).toEqual([{ field: 'hiddenRows', message: expect.stringMatching(/^expected SKIP .* or IMPORT/) }]);
    const twice = await rest(bytes, '?hiddenRows=skip&hiddenRows=import').expect(400);
    expect(twice.body.error.details).toEqual([{ field: 'hiddenRows', message: 'query parameter "hiddenRows" must be given once, as a plain value' }]);
    const unknown = await rest(bytes, '?hidden=1').expect(400);
    expect(unknown.body.error.message).toBe('unknown query parameter "hidden": this route accepts hiddenRows, dateOrder, defaultPhoneRegion');
  });

  it('GraphQL: the hiddenRows argument (default SKIP), warnings in extensions.warnings', async () => {
    const bytes = fixture('hidden-openpyxl.xlsx');
    const skipped = await graphql(bytes).expect(200);
    expect(skipped.body.errors).toBeUndefined();
    expect(surnames(skipped.body.data.uploadPassengerList)).toEqual(SKIPPED);
    expect(skipped.body.extensions.warnings).toContain('Sheet row 5 (Neri Paola) is hidden and was skipped; to import hidden rows, upload again with the option hiddenRows=IMPORT');
    for (const hiddenRows of [null, 'SKIP']) {
      expect(surnames((await graphql(bytes, { hiddenRows }).expect(200)).body.data.uploadPassengerList)).toEqual(SKIPPED);
    }
    const imported = await graphql(bytes, { hiddenRows: 'IMPORT' }).expect(200);
    expect(surnames(imported.body.data.uploadPassengerList)).toEqual(IMPORTED);
    expect(imported.body.extensions.warnings).toContain('Sheet row 5 (Neri Paola) is hidden and was imported as passenger 4 (option hiddenRows=IMPORT)');
    const wrong = await graphql(bytes, { hiddenRows: 'MAYBE' });
    expect(wrong.body.errors[0].message).toMatch(/hiddenRows.*"MAYBE"|Value "MAYBE" does not exist in "HiddenRows" enum/);
  });

  it('both: skip a table totals row, read hidden passenger columns, name a hidden duplicate column, read UTF-16 without a byte order mark', async () => {
    const totals = fixture('totals-table-xlsxwriter.xlsx');
    const viaRest = await rest(totals).expect(200);
    const viaGraphql = await graphql(totals).expect(200);
    expect(viaRest.body.map((p: { surname: string }) => p.surname)).toEqual(['ROSSI', 'VERDI']);
    expect(viaGraphql.body.data.uploadPassengerList.map((p: { surname: string }) => p.surname)).toEqual(['ROSSI', 'VERDI']);
    expect(restWarnings(viaRest)).toEqual(viaGraphql.body.extensions.warnings);
    expect(viaGraphql.body.extensions.warnings).toContain('Sheet row 5 holds SUBTOTAL formulas (a totals row), not a passenger, and was skipped');

    const exceljsTable = await buildPassengerWorkbook([passenger()], { table: {}, hiddenColumns: [11] });
    const tableAnswer = await rest(exceljsTable).expect(200);
    expect(tableAnswer.body).toHaveLength(1);
    expect(restWarnings(tableAnswer)).toEqual([
      'Column K "Mobile" is hidden; its values were read like those of the other columns',
      'Sheet row 3 is the totals row of the table "PassengerTable", not a passenger, and was skipped',
    ]);

    const duplicate = fixture('duplicate-hidden-column-xlsxwriter.xlsx');
    const refusedRest = await rest(duplicate).expect(422);
    expect(refusedRest.body.error.details[0].message).toContain('O "Cognome" (a hidden column)');
    const refusedGraphql = await graphql(duplicate).expect(422);
    expect(refusedGraphql.body.errors[0].extensions.code).toBe('UNPROCESSABLE');
    expect(refusedGraphql.body.errors[0].message).toContain('O "Cognome" (a hidden column)');

    const utf16 = fixture('utf16-without-bom-openpyxl.xlsx');
    expect((await rest(utf16).expect(200)).body.map((p: { surname: string }) => p.surname)).toEqual(['ROSSI', 'DUPONT']);
    expect((await graphql(utf16).expect(200)).body.data.uploadPassengerList.map((p: { surname: string }) => p.surname)).toEqual(['ROSSI', 'DUPONT']);
  });
});
