/** Jest runs TypeScript through SWC (no type-check here: `tsc --noEmit` does that in `npm test`). */
const swc = {
  jsc: {
    parser: { syntax: 'typescript', decorators: true },
    transform: { legacyDecorator: true, decoratorMetadata: true },
    target: 'es2022',
  },
  module: { type: 'commonjs' },
};

module.exports = {
  testEnvironment: 'node',
  // The embedded engine's own tests run in the same suite (packages/embedded-mongo/test), against
  // the same server: the engine global setup starts, or the real MongoDB named by MONGODB_URI.
  roots: ['<rootDir>/test', '<rootDir>/packages/embedded-mongo/test'],
  testMatch: ['**/*.test.ts'],
  setupFiles: ['<rootDir>/test/helpers/setup.ts'],
  // One embedded engine for the whole run, unless MONGODB_URI names a real MongoDB.
  globalSetup: '<rootDir>/test/helpers/global-setup.ts',
  globalTeardown: '<rootDir>/test/helpers/global-teardown.ts',
  transform: { '^.+\\.(t|j)sx?$|^.+\\.mjs$': ['@swc/jest', swc] },
  // jose 6 and the upload client test/clients uses (apollo-upload-client, extract-files) ship ESM
  // only; let SWC turn them into CommonJS for jest on Node 20.
  transformIgnorePatterns: ['/node_modules/(?!(jose|apollo-upload-client|extract-files|is-plain-obj)/)'],
  // A liveness bound: on a machine at load 30 and more a sound test can take minutes (tests wait
  // for conditions, never for fixed times, so a slow machine makes them slow, not wrong).
  testTimeout: 180_000,
  maxWorkers: 2,
};
