import { once } from 'node:events';
import net from 'node:net';
import request from 'supertest';
import { PassengerListDocument, PassengerListExportsDocument, PassengerListHistoryDocument, PushPassengerListDocument } from '../../src/graphql/generated/operations';
import { passengerRecord } from '../helpers/passengers';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { createFlight, createReferenceData } from '../helpers/timeline-fixtures';

/** Fifty racing pushes re-plan and retry; on a busy two-core machine they take minutes (a liveness bound, not a speed check: benchmarks measure speed). */
const HEAVY_TEST_TIMEOUT_MS = 600_000;

describe('POST /api/broker/v0/flight/<flight_id>/passenger', () => {
  let testApp: TestApp;
  let writer: string;

  beforeAll(async () => {
    testApp = await startTestApp('passenger_push', { JSON_MAX_BYTES: '65536' });
    writer = `Bearer ${await testApp.token(['passengers:write', 'passengers:read', 'timeline:read'], 'ops-desk')}`;
    await createReferenceData(testApp);
  });
  afterAll(() => testApp.close());

  const newFlight = () => createFlight(testApp, { resourceId: 1, from: 'LIRF', to: 'LPPT', departureAt: '2026-12-20T09:00:00Z', arrivalAt: '2026-12-20T12:00:00Z' });
  const push = (flightId: number, body: unknown, headers: Record<string, string> = {}) => {
    const call = request(testApp.app).post(`/api/broker/v0/flight/${flightId}/passenger`).set('Authorization', writer);
    for (const [name, value] of Object.entries(headers)) call.set(name, value);
    return call.send(body as object);
  };
  const list = async (flightId: number) => (await testApp.graphql(PassengerListDocument, { flightId })).body.data!.passengerList;

  it('creates records, normalises them, answers with counts and an ETag, and the timeline counts them at once', async () => {
    const flightId = await newFlight();
    const response = await push(flightId, { created: [passengerRecord(1), passengerRecord(2, { surname: ' de  luca ', email: 'ANNA@Example.COM', phone: '+39 347 123 4567', gender: 'female' }), passengerRecord(3, { idvolo: flightId })], modified: [], deleted: [] }).expect(200);
    expect(response.body).toEqual({ status: 'ok', flight_id: flightId, version: 1, created: 3, modified: 0, deleted: 0, passengers: 3, warnings: [] });
    expect(response.headers.etag).toBe('"1"');
    const stored = await list(flightId);
    expect(stored.version).toBe(1);
    expect(stored.passengers[1]).toMatchObject({ id: 2, idvolo: flightId, surname: 'DE LUCA', nazionalita: 'IT', gender: 'F', email: 'ANNA@example.com', phone: '+393471234567', row_number: 2 });
    const timeline = await request(testApp.app).get('/api/broker/v0/calendar/timeline/event?start=2026-12-20&end=2026-12-20').set('Authorization', writer).expect(200);
    expect(timeline.body.find((entry: { flight_id: number }) => entry.flight_id === flightId).passengers).toBe(3);
  });

  it('modifies only the fields present, deletes by id or {id}, and keeps list order', async () => {
    const flightId = await newFlight();
    await push(flightId, { created: [1, 2, 3, 4].map((id) => passengerRecord(id)), modified: [], deleted: [] }).expect(200);
    const response = await push(flightId, { created: [], modified: [{ id: 2, name: 'Luigi' }, { id: 3, email: 'x@example.org' }], deleted: [1, { id: 4 }] }).expect(200);
    expect(response.body).toMatchObject({ version: 2, created: 0, modified: 2, deleted: 2, passengers: 2 });
    const stored = await list(flightId);
    expect(stored.passengers.map((p) => [p.id, p.name, p.email, p.surname])).toEqual([[2, 'LUIGI', null, 'ROSSI'], [3, 'MARIO', 'x@example.org', 'ROSSI']]);
  });

  it('reports every problem of a bad change set at once with 422 and changes nothing', async () => {
    const flightId = await newFlight();
    await push(flightId, { created: [passengerRecord(1)], modified: [], deleted: [] }).expect(200);
    const response = await push(flightId, {
      created: [passengerRecord(2), passengerRecord(3, { date_born: '31/02/1990', email: 'not-an-email' }), passengerRecord(4, { idvolo: flightId + 1, nazionalita: 'Atlantis' }), { id: 5 }],
      modified: [{ id: 1, scadenza: '1970-01-01' }, { id: 99, name: 'X' }],
      deleted: [77, 'x'],
    }).expect(422);
    expect(response.body.error.code).toBe('UNPROCESSABLE');
    const where = response.body.error.details.map((d: { group: string; index: number; id: number | null; field: string }) => `${d.group}[${d.index}] ${d.id} ${d.field}`);
    expect(where).toEqual(expect.arrayContaining([
      'created[1] 3 date_born', 'created[1] 3 email', 'created[2] 4 idvolo', 'created[2] 4 nazionalita',
      'created[3] 5 surname', 'created[3] 5 gender', 'modified[0] 1 scadenza', 'modified[1] 99 id', 'deleted[0] 77 id', 'deleted[1] null id',
    ]));
    for (const detail of response.body.error.details) expect(detail.message).toEqual(expect.any(String));
    const stored = await list(flightId);
    expect(stored.version).toBe(1);
    expect(stored.passengers.map((p) => p.id)).toEqual([1]);
  });

  it('treats an identical re-created record as a retried no-op and a different one as 409', async () => {
    const flightId = await newFlight();
    await push(flightId, { created: [passengerRecord(1)], modified: [], deleted: [] }).expect(200);
    const retry = await push(flightId, { created: [passengerRecord(1)], modified: [], deleted: [] }).expect(200);
    expect(retry.body).toMatchObject({ version: 1, created: 0, passengers: 1 });
    const clash = await push(flightId, { created: [passengerRecord(1, { name: 'Giulia', gender: 'F' })], modified: [], deleted: [] }).expect(409);
    expect(clash.body.error.details).toEqual([expect.objectContaining({ group: 'created', index: 0, id: 1 })]);
    expect(clash.body.error.message).toContain('passenger 1 already exists');
  });

  it('replays the first answer to a repeated Idempotency-Key and refuses the key with another body', async () => {
    const flightId = await newFlight();
    const body = { created: [passengerRecord(1)], modified: [], deleted: [] };
    const first = await push(flightId, body, { 'Idempotency-Key': 'req-42' }).expect(200);
    const again = await push(flightId, body, { 'Idempotency-Key': 'req-42' }).expect(200);
    expect(again.body).toEqual(first.body);
    expect(again.headers.etag).toBe(first.headers.etag);
    const other = await push(flightId, { ...body, deleted: [1] }, { 'Idempotency-Key': 'req-42' }).expect(409);
    expect(other.body.error.message).toContain('Idempotency-Key');
    const history = (await testApp.graphql(PassengerListHistoryDocument, { flightId })).body.data!.passengerListHistory;
    expect(history).toHaveLength(1);
    expect(history[0]).toMatchObject({ version: 1, subject: 'ops-desk', idempotencyKey: 'req-42', created: 1, passengers: 1 });
  });

  it('moves neither the version nor the history for a push that changes nothing (records sent back as stored, an empty push), keyed or not, and a retry of a keyed one never applies its records over a later change', async () => {
    const flightId = await newFlight();
    const created = await push(flightId, { created: [passengerRecord(1), passengerRecord(2, { surname: 'Bianchi' })], modified: [], deleted: [] }).expect(200);
    expect(created.headers.etag).toBe('"1"');
    const storedList = (await list(flightId)).passengers;
    const same = { created: [], modified: [{ id: 2, name: storedList[1].name }, { id: 1, surname: ' rossi ' }], deleted: [] };
    const variants: Record<string, string>[] = [{}, { 'Idempotency-Key': 'noop-1' }, { 'If-Match': '"1"' }];
    for (const headers of variants) {
      const answer = await push(flightId, same, headers).expect(200);
      expect(answer.headers.etag).toBe('"1"');
      expect(answer.body).toMatchObject({ version: 1, created: 0, modified: 0, deleted: 0, passengers: 2 });
    }
    const empty = await push(flightId, { created: [], modified: [], deleted: [] }, { 'Idempotency-Key': 'noop-2' }).expect(200);
    expect(empty.body).toMatchObject({ version: 1, modified: 0 });
    // A flight without a list keeps its version 0 too.
    const bare = await newFlight();
    expect((await push(bare, { created: [], modified: [], deleted: [] }, { 'Idempotency-Key': 'noop-3' }).expect(200)).headers.etag).toBe('"0"');
    expect((await list(bare)).version).toBe(0);
    const history = (await testApp.graphql(PassengerListHistoryDocument, { flightId })).body.data!.passengerListHistory;
    expect(history.map((entry) => entry.version)).toEqual([1]);

    // Another client then changes passenger 1; a retry of the keyed no-op replays its answer and leaves that change alone.
    await push(flightId, { created: [], modified: [{ id: 1, surname: 'Verdi' }], deleted: [] }, { 'If-Match': '"1"' }).expect(200);
    const retry = await push(flightId, same, { 'Idempotency-Key': 'noop-1' }).expect(200);
    expect(retry.body).toMatchObject({ version: 1, modified: 0 });
    expect((await list(flightId)).passengers[0].surname).toBe('VERDI');
    await push(flightId, { created: [], modified: [], deleted: [1] }, { 'Idempotency-Key': 'noop-1' }).expect(409);
  });

  it('applies one of ten concurrent requests with the same Idempotency-Key and answers them all alike', async () => {
    const flightId = await newFlight();
    await push(flightId, { created: [passengerRecord(1)], modified: [], deleted: [] }).expect(200);
    const body = { created: [passengerRecord(2)], modified: [{ id: 1, name: 'Paolo' }], deleted: [] };
    const responses = await Promise.all(Array.from({ length: 10 }, (_, index) => push(flightId, body, { 'Idempotency-Key': 'burst', ...(index % 2 ? { 'If-Match': '"1"' } : {}) })));
    expect(responses.map((response) => response.status)).toEqual(Array(10).fill(200));
    for (const response of responses) expect(response.body).toEqual(responses[0].body);
    expect(responses[0].body).toMatchObject({ version: 2, created: 1, modified: 1 });
    const history = (await testApp.graphql(PassengerListHistoryDocument, { flightId })).body.data!.passengerListHistory;
    expect(history.map((entry) => entry.version)).toEqual([2, 1]);
  });

  it('forgets an Idempotency-Key after 24 hours', async () => {
    const flightId = await newFlight();
    await push(flightId, { created: [passengerRecord(1)], modified: [], deleted: [] }, { 'Idempotency-Key': 'day-old' }).expect(200);
    const lists = testApp.database.connection.db!.collection('passenger_lists');
    await lists.updateOne({ flightId }, { $set: { 'requests.0.at': new Date(Date.now() - 25 * 3600 * 1000) } });
    const reused = await push(flightId, { created: [passengerRecord(2)], modified: [], deleted: [] }, { 'Idempotency-Key': 'day-old' }).expect(200);
    expect(reused.body).toMatchObject({ version: 2, created: 1, passengers: 2 });
    const stored = await lists.findOne({ flightId });
    expect(stored!.requests.map((entry: { key: string }) => entry.key)).toEqual(['day-old']);
  });

  it('answers a stale If-Match with 412 and applies a current one', async () => {
    const flightId = await newFlight();
    await push(flightId, { created: [passengerRecord(1)], modified: [], deleted: [] }).expect(200);
    const stale = await push(flightId, { created: [passengerRecord(2)], modified: [], deleted: [] }, { 'If-Match': '"0"' }).expect(412);
    expect(stale.body.error.code).toBe('PRECONDITION_FAILED');
    expect((await list(flightId)).passengers).toHaveLength(1);
    const current = await push(flightId, { created: [passengerRecord(2)], modified: [], deleted: [] }, { 'If-Match': '"1"' }).expect(200);
    expect(current.headers.etag).toBe('"2"');
    await push(flightId, { created: [], modified: [], deleted: [] }, { 'If-Match': 'yesterday' }).expect(400);
  });

  it('takes If-Match as RFC 9110 does: a list of ETags passes when one is current, weak tags never match, * matches any flight’s list', async () => {
    const flightId = await newFlight();
    const empty = { created: [], modified: [], deleted: [] };
    // * on a flight without a list: its list exists as [] at version 0 (what the read answers), so the push applies.
    expect((await push(flightId, { ...empty, created: [passengerRecord(1)] }, { 'If-Match': '*' }).expect(200)).headers.etag).toBe('"1"');
    const atTwo = await push(flightId, { ...empty, created: [passengerRecord(2)] }, { 'If-Match': '"0", "1", "7"' }).expect(200);
    expect(atTwo.headers.etag).toBe('"2"');
    const stale = await push(flightId, { ...empty, deleted: [1] }, { 'If-Match': '"0", "1"' }).expect(412);
    expect(stale.body.error.message).toBe('If-Match names versions 0, 1 but the passenger list is at version 2: read it again and reapply your changes');
    // A weak tag never matches, even of the current version; listed beside a strong one, the strong one decides.
    const weak = await push(flightId, { ...empty, deleted: [1] }, { 'If-Match': 'W/"2"' }).expect(412);
    expect(weak.body.error.message).toBe('If-Match names no version but the passenger list is at version 2: read it again and reapply your changes; a weak ETag (W/"…") never matches: If-Match compares ETags strongly');
    await push(flightId, { ...empty, deleted: [1] }, { 'If-Match': '"2-xlsx"' }).expect(412);
    expect((await list(flightId)).passengers.map((p) => p.id)).toEqual([1, 2]);
    expect((await push(flightId, { ...empty, deleted: [1] }, { 'If-Match': 'W/"2", ,"2"' }).expect(200)).headers.etag).toBe('"3"');
    // A bare number, as the facade always took it.
    await push(flightId, { ...empty, deleted: [2] }, { 'If-Match': '3' }).expect(200);
    // A flight that does not exist is a 404 whatever If-Match says; a header that is no list of ETags is a 400.
    await push(999_999, empty, { 'If-Match': 'W/"1"' }).expect(404);
    await push(999_999, empty, { 'If-Match': '*' }).expect(404);
    for (const header of ['"1" "2"', '"1", yesterday', 'W/3', '*, "1"']) {
      const bad = await push(flightId, empty, { 'If-Match': header }).expect(400);
      expect(bad.body.error.details).toEqual([{ field: 'If-Match', message: 'expected * or quoted ETags from earlier answers, separated by commas, e.g. "3"' }]);
    }
    // GraphQL takes the same list as expectedVersions.
    const viaGraphql = await testApp.graphql(PushPassengerListDocument, { flightId, changes: empty, expectedVersion: null, expectedVersions: [2, 3], idempotencyKey: null });
    expect(viaGraphql.body.errors?.[0].extensions?.code).toBe('PRECONDITION_FAILED');
    const applied = await testApp.graphql(PushPassengerListDocument, { flightId, changes: { ...empty, created: [passengerRecord(5)] } as never, expectedVersion: null, expectedVersions: [2, 4], idempotencyKey: null });
    expect(applied.body.data?.pushPassengerList.version).toBe(5);
  });

  it('reads a list back under If-Match: 412 unless it names the current ETag of that representation, before If-None-Match', async () => {
    const flightId = await newFlight();
    await push(flightId, { created: [passengerRecord(1)], modified: [], deleted: [] }).expect(200);
    const read = (ifMatch: string, query = '') => request(testApp.app).get(`/api/broker/v0/flight/${flightId}/passenger${query}`).set('Authorization', writer).set('If-Match', ifMatch);
    const failed = await read('"9"').expect(412);
    expect(failed.headers.etag).toBeUndefined();
    expect(failed.body.error).toEqual({
      code: 'PRECONDITION_FAILED',
      message: 'If-Match names "9", not the current ETag "1": read it again',
      details: [{ field: 'If-Match', message: 'expected "1" or *; If-Match compares ETags strongly, so a weak one (W/"…") never matches' }],
    });
    await read('W/"1"').expect(412);
    expect((await read('"0", "1"').expect(200)).body).toHaveLength(1);
    await read('*').expect(200);
    // If-Match is evaluated first: a failing one is a 412 even when If-None-Match would answer 304.
    await read('"0"').set('If-None-Match', '"1"').expect(412);
    await read('"1"').set('If-None-Match', '"1"').expect(304);
    // A file's ETag names its format; a 412 makes no file and records none.
    const exportsBefore = (await testApp.graphql(PassengerListExportsDocument, { flightId })).body.data!.passengerListExports.length;
    await read('"1"', '?format=csv').expect(412);
    await request(testApp.app).head(`/api/broker/v0/flight/${flightId}/passenger?format=csv`).set('Authorization', writer).set('If-Match', '"1"').expect(412);
    expect((await testApp.graphql(PassengerListExportsDocument, { flightId })).body.data!.passengerListExports).toHaveLength(exportsBefore);
    await read('"1-csv"', '?format=csv').expect(200);
    await read('yesterday').expect(400);
    await request(testApp.app).get('/api/broker/v0/flight/999999/passenger').set('Authorization', writer).set('If-Match', '"1"').expect(404);
  });

  it('loses no passenger when 50 pushes run at once', async () => {
    const flightId = await newFlight();
    const responses = await Promise.all(Array.from({ length: 50 }, (_, index) => push(flightId, { created: [passengerRecord(index + 1)], modified: [], deleted: [] })));
    expect(responses.map((response) => response.status)).toEqual(Array(50).fill(200));
    const stored = await list(flightId);
    expect(stored.passengers).toHaveLength(50);
    expect(stored.version).toBe(50);
    expect(new Set(responses.map((response) => response.body.version)).size).toBe(50);
  }, HEAVY_TEST_TIMEOUT_MS);

  it('resolves row_number_parent_id to the parent’s id and checks links', async () => {
    const flightId = await newFlight();
    const adult = passengerRecord(10, { row_number: 1, is_carring_infant: true });
    const infant = passengerRecord(11, { row_number: 2, row_number_parent_id: 1, name: 'Bimbo', date_born: '2026-03-01' });
    const response = await push(flightId, { created: [adult, infant], modified: [], deleted: [] }).expect(200);
    expect(response.body.warnings).toEqual([]);
    expect((await list(flightId)).passengers.map((p) => [p.id, p.parent_id])).toEqual([[10, null], [11, 10]]);

    const dangling = await push(flightId, { created: [passengerRecord(12, { parent_id: 99 })], modified: [], deleted: [] }).expect(422);
    expect(dangling.body.error.details[0]).toMatchObject({ group: 'created', index: 0, id: 12, field: 'parent_id' });
    const circular = await push(flightId, { created: [passengerRecord(20, { parent_id: 21 }), passengerRecord(21, { parent_id: 20 })], modified: [], deleted: [] }).expect(422);
    expect(circular.body.error.details[0].message).toMatch(/circular/);
    const orphaning = await push(flightId, { created: [], modified: [], deleted: [10] }).expect(422);
    expect(orphaning.body.error.details[0]).toMatchObject({ group: 'deleted', index: 0, id: 10 });
    expect(orphaning.body.error.details[0].message).toContain('names it as parent');
    await push(flightId, { created: [], modified: [], deleted: [11, 10] }).expect(200);
  });

  it("reads a phone without a country code in the passenger's own countries only, and refuses one valid in none", async () => {
    const flightId = await newFlight();
    const british = { nazionalita: 'GB', issuingstate: 'GB', luogonascita: 'GB' };
    const french = { nazionalita: 'FRA', issuingstate: 'FR', luogonascita: 'France' };
    const refused = await push(flightId, {
      created: [passengerRecord(1, { ...british, phone: '07911 123456' }), passengerRecord(2, { nazionalita: 'US', issuingstate: 'US', luogonascita: 'US', phone: '347 123 4567', surname: 'Brown' })],
      modified: [],
      deleted: [],
    }).expect(422);
    expect(refused.body.error.details).toEqual([
      expect.objectContaining({ group: 'created', index: 1, field: 'phone', message: expect.stringContaining('tried as a number of US (nationality, issuing state, country of birth), and is valid in none') }),
    ]);
    await push(flightId, {
      created: [
        passengerRecord(1, { ...british, phone: '07911 123456' }),
        passengerRecord(2, { ...french, phone: '06 12 34 56 78' }),
        passengerRecord(3, { nazionalita: 'DE', issuingstate: 'DE', phone: '0151 23456789', surname: 'Mu\u0308ller' }),
        passengerRecord(4, { phone: '06 1234 5678' }),
      ],
      modified: [],
      deleted: [],
    }).expect(200);
    const stored = await list(flightId);
    expect(stored.passengers.map((p) => [p.surname, p.phone])).toEqual([
      ['ROSSI', '+447911123456'],
      ['ROSSI', '+33612345678'],
      ['MÜLLER', '+4915123456789'],
      ['ROSSI', '+390612345678'],
    ]);
  });

  it('refuses a text date that reads both day first and month first, naming both readings, and reads one that reads one way only', async () => {
    const flightId = await newFlight();
    const refused = await push(flightId, { created: [passengerRecord(1, { date_born: '05/06/1980' }), passengerRecord(2, { scadenza: '03.04.2031' })], modified: [], deleted: [] }).expect(422);
    expect(refused.body.error.details).toEqual([
      expect.objectContaining({ group: 'created', index: 0, field: 'date_born', message: 'expected a date as YYYY-MM-DD, got "05/06/1980", which reads both day first (1980-06-05) and month first (1980-05-06): write it as YYYY-MM-DD' }),
      expect.objectContaining({ group: 'created', index: 1, field: 'scadenza', message: expect.stringContaining('which reads both day first (2031-04-03) and month first (2031-03-04)') }),
    ]);
    await push(flightId, { created: [passengerRecord(1, { date_born: '17/05/1980' }), passengerRecord(2, { date_born: '05/05/1980' })], modified: [], deleted: [] }).expect(200);
    expect((await list(flightId)).passengers.map((p) => p.date_born)).toEqual(['1980-05-17', '1980-05-05']);
  });

  it('takes no guess a spreadsheet would warn of: a number read only without its national prefix, or only as international, is refused with the reading it would have taken, and nothing is stored', async () => {
    const flightId = await newFlight();
    const british = { nazionalita: 'GB', issuingstate: 'GB', luogonascita: 'GB' };
    const refused = await push(flightId, {
      created: [passengerRecord(1, { ...british, phone: '(207) 234-5678' }), passengerRecord(2, { ...british, phone: '33612345678', surname: 'Martin' }), passengerRecord(3, { ...british, phone: '020 7234 5678', surname: 'Jones' })],
      modified: [],
      deleted: [],
    }).expect(422);
    expect(refused.body.error.details).toEqual([
      expect.objectContaining({
        group: 'created',
        index: 0,
        field: 'phone',
        message: `expected a telephone number with its country code, such as +44 7911 123456, got "(207) 234-5678", which is written without the national prefix 0 of GB numbers; read as a number of the passenger's GB (nationality, issuing state, country of birth): +442072345678: a guess a push does not take`,
      }),
      expect.objectContaining({ group: 'created', index: 1, field: 'phone', message: expect.stringContaining('read as the international number +33612345678, as if a number cell had dropped its +: a guess a push does not take') }),
    ]);
    expect((await list(flightId)).passengers).toEqual([]);
  });

  it('returns domain warnings in the success body', async () => {
    const flightId = await newFlight();
    const response = await push(flightId, {
      created: [
        passengerRecord(1, { scadenza: '2026-12-01' }),
        passengerRecord(2, { date_born: '2025-06-01' }),
        passengerRecord(3, { is_carring_infant: true }),
        passengerRecord(4, { parent_id: 1 }),
        passengerRecord(5, { numberdoc: 'YA1000001' }),
      ],
      modified: [],
      deleted: [],
    }).expect(200);
    const codes = response.body.warnings.map((w: { code: string; id: number }) => `${w.code}:${w.id}`);
    expect(codes.sort()).toEqual(['CARRIER_WITHOUT_INFANT:3', 'DOCUMENT_EXPIRES_BEFORE_DEPARTURE:1', 'DUPLICATE_DOCUMENT:5', 'INFANT_CARRIER_NOT_MARKED:4', 'INFANT_WITHOUT_PARENT:2', 'PARENT_LINK_ON_NON_INFANT:4']);
  });

  it('rejects what is not a JSON change set with 400, 413 or 415', async () => {
    const flightId = await newFlight();
    const plain = await request(testApp.app).post(`/api/broker/v0/flight/${flightId}/passenger`).set('Authorization', writer).set('Content-Type', 'text/plain').send('{}').expect(415);
    expect(plain.body.error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
    const missing = await push(flightId, { created: [] }).expect(400);
    expect(missing.body.error.details.map((d: { field: string }) => d.field)).toEqual(['modified', 'deleted']);
    const broken = await request(testApp.app).post(`/api/broker/v0/flight/${flightId}/passenger`).set('Authorization', writer).set('Content-Type', 'application/json').send('{"created": [').expect(400);
    expect(broken.body.error.message).toMatch(/JSON/);
    expect(broken.body.error.details).toEqual([{ field: 'body', message: expect.stringMatching(/^expected valid JSON \(RFC 8259\): ./) }]);
    for (const [sent, got] of [['null', 'null'], ['"x"', 'a string'], ['42', 'a number'], ['  ', 'an empty body']]) {
      const scalar = await request(testApp.app).post(`/api/broker/v0/flight/${flightId}/passenger`).set('Authorization', writer).set('Content-Type', 'application/json').send(sent).expect(400);
      expect(scalar.body.error).toEqual({ code: 'BAD_REQUEST', message: 'The JSON body must be an object or an array', details: [{ field: 'body', message: `expected a JSON object or array, got ${got}` }] });
    }
    const huge = await push(flightId, { created: Array.from({ length: 400 }, (_, i) => passengerRecord(i + 1)), modified: [], deleted: [] }).expect(413);
    expect(huge.body.error.code).toBe('PAYLOAD_TOO_LARGE');
    const unknownField = await push(flightId, { created: [{ ...passengerRecord(1), nickname: 'Super' }], modified: [], deleted: [] }).expect(400);
    expect(unknownField.body.error.message).toContain('nickname');
    const wrongType = await push(flightId, { created: [passengerRecord(1, { id: 'one' })], modified: [], deleted: [] }).expect(400);
    expect(wrongType.body.error.message).toContain('created[0].id');
  });

  /** Writes `head` as it is on a socket (supertest always sends a Content-Length) and reads the answer's status and JSON body. */
  const rawRequest = async (head: string) => {
    const server = testApp.app.listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      const socket = net.connect((server.address() as net.AddressInfo).port, '127.0.0.1');
      socket.write(head);
      const chunks: Buffer[] = [];
      for await (const chunk of socket) chunks.push(chunk as Buffer);
      const text = Buffer.concat(chunks).toString('utf8');
      return { status: Number(text.slice(9, 12)), body: JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4)) };
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  };

  it('answers a push without a body with 400 asking for the JSON change set, whether the Content-Length is absent or 0', async () => {
    const flightId = await newFlight();
    const expected = {
      error: {
        code: 'BAD_REQUEST',
        message: 'The push needs a JSON body: send {"created": [], "modified": [], "deleted": []} with Content-Type: application/json',
        details: [{ field: 'body', message: 'expected a JSON object {"created": [], "modified": [], "deleted": []}, got no body' }],
      },
    };
    // curl -X POST -H 'Content-Type: application/json' with no -d: neither Content-Length nor Transfer-Encoding.
    const bare = await rawRequest(`POST /api/broker/v0/flight/${flightId}/passenger HTTP/1.1\r\nHost: localhost\r\nAuthorization: ${writer}\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n`);
    expect(bare).toEqual({ status: 400, body: expected });
    const empty = await request(testApp.app).post(`/api/broker/v0/flight/${flightId}/passenger`).set('Authorization', writer).set('Content-Type', 'application/json').set('Content-Length', '0').expect(400);
    expect(empty.body).toEqual(expected);
    const untyped = await rawRequest(`POST /api/broker/v0/flight/${flightId}/passenger HTTP/1.1\r\nHost: localhost\r\nAuthorization: ${writer}\r\nConnection: close\r\n\r\n`);
    expect(untyped).toEqual({ status: 400, body: expected });
    expect((await list(flightId)).version).toBe(0);
  });

  it('reports a deleted entry that is not an integer id with the value sent, and refuses a deleted object with members besides id (400 naming them)', async () => {
    const flightId = await newFlight();
    await push(flightId, { created: [passengerRecord(1), passengerRecord(2)], modified: [], deleted: [] }).expect(200);
    const sent = ['3', {}, { id: '5' }, 2.5, null, [1], 0];
    const invalid = await push(flightId, { created: [], modified: [], deleted: sent }).expect(422);
    expect(invalid.body.error.details.map((detail: { index: number; value: unknown }) => [detail.index, detail.value])).toEqual(sent.map((value, index) => [index, value]));
    for (const detail of invalid.body.error.details) expect(detail).toMatchObject({ group: 'deleted', id: null, field: 'id' });

    const extra = await push(flightId, { created: [], modified: [], deleted: [{ id: 1, surname: 'x' }, 2, { id: 'two', reason: 'left' }] }).expect(400);
    expect(extra.body.error.details).toEqual([
      { group: 'deleted', index: 0, id: 1, field: 'surname', message: 'deleted[0].surname: not a member of a deleted entry, which is an id or {"id": <id>}', value: 'x' },
      { group: 'deleted', index: 2, id: null, field: 'reason', message: 'deleted[2].reason: not a member of a deleted entry, which is an id or {"id": <id>}', value: 'left' },
    ]);
    expect(extra.body.error.message).toContain('deleted[0].surname');
    expect((await list(flightId)).passengers.map((p) => p.id)).toEqual([1, 2]);
    await push(flightId, { created: [], modified: [], deleted: [{ id: 1 }, 2] }).expect(200);
  });

  it('answers 404 for an unknown flight, 400 for a bad id, 401 without a token and 403 without passengers:write', async () => {
    await push(999999, { created: [], modified: [], deleted: [] }).expect(404);
    await push('abc' as unknown as number, { created: [], modified: [], deleted: [] }).expect(400);
    const flightId = await newFlight();
    await request(testApp.app).post(`/api/broker/v0/flight/${flightId}/passenger`).send({ created: [], modified: [], deleted: [] }).expect(401);
    const reader = await testApp.token(['passengers:read']);
    const forbidden = await request(testApp.app).post(`/api/broker/v0/flight/${flightId}/passenger`).set('Authorization', `Bearer ${reader}`).send({ created: [], modified: [], deleted: [] }).expect(403);
    expect(forbidden.headers['www-authenticate']).toContain('scope="passengers:write"');
  });
});
