import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import express from 'express';
import { chromium } from 'playwright-core';
import request from 'supertest';
import { ALL_SCOPES, mintToken } from '../../src/auth';
import { loadConfig } from '../../src/config';
import { explorerRouter } from '../../src/graphql/explorer';
import { listen } from '../clients/listening-app';
import { startTestApp, TEST_SECRET, type TestApp } from '../helpers/test-app';
import { createFlight, createReferenceData, RESOURCES } from '../helpers/timeline-fixtures';

const CHROMIUM = '/usr/bin/chromium';
const haveChromium = existsSync(CHROMIUM);
if (!haveChromium) console.warn(`SKIPPED the browser test of test/graphql/explorer.test.ts: ${CHROMIUM} is missing (install it with: apt-get install -y chromium)`);
const itInChromium = haveChromium ? it : it.skip;

/** Checks `condition` every 200 ms until it holds; fails naming `what` after 60 s (a liveness bound). */
async function until(condition: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const started = Date.now();
  while (!(await condition())) {
    if (Date.now() - started > 60_000) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** Any absolute or protocol-relative URL in an attribute: the page must load nothing from elsewhere. */
const EXTERNAL_URL = /(?:src|href)\s*=\s*["']?(?:[a-z]+:)?\/\//i;
const packageFile = (name: string, file: string) => readFileSync(path.join(path.dirname(require.resolve(`${name}/package.json`)), file));

describe('the offline explorer (GraphiQL from npm) and the Sandbox landing page', () => {
  let testApp: TestApp;
  let DEV_TOKEN: string;

  beforeAll(async () => {
    // What main.ts prints and hands to createApp: a token the app accepts, with every scope.
    DEV_TOKEN = await mintToken(loadConfig({ NODE_ENV: 'test', JWT_SECRET: TEST_SECRET }).auth, { sub: 'dev', scope: [...ALL_SCOPES], ttlSeconds: 3600 });
    // TRUST_PROXY=loopback lets a test pose as a browser elsewhere on the network (X-Forwarded-For).
    testApp = await startTestApp('graphql_explorer', { TRUST_PROXY: 'loopback' }, { devToken: DEV_TOKEN });
    await createReferenceData(testApp);
  });
  afterAll(() => testApp?.close());

  it('serves GraphiQL at /graphiql with every asset from the app, none from a CDN', async () => {
    const page = await request(testApp.app).get('/graphiql').expect(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.text).not.toMatch(EXTERNAL_URL);
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
    const assets = [...page.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1]);
    expect(assets.sort()).toEqual(['graphiql/assets/graphiql.min.css', 'graphiql/assets/graphiql.min.js', 'graphiql/assets/graphql-ws.min.js', 'graphiql/assets/react-dom.production.min.js', 'graphiql/assets/react.production.min.js', 'graphiql/assets/start.js']);
    const expected: Record<string, Buffer> = {
      'graphiql.min.js': packageFile('graphiql', 'graphiql.min.js'),
      'graphiql.min.css': packageFile('graphiql', 'graphiql.min.css'),
      'react.production.min.js': packageFile('react', 'umd/react.production.min.js'),
      'react-dom.production.min.js': packageFile('react-dom', 'umd/react-dom.production.min.js'),
      'graphql-ws.min.js': packageFile('graphql-ws', 'umd/graphql-ws.min.js'),
    };
    for (const [name, bytes] of Object.entries(expected)) {
      const asset = await request(testApp.app).get(`/graphiql/assets/${name}`).buffer(true).parse((res, done) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => done(null, Buffer.concat(chunks)));
      });
      expect([name, asset.status, asset.headers['content-type']?.split(';')[0]]).toEqual([name, 200, name.endsWith('.css') ? 'text/css' : 'text/javascript']);
      expect(Buffer.compare(asset.body as Buffer, bytes)).toBe(0);
    }
    const start = await request(testApp.app).get('/graphiql/assets/start.js').expect(200);
    expect(start.text).toContain('GraphiQL.createFetcher');
    await request(testApp.app).get('/graphiql/assets/package.json').expect(404);
    await request(testApp.app).get('/graphiql/assets/..%2F..%2Fpackage.json').expect(404);
  });

  it('pre-fills the development token for a browser on this machine, and only for it', async () => {
    const local = await request(testApp.app).get('/graphiql').expect(200);
    expect(local.text).toContain(`Bearer ${DEV_TOKEN}`);
    const remote = await request(testApp.app).get('/graphiql').set('X-Forwarded-For', '203.0.113.9').expect(200);
    expect(remote.text).not.toContain(DEV_TOKEN);
    expect(remote.text).toContain('Bearer \\u003ctoken\\u003e');
  });

  it('withholds the token from a page asked for under another site’s name (DNS rebinding), and says why', async () => {
    for (const host of ['evil.example:4651', 'evil.example', 'localhost.evil.example', '127.0.0.1.nip.io:4651', '10.0.0.5:4651', '[::2]:4651', 'localhost.']) {
      const explorer = await request(testApp.app).get('/graphiql').set('Host', host).expect(200);
      expect({ host, token: explorer.text.includes(DEV_TOKEN) }).toEqual({ host, token: false });
      expect(explorer.text).toContain('The development token is not filled in: this page was asked for under a name other than localhost');
      const landing = await request(testApp.app).get('/graphql').set('Host', host).set('Accept', 'text/html').expect(200);
      expect({ host, token: landing.text.includes(DEV_TOKEN) }).toEqual({ host, token: false });
      expect(landing.text).toContain('<p id="dev-token-notice">The development token is not filled in');
      expect(landing.text).toContain('"document":"# The development token is not filled in');
    }
    // The rebound page may add X-Forwarded-Host (same-origin for it), and a proxy may pass the browser's name there.
    for (const [host, forwarded] of [['evil.example:4651', 'localhost:4651'], ['localhost:4651', 'evil.example'], ['localhost', 'localhost, evil.example']]) {
      const explorer = await request(testApp.app).get('/graphiql').set('Host', host).set('X-Forwarded-Host', forwarded).expect(200);
      expect({ host, forwarded, token: explorer.text.includes(DEV_TOKEN) }).toEqual({ host, forwarded, token: false });
      const landing = await request(testApp.app).get('/graphql').set('Host', host).set('X-Forwarded-Host', forwarded).set('Accept', 'text/html').expect(200);
      expect({ host, forwarded, token: landing.text.includes(DEV_TOKEN) }).toEqual({ host, forwarded, token: false });
    }
    for (const host of ['localhost:4651', 'LOCALHOST', 'broker.localhost:4651', '127.0.0.1', '127.3.2.1:4651', '[::1]:4651', '[::ffff:127.0.0.1]']) {
      const explorer = await request(testApp.app).get('/graphiql').set('Host', host).expect(200);
      expect({ host, token: explorer.text.includes(`Bearer ${DEV_TOKEN}`) }).toEqual({ host, token: true });
      expect(explorer.text).not.toContain('The development token is not filled in');
      const landing = await request(testApp.app).get('/graphql').set('Host', host).set('Accept', 'text/html').expect(200);
      expect({ host, token: landing.text.includes(DEV_TOKEN) }).toEqual({ host, token: true });
      expect(landing.text).not.toContain('dev-token-notice');
    }
  });

  it('forbids caching either page that can carry the token', async () => {
    for (const path of ['/graphiql', '/graphql']) {
      const page = await request(testApp.app).get(path).set('Accept', 'text/html').expect(200);
      expect(page.text).toContain(DEV_TOKEN);
      expect([path, page.headers['cache-control']]).toEqual([path, 'no-store']);
    }
  });

  it('links the Sandbox landing page’s offline fallback to /graphiql and pre-fills the token there too', async () => {
    const local = await request(testApp.app).get('/graphql').set('Accept', 'text/html').expect(200);
    expect(local.text).toMatch(/<a id="offline-explorer" href="\.\/graphiql">/);
    expect(local.text).not.toContain('Apollo Sandbox cannot be loaded; it appears that you might be offline.</p>');
    expect(local.text).toContain(`"headers":{"Authorization":"Bearer ${DEV_TOKEN}"}`);
    const remote = await request(testApp.app).get('/graphql').set('Accept', 'text/html').set('X-Forwarded-For', '203.0.113.9').expect(200);
    expect(remote.text).toContain('offline-explorer');
    expect(remote.text).not.toContain(DEV_TOKEN);
  });

  it('is not served when introspection is off (production by default): the explorer could not read the schema', async () => {
    const app = express().use(explorerRouter({ ...testApp.config, introspection: false }, DEV_TOKEN));
    await request(app).get('/graphiql').expect(404);
    await request(app).get('/graphiql/assets/graphiql.min.js').expect(404);
  });

  itInChromium('runs a query in Chromium with no request leaving the machine, and is reached from Sandbox’s offline fallback', async () => {
    const server = await listen(testApp.app);
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'] });
    try {
      const context = await browser.newContext();
      const elsewhere: string[] = [];
      // The machine is offline for the page: any request to another host is recorded and refused.
      await context.route('**/*', (route) => {
        const url = route.request().url();
        if (url.startsWith(server.url)) return route.continue();
        elsewhere.push(url);
        return route.abort();
      });
      const page = await context.newPage();
      const pageErrors: string[] = [];
      page.on('pageerror', (error) => pageErrors.push(error.message));
      // GraphiQL reads the schema first: its introspection query passes the introspection limits.
      const introspection = page.waitForResponse((response) => response.url() === `${server.url}/graphql` && (response.request().postData() ?? '').includes('__schema'));
      await page.goto(`${server.url}/graphiql`);
      await page.locator('.graphiql-container').waitFor({ timeout: 20_000 });
      const schema = await introspection;
      expect(schema.status()).toBe(200);
      expect(((await schema.json()) as { data?: { __schema?: { queryType?: { name?: string } } } }).data?.__schema?.queryType?.name).toBe('Query');
      // The headers editor shows the pre-filled development token.
      await page.getByText(`Bearer ${DEV_TOKEN.slice(0, 20)}`, { exact: false }).first().waitFor({ timeout: 10_000 });
      const answer = page.waitForResponse((response) => response.url() === `${server.url}/graphql` && (response.request().postData() ?? '').includes('NextWeek'));
      await page.locator('.graphiql-execute-button').click();
      const response = await answer;
      expect(response.request().headers()['authorization']).toBe(`Bearer ${DEV_TOKEN}`);
      expect(response.status()).toBe(200);
      await page.locator('.result-window').getByText(RESOURCES[0].title).first().waitFor({ timeout: 10_000 });
      expect(pageErrors).toEqual([]);
      expect(elsewhere).toEqual([]);

      // Sandbox cannot load from its CDN here: its fallback leads to the explorer.
      const landing = await context.newPage();
      await landing.goto(`${server.url}/graphql`);
      await landing.locator('#offline-explorer').click({ timeout: 10_000 });
      await landing.locator('.graphiql-container').waitFor({ timeout: 20_000 });
      expect(landing.url()).toBe(`${server.url}/graphiql`);
      // Sandbox did try its CDN (and was refused), so the fallback was the offline path.
      expect(elsewhere.some((url) => url.startsWith('https://embeddable-sandbox.cdn.apollographql.com/'))).toBe(true);
    } finally {
      await browser.close();
      await server.close();
    }
  });

  itInChromium('runs a subscription in Chromium over the WebSocket, with the token of its Headers tab', async () => {
    const server = await listen(testApp.app, testApp.gateway);
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'] });
    try {
      const page = await browser.newPage();
      const pageErrors: string[] = [];
      page.on('pageerror', (error) => pageErrors.push(error.message));
      const sockets: string[] = [];
      page.on('websocket', (socket) => sockets.push(socket.url()));
      await page.goto(`${server.url}/graphiql`);
      await page.locator('.graphiql-container').waitFor({ timeout: 20_000 });
      await page.getByText(`Bearer ${DEV_TOKEN.slice(0, 20)}`, { exact: false }).first().waitFor({ timeout: 10_000 });
      // Replace the default query with a subscription (inserted as text: typing would auto-close brackets).
      await page.locator('.graphiql-query-editor .CodeMirror').first().click();
      await page.keyboard.press('Control+A');
      await page.keyboard.insertText('subscription Watch { timelineChanged(start: "2026-12-01", end: "2026-12-31") { change eventType flightId } }');
      // GraphiQL reparses the editor a moment after an edit: a click before that runs the previous
      // document (an HTTP error here). Click again until the subscription opens its WebSocket.
      for (let attempt = 1; sockets.length === 0; attempt += 1) {
        const before = await page.locator('.result-window').innerText();
        await page.locator('.graphiql-execute-button').click();
        await until(async () => sockets.length > 0 || (await page.locator('.result-window').innerText()) !== before, 'the explorer to run the document');
        if (sockets.length === 0 && attempt >= 5) {
          throw new Error(`the explorer never opened a WebSocket; results: ${await page.locator('.result-window').innerText()}; errors: ${pageErrors.join(' | ')}`);
        }
      }
      expect(sockets[0]).toBe(`${server.url.replace(/^http/, 'ws')}/graphql`);
      // The socket is open before graphql-ws has subscribed: create flights until one shows (only ENTERED ones can).
      const created: number[] = [];
      await until(async () => {
        created.push(await createFlight(testApp, { resourceId: 1, from: 'LIRF', to: 'LPPT', departureAt: '2026-12-10T09:00:00Z', arrivalAt: '2026-12-10T12:00:00Z' }));
        return (await page.locator('.result-window').innerText()).includes('"ENTERED"');
      }, 'a timelineChanged result').catch(async (error: Error) => {
        // Seen once in CI (not reproduced in 7 runs since): say what the page showed, for the next time.
        throw new Error(`${error.message} after ${created.length} flights; result window: ${await page.locator('.result-window').innerText()}; page errors: ${pageErrors.join(' | ') || 'none'}; sockets: ${sockets.join(', ')}`);
      });
      const shown = await page.locator('.result-window').innerText();
      expect(shown).toContain('"eventType": "flight.created"');
      expect(created.some((flightId) => shown.includes(`"flightId": ${flightId}`))).toBe(true);
      expect(pageErrors).toEqual([]);
    } finally {
      await browser.close();
      await server.close();
    }
  });
});
