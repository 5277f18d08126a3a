/** The engine's worker thread (see thread.ts): starts the engine, posts its logs, stops when asked. */
import { parentPort, workerData } from 'node:worker_threads';
import { startEmbeddedMongo, type EmbeddedMongo } from './index';
import { plainError, serialisable, type EmbeddedLogger } from './logger';
import type { EngineThreadData, EngineThreadMessage, EngineThreadStop } from './thread';

const port = parentPort;
if (!port) throw new Error('thread-entry runs only as the embedded engine\'s worker thread (startEmbeddedMongoInThread)');
const { debug, ...options } = workerData as EngineThreadData;

const post = (message: EngineThreadMessage): void => {
  try {
    port.postMessage(message);
  } catch {
    // A log object that cannot cross threads: dropped rather than failing the engine's work.
  }
};

const log =
  (level: keyof EmbeddedLogger) =>
  (object: object, message?: string): void =>
    post({ type: 'log', level, object: serialisable(object), message });
const logger: EmbeddedLogger = { debug: debug ? log('debug') : () => undefined, warn: log('warn'), error: log('error') };

let engine: EmbeddedMongo | undefined;
port.on('message', (message: EngineThreadStop) => {
  if (message.type !== 'stop') return;
  void (engine?.stop() ?? Promise.resolve()).finally(() => {
    post({ type: 'stopped' });
    port.close();
  });
});

startEmbeddedMongo({ ...options, logger }).then(
  (started) => {
    engine = started;
    post({ type: 'listening', uri: started.uri, port: started.port, topology: started.topology, replicaSetName: started.replicaSetName });
  },
  (error: unknown) => post({ type: 'failed', error: plainError(error instanceof Error ? error : new Error(String(error))) }),
);
