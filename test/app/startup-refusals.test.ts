import { killAll, startTypeScript } from './child-processes';

jest.setTimeout(120_000);

/** The service's entry point started with `env`; resolves with its exit code and what it printed. */
async function start(env: Record<string, string>): Promise<{ code: number | null; lines: string[] }> {
  const service = startTypeScript('src/main.ts', [], { HOME: process.env.HOME ?? '', ...env });
  const code = await service.exited;
  return { code, lines: service.output().split('\n').filter((line) => line.trim() !== '') };
}

describe('start-up refusals', () => {
  afterAll(() => killAll());

  it('are one fatal JSON log line whatever the cause: a bad variable, a key missing in production', async () => {
    const badVariable = await start({ LOG_LEVEL: 'loud' });
    const noKey = await start({ NODE_ENV: 'production', MONGODB_URI: 'mongodb://127.0.0.1:1/broker' });
    for (const [refusal, variable] of [
      [badVariable, 'LOG_LEVEL'],
      [noKey, 'JWT_SECRET'],
    ] as const) {
      expect(refusal.code).toBe(1);
      expect(refusal.lines).toHaveLength(1);
      const line = JSON.parse(refusal.lines[0]) as Record<string, unknown>;
      expect(line).toMatchObject({ level: 60, service: 'broker-flight-gateway', msg: expect.stringContaining('Invalid configuration') });
      expect(String(line.msg) + String(line.variable)).toContain(variable);
    }
  });

  it('are a readable line with LOG_FORMAT=pretty, and a bad LOG_FORMAT is itself refused', async () => {
    const pretty = await start({ LOG_FORMAT: 'pretty', TIMEZONE: 'Mars/Olympus' });
    expect(pretty.code).toBe(1);
    expect(pretty.lines.join('\n')).toMatch(/FATAL.*Invalid configuration: TIMEZONE must be an IANA time zone/);
    expect(() => JSON.parse(pretty.lines[0])).toThrow();

    const badFormat = await start({ LOG_FORMAT: 'xml' });
    expect(badFormat.code).toBe(1);
    expect(JSON.parse(badFormat.lines[0])).toMatchObject({ level: 60, variable: 'LOG_FORMAT' });
  });
});
