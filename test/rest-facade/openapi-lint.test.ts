import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import request from 'supertest';
import { startTestApp, type TestApp } from '../helpers/test-app';

const REDOCLY = resolve(__dirname, '../../node_modules/.bin/redocly');
const maybe = existsSync(REDOCLY) ? describe : describe.skip;
if (!existsSync(REDOCLY)) console.warn(`SKIPPED the OpenAPI lint: ${REDOCLY} is missing (npm ci installs @redocly/cli)`);

maybe('the served OpenAPI document', () => {
  let testApp: TestApp;
  let directory: string;
  beforeAll(async () => {
    testApp = await startTestApp('openapi_lint', { PUBLIC_URL: 'https://broker.test' });
    directory = mkdtempSync(join(tmpdir(), 'openapi-lint-'));
  });
  afterAll(async () => {
    rmSync(directory, { recursive: true, force: true });
    await testApp.close();
  });

  it('passes @redocly/cli lint with its recommended rules without a single problem', async () => {
    const served = await request(testApp.app).get('/api/broker/v0/openapi.json').expect(200);
    const file = join(directory, 'openapi.json');
    writeFileSync(file, served.text);
    // Telemetry and update notices off: the lint must not try to reach the network.
    // It exits 1 when it finds errors; its report is on stdout either way.
    const { stdout } = await promisify(execFile)(REDOCLY, ['lint', file, '--format=json'], {
      cwd: directory,
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_NOTIFICATIONS: 'true', NO_COLOR: '1' },
      timeout: 60_000,
    }).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? '' }));
    const report = JSON.parse(stdout) as { totals: Record<string, number>; problems: { ruleId: string; message: string; location: { pointer: string }[] }[] };
    expect(report.problems.map((problem) => `${problem.ruleId} at ${problem.location[0]?.pointer}: ${problem.message}`)).toEqual([]);
    expect(report.totals).toEqual({ errors: 0, warnings: 0, ignored: 0 });
  });
});
