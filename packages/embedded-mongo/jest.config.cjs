/**
 * The package's tests alone (`npm test` in this folder): against the engine that test/global-setup.ts
 * starts from these sources, or the real MongoDB named by MONGODB_URI. The repository's root suite
 * runs the same files with its own configuration.
 */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  globalSetup: '<rootDir>/test/global-setup.ts',
  globalTeardown: '<rootDir>/test/global-teardown.ts',
  transform: { '^.+\\.ts$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'commonjs' } }] },
  testTimeout: 180_000,
  maxWorkers: 2,
};
