import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { createFlight, createReferenceData } from '../helpers/timeline-fixtures';

/*
 * Issue 10: a client written from broker-interface-v0.md alone, with plain fetch and the
 * contract's field names, pushes a list, reads it back with its version, and is told in the
 * contract's terms what is wrong with a body.
 */

/** The contract's Passenger record members, in the contract's order. */
const CONTRACT_MEMBERS = ['id', 'idvolo', 'surname', 'name', 'luogonascita', 'nazionalita', 'typedoc', 'numberdoc', 'date_born', 'scadenza', 'issuingstate', 'email', 'phone', 'is_carring_infant', 'gender', 'parent_id', 'row_number_parent_id', 'row_number'];

/** A record as the contract's table describes one for `created`. */
function contractRecord(flightId: number, id: number, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id,
    idvolo: flightId,
    surname: 'BIANCHI',
    name: 'LUCA',
    luogonascita: 'IT',
    nazionalita: 'IT',
    typedoc: 'P',
    numberdoc: `YB${2_000_000 + id}`,
    date_born: '1975-02-14',
    scadenza: '2032-02-13',
    issuingstate: 'IT',
    email: null,
    phone: null,
    is_carring_infant: false,
    gender: 'M',
    parent_id: null,
    row_number_parent_id: null,
    row_number: id,
    ...overrides,
  };
}

/** A response body as a client parses it, without a declared type. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const json = async (response: Response): Promise<any> => response.json();

describe('a REST-only client of the passenger list', () => {
  let testApp: TestApp;
  let server: Server;
  let base: string;
  let headers: Record<string, string>;

  beforeAll(async () => {
    testApp = await startTestApp('rest_only_client');
    await createReferenceData(testApp);
    server = testApp.app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/broker/v0`;
    headers = { Authorization: `Bearer ${await testApp.token(['passengers:read', 'passengers:write'])}` };
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await testApp.close();
  });

  const newFlight = () => createFlight(testApp, { resourceId: 1, from: 'LIRF', to: 'LGAV', departureAt: '2026-12-18T09:00:00Z', arrivalAt: '2026-12-18T11:30:00Z' });
  const read = (flightId: number, extra: Record<string, string> = {}, method = 'GET') => fetch(`${base}/flight/${flightId}/passenger`, { method, headers: { ...headers, ...extra } });
  const push = (flightId: number, body: unknown, extra: Record<string, string> = {}) =>
    fetch(`${base}/flight/${flightId}/passenger`, { method: 'POST', headers: { ...headers, 'Content-Type': 'application/json', ...extra }, body: JSON.stringify(body) });

  it('is told every wrong JSON type and unknown member of a push at once, each naming its member, and nothing changes', async () => {
    const flightId = await newFlight();
    const response = await push(flightId, {
      created: [contractRecord(flightId, 1, { is_carring_infant: 0 }), contractRecord(flightId, 2, { id: '2', surname: 42, nickname: 'Gigi' }), 'LUCA BIANCHI'],
      modified: [{ id: 1, phone: { number: '+39061234567' }, row_number: 1.5 }],
      deleted: [],
      comment: 'first try',
    });
    expect(response.status).toBe(400);
    const { error } = await json(response);
    expect(error.code).toBe('BAD_REQUEST');
    expect(error.details.map((detail: { message: string }) => detail.message)).toEqual([
      'unknown member "comment": the body holds only created, modified and deleted',
      'created[0].is_carring_infant: expected true or false',
      'created[1].nickname: not a member of a passenger record',
      'created[1].id: expected an integer',
      'created[1].surname: expected a string',
      'created[2]: expected a JSON object (a passenger record)',
      'modified[0].phone: expected a string',
      'modified[0].row_number: expected an integer',
    ]);
    // Each record problem is placed like the push's 422 details: group, index, the record's id, member.
    expect(error.details[1]).toEqual({ group: 'created', index: 0, id: 1, field: 'is_carring_infant', message: 'created[0].is_carring_infant: expected true or false', value: 0 });
    expect(error.details[2]).toMatchObject({ group: 'created', index: 1, id: null, field: 'nickname', value: 'Gigi' });
    expect(error.message).toContain('created[0].is_carring_infant: expected true or false; created[1].nickname');
    expect(error.message).not.toMatch(/Variable|GraphQL|cannot represent/i);

    const after = await read(flightId);
    expect(after.headers.get('etag')).toBe('"0"');
    expect(await json(after)).toEqual([]);
  });

  it('gets the details of a push with hundreds of wrong types capped at 100 plus a count of the rest', async () => {
    const flightId = await newFlight();
    const created = Array.from({ length: 300 }, (_, index) => contractRecord(flightId, index + 1, { is_carring_infant: 'no' }));
    const response = await push(flightId, { created, modified: [], deleted: [] });
    expect(response.status).toBe(400);
    const { error } = await json(response);
    expect(error.details).toHaveLength(101);
    expect(error.details[99].message).toBe('created[99].is_carring_infant: expected true or false');
    expect(error.details[100]).toEqual({ message: '200 more problems not listed (only the first 100 are)', omitted: 200 });
    expect(error.message.length).toBeLessThanOrEqual(2100);
  });

  it('reads the list with its version as ETag, is answered 304 while it is current, and pushes with If-Match from that ETag', async () => {
    const flightId = await newFlight();
    const empty = await read(flightId);
    expect(empty.status).toBe(200);
    expect(empty.headers.get('etag')).toBe('"0"');
    expect(await json(empty)).toEqual([]);

    const first = await push(flightId, { created: [contractRecord(flightId, 1), contractRecord(flightId, 2, { name: 'anna', gender: 'F' })], modified: [], deleted: [] }, { 'If-Match': empty.headers.get('etag')! });
    expect(first.status).toBe(200);
    expect(first.headers.get('etag')).toBe('"1"');

    const listed = await read(flightId);
    expect(listed.status).toBe(200);
    const etag = listed.headers.get('etag')!;
    expect(etag).toBe('"1"');
    const records = await json(listed);
    expect(records).toHaveLength(2);
    for (const record of records) expect(Object.keys(record)).toEqual(CONTRACT_MEMBERS);
    expect(records[1]).toEqual(contractRecord(flightId, 2, { name: 'ANNA', gender: 'F' }));

    // fetch() adds Cache-Control: no-cache to a request that sets If-None-Match; the 304 must come all the same.
    const unchanged = await read(flightId, { 'If-None-Match': etag });
    expect(unchanged.status).toBe(304);
    expect(unchanged.headers.get('etag')).toBe(etag);
    expect(await unchanged.text()).toBe('');
    expect((await read(flightId, { 'If-None-Match': `"7", W/${etag}` })).status).toBe(304);
    expect((await read(flightId, { 'If-None-Match': '"0"' })).status).toBe(200);

    const second = await push(flightId, { created: [], modified: [{ id: 2, email: 'anna@example.com' }], deleted: [1] }, { 'If-Match': etag });
    expect(second.status).toBe(200);
    expect(second.headers.get('etag')).toBe('"2"');
    expect(Object.keys(await json(second))).toEqual(['status', 'flight_id', 'version', 'created', 'modified', 'deleted', 'passengers', 'warnings']);

    const changed = await read(flightId, { 'If-None-Match': etag });
    expect(changed.status).toBe(200);
    expect(changed.headers.get('etag')).toBe('"2"');
    expect(await json(changed)).toEqual([contractRecord(flightId, 2, { name: 'ANNA', gender: 'F', email: 'anna@example.com', row_number: 1 })]);

    const stale = await push(flightId, { created: [contractRecord(flightId, 3)], modified: [], deleted: [] }, { 'If-Match': etag });
    expect(stale.status).toBe(412);

    const head = await read(flightId, {}, 'HEAD');
    expect(head.status).toBe(200);
    expect(head.headers.get('etag')).toBe('"2"');
    expect(await head.text()).toBe('');
  });

  it('can push the records it read back as created again, a no-op, parent links included', async () => {
    const flightId = await newFlight();
    const adult = contractRecord(flightId, 10, { is_carring_infant: true, row_number: 1 });
    const infant = contractRecord(flightId, 11, { name: 'NINA', gender: 'F', date_born: '2026-03-01', row_number: 2, row_number_parent_id: 1 });
    expect((await push(flightId, { created: [adult, infant], modified: [], deleted: [] })).status).toBe(200);
    const records = await json(await read(flightId));
    expect(records.map((record: { id: number; parent_id: number | null }) => [record.id, record.parent_id])).toEqual([[10, null], [11, 10]]);

    const again = await push(flightId, { created: records, modified: [], deleted: [] });
    expect(again.status).toBe(200);
    expect(await json(again)).toMatchObject({ version: 1, created: 0, passengers: 2 });
  });

  it('is answered 404 for an unknown flight, 400 for a bad id or a query parameter, 401 and 403 by scope, 405 with Allow', async () => {
    expect((await read(999_999)).status).toBe(404);
    const flightId = await newFlight();
    const badId = await fetch(`${base}/flight/abc/passenger`, { headers });
    expect(badId.status).toBe(400);
    const withQuery = await fetch(`${base}/flight/${flightId}/passenger?page=2`, { headers });
    expect(withQuery.status).toBe(400);
    expect((await json(withQuery)).error.details[0].field).toBe('page');
    expect((await fetch(`${base}/flight/${flightId}/passenger`)).status).toBe(401);
    const writerOnly = await fetch(`${base}/flight/${flightId}/passenger`, { headers: { Authorization: `Bearer ${await testApp.token(['passengers:write'])}` } });
    expect(writerOnly.status).toBe(403);
    expect(writerOnly.headers.get('www-authenticate')).toContain('scope="passengers:read"');
    const wrongMethod = await fetch(`${base}/flight/${flightId}/passenger`, { method: 'DELETE', headers });
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('allow')).toBe('GET, HEAD, POST');
  });
});
