// Mutation testing of the pure modules (`npm run mutation`; CONTRIBUTING.md, "Mutation testing").
// Stryker changes one small thing at a time in a module (an operator, a condition, a string) and
// runs the tests that cover it: a change no test notices is a "survivor", a gap in the tests.
// MUTATION_MODULE names the module (a key of stryker.modules.cjs); scripts/mutation.cjs runs each.
import { createRequire } from 'node:module';
import process from 'node:process';

const modules = createRequire(import.meta.url)('./stryker.modules.cjs');
const name = process.env.MUTATION_MODULE;
if (!name || !modules[name]) throw new Error(`set MUTATION_MODULE to one of ${Object.keys(modules).join(', ')} (npm run mutation does)`);

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  mutate: modules[name].mutate,
  testRunner: 'jest',
  // The project's jest configuration restricted to the module's tests, without the database.
  jest: { projectType: 'custom', configFile: 'jest.mutation.config.cjs', enableFindRelatedTests: false },
  // Each mutant runs only the tests that reached its code.
  coverageAnalysis: 'perTest',
  // The machine is shared (2 cores).
  concurrency: 2,
  // Mutants whose code and tests did not change since the last run keep their result.
  incremental: true,
  incrementalFile: `reports/mutation/${name}/stryker-incremental.json`,
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: `reports/mutation/${name}/index.html` },
  jsonReporter: { fileName: `reports/mutation/${name}/mutation.json` },
  // Every module must keep 85 % or more: the run fails under `break`.
  thresholds: { high: 90, low: 85, break: 85 },
  tempDirName: `.stryker-tmp/${name}`,
  // Not copied into the sandbox: earlier reports and build output.
  ignorePatterns: ['/reports', '/dist', '/coverage', '/test-artifacts'],
  cleanTempDir: 'always',
  // A slow machine makes a test slow, not wrong.
  timeoutMS: 60_000,
};
