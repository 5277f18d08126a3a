/**
 * `npm run db -- [--port 27017] [--host 127.0.0.1] [--standalone | --replica-set rs0] [--enable-test-commands]`: the embedded engine alone, in a process of its
 * own, so the service and its database can be started, stopped (or frozen) apart, as with a real
 * MongoDB. It presents itself as a single-node replica set (transactions work), or with
 * `--standalone` as a standalone mongod that refuses them. Prints the mongodb:// URI on stdout; stops cleanly on SIGTERM or SIGINT. Data stays in
 * memory and is lost at exit: a development and test tool, never a production database.
 */
import { parseArgs } from 'node:util';
import { startEmbeddedMongo, type EmbeddedLogger } from './index';
import { serialisable } from './logger';

const USAGE =
  'Usage: npm run db -- [--port <0-65535, default 27017; 0: any free port>] [--host <interface, default 127.0.0.1>]\n' +
  '                     [--standalone (answer as a standalone mongod: no transactions) | --replica-set <name, default rs0>]\n' +
  '                     [--enable-test-commands (answer configureFailPoint, as mongod with enableTestCommands)]';

/** Warnings and errors only, as JSON lines on stderr: stdout carries the URI alone. */
const stderrLogger: EmbeddedLogger = {
  debug: () => undefined,
  warn: (object, message) => process.stderr.write(`${JSON.stringify({ level: 'warn', msg: message, ...serialisable(object) })}\n`),
  error: (object, message) => process.stderr.write(`${JSON.stringify({ level: 'error', msg: message, ...serialisable(object) })}\n`),
};

async function main(): Promise<void> {
  let values: { port?: string; host?: string; help?: boolean; standalone?: boolean; 'replica-set'?: string; 'enable-test-commands'?: boolean };
  try {
    ({ values } = parseArgs({
      options: {
        port: { type: 'string' },
        host: { type: 'string' },
        help: { type: 'boolean' },
        standalone: { type: 'boolean' },
        'replica-set': { type: 'string' },
        'enable-test-commands': { type: 'boolean' },
      },
    }));
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n${USAGE}\n`);
    process.exit(2);
  }
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const port = Number(values.port ?? 27017);
  if (!/^\d+$/.test(values.port ?? '0') || port > 65535) {
    process.stderr.write(`--port must be a whole number from 0 to 65535, got "${values.port}"\n${USAGE}\n`);
    process.exit(2);
  }
  if (values.standalone && values['replica-set'] !== undefined) {
    process.stderr.write(`--standalone and --replica-set exclude each other\n${USAGE}\n`);
    process.exit(2);
  }
  const engine = await startEmbeddedMongo({
    host: values.host ?? '127.0.0.1',
    port,
    logger: stderrLogger,
    topology: values.standalone ? 'standalone' : 'replicaSet',
    replicaSetName: values['replica-set'],
    testCommands: values['enable-test-commands'] === true,
  });
  process.stdout.write(`${engine.uri}\n`);
  const topology = engine.replicaSetName ? `a single-node replica set "${engine.replicaSetName}"` : 'a standalone server: no transactions';
  process.stderr.write(
    `embedded MongoDB engine listening as ${topology} (in memory, lost at exit, not a production database). Run the service against it with\n` +
      `  MONGODB_URI=${engine.uri}/broker npm start\n`,
  );
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    engine.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error('embedded engine: stop failed:', error);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

main().catch((error: unknown) => {
  process.stderr.write(`embedded engine failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
