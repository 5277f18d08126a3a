import { loadConfig } from '../../src/config';

const BASE = { NODE_ENV: 'test', JWT_SECRET: 'test-secret-that-is-at-least-32-bytes-long!' };

describe('webhook configuration', () => {
  it('defaults to public targets only, Standard Webhooks’ retry schedule over more than a day, and five days of failures before disabling', () => {
    const { webhooks } = loadConfig(BASE);
    expect(webhooks.allowedPrivateNetworks).toEqual([]);
    expect(webhooks.retryScheduleMs).toEqual([5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000]);
    expect(webhooks.retryScheduleMs.reduce((sum, delay) => sum + delay, 0)).toBeGreaterThan(24 * 3600_000);
    expect(webhooks.disableAfterMs).toBe(5 * 24 * 3600_000);
    expect(webhooks.requireHttps).toBe(false);
    expect(loadConfig({ ...BASE, NODE_ENV: 'production' }).webhooks.requireHttps).toBe(true);
  });

  it('reads the allow-list as normalised CIDR ranges', () => {
    const { webhooks } = loadConfig({ ...BASE, WEBHOOK_ALLOWED_PRIVATE_NETWORKS: '127.0.0.1, 10.0.0.0/8,fd00::/8, ::1' });
    expect(webhooks.allowedPrivateNetworks).toEqual(['127.0.0.1/32', '10.0.0.0/8', 'fd00::/8', '::1/128']);
  });

  it.each([
    [{ WEBHOOK_ALLOWED_PRIVATE_NETWORKS: 'intranet.local' }, 'WEBHOOK_ALLOWED_PRIVATE_NETWORKS'],
    [{ WEBHOOK_ALLOWED_PRIVATE_NETWORKS: '10.0.0.0/40' }, 'WEBHOOK_ALLOWED_PRIVATE_NETWORKS'],
    [{ WEBHOOK_RETRY_SCHEDULE_MS: '5s,1m' }, 'WEBHOOK_RETRY_SCHEDULE_MS'],
    [{ WEBHOOK_RETRY_SCHEDULE_MS: Array(21).fill('1').join(',') }, 'WEBHOOK_RETRY_SCHEDULE_MS'],
    [{ WEBHOOK_ATTEMPT_TIMEOUT_MS: '0' }, 'WEBHOOK_ATTEMPT_TIMEOUT_MS'],
    [{ WEBHOOK_CONCURRENCY: '2', WEBHOOK_CONCURRENCY_PER_ENDPOINT: '3' }, 'WEBHOOK_CONCURRENCY_PER_ENDPOINT'],
    [{ NODE_ENV: 'production', WEBHOOK_RETRY_SCHEDULE_MS: '100,200' }, 'WEBHOOK_RETRY_SCHEDULE_MS'],
    [{ NODE_ENV: 'production', WEBHOOK_DISABLE_AFTER_MS: '60000' }, 'WEBHOOK_DISABLE_AFTER_MS'],
  ])('refuses %j, naming %s', (env, variable) => {
    expect(() => loadConfig({ ...BASE, ...env })).toThrow(new RegExp(`^Invalid configuration: ${variable} `));
  });
});
