/**
 * Jest as the mutation runs use it (`npm run mutation`, stryker.config.mjs): the project's
 * configuration, restricted to the tests of the module being mutated (MUTATION_MODULE, a key of
 * stryker.modules.cjs; all of them when unset). These tests call the modules' exported functions
 * directly and need no database, so the embedded engine of the global setup is not started.
 */
const base = require('./jest.config.cjs');
const modules = require('./stryker.modules.cjs');

const chosen = process.env.MUTATION_MODULE ? [modules[process.env.MUTATION_MODULE]] : Object.values(modules);
if (chosen.includes(undefined)) throw new Error(`MUTATION_MODULE "${process.env.MUTATION_MODULE}" is none of ${Object.keys(modules).join(', ')}`);
const tests = [...new Set(chosen.flatMap((module) => module.tests))];

const { globalSetup: _setup, globalTeardown: _teardown, ...withoutDatabase } = base;

module.exports = {
  ...withoutDatabase,
  testMatch: tests.map((file) => `<rootDir>/${file}`),
};
