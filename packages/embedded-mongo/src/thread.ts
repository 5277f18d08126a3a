import path from 'node:path';
import { Worker, type ResourceLimits } from 'node:worker_threads';
import type { EmbeddedMongo, EmbeddedMongoOptions } from './index';
import { silentLogger, type EmbeddedLogger, type plainError } from './logger';

/** What the engine's thread is started with (workerData): its options, less the logger, which stays here. */
export interface EngineThreadData extends Omit<EmbeddedMongoOptions, 'logger'> {
  /** Whether the thread posts debug lines (each one costs a message between threads). */
  debug: boolean;
}

/** Messages from the engine's thread. */
export type EngineThreadMessage =
  | { type: 'listening'; uri: string; port: number; topology: EmbeddedMongo['topology']; replicaSetName: string | undefined }
  | { type: 'failed'; error: ReturnType<typeof plainError> }
  | { type: 'log'; level: keyof EmbeddedLogger; object: object; message: string | undefined }
  | { type: 'stopped' };

/** The message that asks the engine's thread to stop. */
export interface EngineThreadStop {
  type: 'stop';
}

export interface EngineThreadOptions extends EmbeddedMongoOptions {
  /** A pino logger is asked whether debug lines are wanted; without it they are not sent. */
  logger?: EmbeddedLogger & { isLevelEnabled?(level: string): boolean };
  /**
   * Caps the engine's old generation (MiB; default: V8's own limit). Past it the thread ends with
   * ERR_WORKER_OUT_OF_MEMORY, logged, instead of the whole process running out of memory.
   */
  maxHeapMb?: number;
}

/** How long stop() waits for the thread to close its sockets before terminating it. */
const STOP_GRACE_MS = 5000;

/**
 * Starts the embedded engine in a worker thread: the same engine as startEmbeddedMongo(), reached
 * over the same mongodb:// URI, but with a V8 heap of its own, so its data (hundreds of MB with the
 * bench's datasets) is not traced by the service's garbage collections and the two run in parallel.
 * Why and the figures: README.md, "Performance decisions".
 *
 * The returned promise rejects if the engine cannot start (a port in use, bad options). If the
 * thread dies later, the error is logged and the process stays up: database operations fail (the
 * service answers 503) as with a real MongoDB that went away.
 */
export function startEmbeddedMongoInThread(options: EngineThreadOptions = {}): Promise<EmbeddedMongo> {
  const { logger: given, maxHeapMb, ...engineOptions } = options;
  const logger: NonNullable<EngineThreadOptions['logger']> = given ?? silentLogger;
  const workerData: EngineThreadData = { ...engineOptions, debug: logger.isLevelEnabled?.('debug') ?? false };
  const worker = startWorker(workerData, maxHeapMb === undefined ? undefined : { maxOldGenerationSizeMb: maxHeapMb });
  let running = false;
  let exited = false;
  let stopRequested = false;
  /** Why the thread ended, when it failed (the 'error' event comes before 'exit'). */
  let failure: Error | undefined;
  const exit = new Promise<number>((resolve) => worker.once('exit', resolve));

  return new Promise((resolve, reject) => {
    worker.on('message', (message: EngineThreadMessage) => {
      if (message.type === 'log') {
        logger[message.level](message.object, message.message);
      } else if (message.type === 'failed') {
        reject(Object.assign(new Error(message.error.message), message.error));
        void worker.terminate();
      } else if (message.type === 'listening') {
        running = true;
        resolve({ uri: message.uri, port: message.port, topology: message.topology, replicaSetName: message.replicaSetName, stop });
      }
    });
    worker.on('error', (error) => {
      failure = error;
      reject(error);
    });
    // One line per death of a running thread, with its error when it had one.
    worker.once('exit', (code) => {
      exited = true;
      if (!running) reject(new Error(`embedded mongo thread exited (code ${code}) before listening`));
      else if (!stopRequested) logger.error({ code, err: failure }, 'embedded mongo thread ended; database operations fail until the service restarts');
    });

    let stopped: Promise<void> | undefined;
    function stop(): Promise<void> {
      stopped ??= (async () => {
        stopRequested = true;
        if (exited) return;
        const finished = new Promise<void>((done) => {
          worker.on('message', (message: EngineThreadMessage) => message.type === 'stopped' && done());
          void exit.then(() => done());
        });
        worker.postMessage({ type: 'stop' } satisfies EngineThreadStop);
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([finished, new Promise((done) => (timer = setTimeout(done, STOP_GRACE_MS)))]);
        clearTimeout(timer);
        await worker.terminate();
      })();
      return stopped;
    }
  });
}

/**
 * The thread runs the same sources as this module: a compiled copy (.js) starts the compiled entry;
 * from the TypeScript sources (the package as shipped, see README.md) the thread compiles its
 * modules on load as the parent does: a worker shares no module loader with its parent.
 */
function startWorker(workerData: EngineThreadData, resourceLimits: ResourceLimits | undefined): Worker {
  if (__filename.endsWith('.js')) return new Worker(path.join(__dirname, 'thread-entry.js'), { workerData, resourceLimits });
  const register = path.resolve(__dirname, '../register.cjs');
  const entry = path.join(__dirname, 'thread-entry.ts');
  return new Worker(`require(${JSON.stringify(register)}); require(${JSON.stringify(entry)});`, { eval: true, workerData, resourceLimits });
}
