import type { EngineThreadOptions } from '@broker/embedded-mongo/thread';
import { ConfigError } from '../config';

/** The development engine's API the service uses (its worker-thread mode). */
type EngineThreadModule = typeof import('@broker/embedded-mongo/thread');

/** Where the package's absence shows: Node's own message when it cannot find it. */
const NOT_INSTALLED = /^Cannot find module '@broker\/embedded-mongo[/']/;
/**
 * The package present without the development dependencies it loads with (its compiler,
 * `@swc/core`): what a plain `npm ci --omit=dev` of a full checkout installs, npm installing every
 * workspace.
 */
const LOADER_MISSING = /^Cannot find module '@swc\/core'/;

/**
 * Starts the embedded development engine (the `@broker/embedded-mongo` package) in a worker
 * thread. It is a development dependency: it is loaded here, when MONGODB_URI is unset, and never
 * by a service that has one, so a production install (without it) runs unchanged; without it and
 * without MONGODB_URI the service refuses to start, saying what to do.
 */
export async function startEmbeddedEngine(options: EngineThreadOptions): ReturnType<EngineThreadModule['startEmbeddedMongoInThread']> {
  let engine: EngineThreadModule;
  try {
    // A require at run time, not an import: the production build must neither contain the engine
    // nor load it (a static import would be resolved at start-up, MONGODB_URI set or not).
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    engine = require('@broker/embedded-mongo/thread') as EngineThreadModule;
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException;
    if (code === 'MODULE_NOT_FOUND' && (NOT_INSTALLED.test(message) || LOADER_MISSING.test(message))) {
      throw new ConfigError(
        'MONGODB_URI',
        'is not set and the embedded development engine (@broker/embedded-mongo, a development dependency) is not installed, or not with the development dependencies it loads with: set MONGODB_URI to a MongoDB, or install the development dependencies (`npm ci`)',
      );
    }
    throw error;
  }
  return engine.startEmbeddedMongoInThread(options);
}
