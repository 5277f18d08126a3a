import request from 'supertest';
import { startTestApp, type TestApp } from '../helpers/test-app';

const RESOURCES = '/api/broker/v0/resource/timeline/resources';

describe('rate limit by address and by token subject', () => {
  let limited: TestApp;
  afterEach(() => limited?.close());

  it('ignores X-Forwarded-For by default: rotating it from one address does not escape the limit', async () => {
    limited = await startTestApp('rate_limit_xff', { RATE_LIMIT_PER_MINUTE: '3' });
    const call = (i: number) => request(limited.app).post('/graphql').set('X-Forwarded-For', `10.0.${i}.1`).send({ query: '{ __typename }' });
    for (let i = 0; i < 3; i += 1) expect((await call(i)).status).toBe(200);
    const refused = await call(99);
    expect(refused.status).toBe(429);
    expect(refused.body.errors[0].message).toContain('from this client address');
  });

  it('limits a token subject across addresses when a trusted proxy reports them', async () => {
    limited = await startTestApp('rate_limit_subject', { RATE_LIMIT_PER_MINUTE: '3', TRUST_PROXY: 'loopback' });
    const alice = `Bearer ${await limited.token(['timeline:read'], 'alice')}`;
    const call = (i: number, bearer = alice) => request(limited.app).get(RESOURCES).set('X-Forwarded-For', `203.0.113.${i}`).set('Authorization', bearer);
    for (let i = 0; i < 3; i += 1) await call(i).expect(200);
    const refused = await call(50).expect(429);
    expect(refused.body.error.message).toContain('from this token subject');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    // Another subject from a fresh address is not affected by alice's count.
    await call(60, `Bearer ${await limited.token(['timeline:read'], 'bob')}`).expect(200);
  });

  it('counts distinct client addresses separately behind a trusted proxy', async () => {
    limited = await startTestApp('rate_limit_trusted', { RATE_LIMIT_PER_MINUTE: '2', TRUST_PROXY: 'loopback' });
    const call = (address: string) => request(limited.app).post('/graphql').set('X-Forwarded-For', address).send({ query: '{ __typename }' });
    for (let i = 0; i < 2; i += 1) expect((await call('198.51.100.7')).status).toBe(200);
    expect((await call('198.51.100.7')).status).toBe(429);
    expect((await call('198.51.100.8')).status).toBe(200);
  });

  it('does not let a forged token spend another subject\'s allowance (only verified subjects count)', async () => {
    limited = await startTestApp('rate_limit_forged', { RATE_LIMIT_PER_MINUTE: '2', TRUST_PROXY: 'loopback' });
    const forged = `Bearer ${Buffer.from('{"alg":"HS256"}').toString('base64url')}.${Buffer.from('{"sub":"alice","exp":9999999999}').toString('base64url')}.c2ln`;
    for (let i = 0; i < 4; i += 1) await request(limited.app).get(RESOURCES).set('X-Forwarded-For', `192.0.2.${i}`).set('Authorization', forged).expect(401);
    const alice = `Bearer ${await limited.token(['timeline:read'], 'alice')}`;
    await request(limited.app).get(RESOURCES).set('X-Forwarded-For', '192.0.2.200').set('Authorization', alice).expect(200);
  });
});
