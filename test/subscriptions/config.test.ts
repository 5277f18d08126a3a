import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ConfigError, loadConfig } from '../../src/config';

/* The WebSocket settings: validated at start-up, documented in docs/configuration.md's table and in .env.example. */

const ROOT = path.resolve(__dirname, '../..');
const VARIABLES = {
  WS_MAX_CONNECTIONS_PER_SUBJECT: 'maxConnectionsPerSubject',
  WS_MAX_SUBSCRIPTIONS_PER_CONNECTION: 'maxSubscriptionsPerConnection',
  WS_CONNECTION_INIT_TIMEOUT_MS: 'connectionInitTimeoutMs',
  WS_KEEPALIVE_MS: 'keepAliveMs',
  WS_IDLE_TIMEOUT_MS: 'idleTimeoutMs',
  WS_MAX_BUFFERED_BYTES: 'maxBufferedBytes',
  WS_MAX_QUEUED_EVENTS: 'maxQueuedEvents',
  WS_MAX_MESSAGE_BYTES: 'maxMessageBytes',
  WS_MAX_PENDING_CONNECTIONS_PER_ADDRESS: 'maxPendingPerAddress',
} as const;

describe('WebSocket configuration', () => {
  const readme = readFileSync(path.join(ROOT, 'docs/configuration.md'), 'utf8');
  const example = readFileSync(path.join(ROOT, '.env.example'), 'utf8');

  it.each(Object.entries(VARIABLES))('%s is read, validated and documented', (variable, key) => {
    const defaults = loadConfig({}).subscriptions;
    expect(loadConfig({ [variable]: String(defaults[key] + 1000) }).subscriptions[key]).toBe(defaults[key] + 1000);
    expect(() => loadConfig({ [variable]: 'many' })).toThrow(ConfigError);
    expect(() => loadConfig({ [variable]: 'many' })).toThrow(new RegExp(`^Invalid configuration: ${variable} must be a whole number`));
    expect(() => loadConfig({ [variable]: '0' })).toThrow(variable);
    // The configuration chapter's row gives the default the code uses; .env.example lists it with that default.
    const row = readme.split('\n').find((line) => line.startsWith(`| \`${variable}\` |`));
    expect(row).toContain(`\`${defaults[key]}\``);
    expect(example).toContain(`# ${variable}=${defaults[key]}\n`);
  });
});
