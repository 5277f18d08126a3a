import request from 'supertest';
import { seedDemoData } from '../../src/seed/seed';
import { startTestApp, type TestApp } from '../helpers/test-app';

/*
 * Issue 9: a push body's size decides the work spent on it, not the other way round, and an
 * error's size stays bounded however many problems the body has.
 */

const PUSH_URL = '/api/broker/v0/flight/1/passenger';

describe('REST push limits', () => {
  let testApp: TestApp;
  beforeAll(async () => {
    testApp = await startTestApp('rest_push_limits');
    await seedDemoData(testApp.database.models, { today: new Date('2026-11-21T00:00:00Z'), flights: 5 });
  });
  afterAll(() => testApp.close());

  const push = async (body: unknown, token?: string) => {
    const call = request(testApp.app).post(PUSH_URL).set('Content-Type', 'application/json');
    if (token) call.set('Authorization', `Bearer ${token}`);
    return call.send(JSON.stringify(body));
  };

  it('answers an anonymous push of 240,000 ids with 401 and a small body', async () => {
    const response = await push({ created: [], modified: [], deleted: Array.from({ length: 240_000 }, () => 'x') });
    expect(response.status).toBe(401);
    expect(response.body.error.code).toBe('UNAUTHENTICATED');
    expect(response.text.length).toBeLessThan(1024);
  });

  it('refuses created = [0 ×100,000] with 413 from its length, naming the group and the limit', async () => {
    const response = await push({ created: Array.from({ length: 100_000 }, () => 0), modified: [], deleted: [] }, await testApp.token());
    expect(response.status).toBe(413);
    expect(response.body.error.code).toBe('PAYLOAD_TOO_LARGE');
    expect(response.body.error.message).toContain('created holds 100000 items: at most 5000');
    expect(response.body.error.details).toEqual([{ field: 'created', message: 'at most 5000 items', limit: 5000 }]);
    expect(response.text.length).toBeLessThan(1024);
  });

  it('answers 4,000 bad deleted ids with the first 100 problems and a count of the rest', async () => {
    const response = await push({ created: [], modified: [], deleted: Array.from({ length: 4_000 }, (_, index) => `bad-${index}`) }, await testApp.token());
    expect(response.status).toBe(422);
    const { details, message } = response.body.error;
    expect(details).toHaveLength(101);
    expect(details[100]).toEqual({ message: '3900 more problems not listed (only the first 100 are)', omitted: 3900 });
    expect(message.length).toBeLessThanOrEqual(2100);
    expect(response.text.length).toBeLessThan(40_000);
  });

  it('cuts long values echoed in error details', async () => {
    const surname = 'X'.repeat(5_000);
    const response = await push({ created: [{ id: 1, surname, name: 'A', luogonascita: 'IT' }], modified: [], deleted: [] }, await testApp.token());
    expect(response.status).toBeGreaterThanOrEqual(400);
    expect(response.status).toBeLessThan(500);
    expect(response.text).not.toContain('X'.repeat(201));
  });
});
