import request from 'supertest';
import { loadConfig } from '../../src/config';
import { startTestApp, type TestApp } from '../helpers/test-app';

const TEMPLATE_URL_QUERY = '{ passengerTemplateUrl }';

async function links(app: TestApp, headers: Record<string, string>) {
  const call = (path: string) => {
    const pending = path === '/graphql' ? request(app.app).post(path) : request(app.app).get(path);
    for (const [name, value] of Object.entries(headers)) pending.set(name, value);
    return pending;
  };
  const openapi = await call('/api/broker/v0/openapi.json').expect(200);
  const graphql = await call('/graphql').set('Authorization', `Bearer ${await app.token()}`).send({ query: TEMPLATE_URL_QUERY });
  return { server: openapi.body.servers[0].url as string, template: graphql.body.data.passengerTemplateUrl as string };
}

describe('absolute links in answers', () => {
  let app: TestApp;
  afterEach(() => app?.close());

  it('never reflect a forged Host or X-Forwarded-Proto', async () => {
    app = await startTestApp('links_forged');
    const forged = await links(app, { Host: 'evil.example"><script>', 'X-Forwarded-Proto': 'javascript' });
    expect(forged.server).toBe('http://broker.test/api/broker/v0');
    expect(forged.template).toBe('http://broker.test/api/broker/v0/upload/template.xlsx');
  });

  it('follow X-Forwarded-Proto only from a trusted proxy, and only http or https', async () => {
    app = await startTestApp('links_proxy', { TRUST_PROXY: 'loopback' });
    expect((await links(app, { Host: 'ops.example.com', 'X-Forwarded-Proto': 'https' })).server).toBe('https://ops.example.com/api/broker/v0');
    expect((await links(app, { Host: 'ops.example.com', 'X-Forwarded-Proto': 'javascript' })).server).toBe('http://ops.example.com/api/broker/v0');
  });

  it('come from PUBLIC_URL when it is set, whatever the request says', async () => {
    app = await startTestApp('links_public_url', { PUBLIC_URL: 'https://broker.example.com/gateway/' });
    const answer = await links(app, { Host: 'evil.example', 'X-Forwarded-Proto': 'http' });
    expect(answer.server).toBe('https://broker.example.com/gateway/api/broker/v0');
    expect(answer.template).toBe('https://broker.example.com/gateway/api/broker/v0/upload/template.xlsx');
  });
});

describe('configuration of links and proxies', () => {
  it.each([
    ['PUBLIC_URL', 'javascript://x', /PUBLIC_URL must be an http\(s\) URL/],
    ['PUBLIC_URL', 'broker.example.com', /PUBLIC_URL must be an absolute http\(s\) URL/],
    ['PUBLIC_URL', 'https://user:pw@broker.example.com', /without query, fragment or credentials/],
    ['TRUST_PROXY', '10.0.0.0/33', /TRUST_PROXY must be false, a hop count/],
    ['TRUST_PROXY', 'everyone', /"everyone" is none of these/],
  ])('refuses %s=%s naming the variable', (variable, value, message) => {
    expect(() => loadConfig({ [variable]: value })).toThrow(message);
  });

  it('reads TRUST_PROXY as none by default, a hop count, or a list', () => {
    expect(loadConfig({}).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: '1' }).trustProxy).toBe(1);
    expect(loadConfig({ TRUST_PROXY: 'loopback, 10.0.0.0/8, ::1' }).trustProxy).toEqual(['loopback', '10.0.0.0/8', '::1']);
  });
});
