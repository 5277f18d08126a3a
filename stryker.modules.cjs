/**
 * The modules `npm run mutation` mutates, each with the test files that test it (CONTRIBUTING.md,
 * "Mutation testing"). Each module is its own Stryker run: a mutant of a module-level constant
 * ("static" mutant) reruns every test of the run, so a run holds only the tests of its module.
 */
module.exports = {
  'passenger-normalize': {
    mutate: ['src/passengers/passenger.normalize.ts'],
    tests: ['test/passengers/passenger.normalize.test.ts', 'test/passengers/sheet/date-order.test.ts'],
  },
  'passenger-list-plan': {
    mutate: ['src/passengers/passenger-list.plan.ts'],
    tests: ['test/passengers/passenger-list.plan.test.ts'],
  },
  // The sheet reader's pure decisions: which row is the header and what its columns hold, and the
  // order of a column's text dates. The rest of the reader streams zip and XML (no pure module).
  'sheet-reader': {
    mutate: ['src/passengers/sheet/header-row.ts', 'src/passengers/sheet/date-order.ts'],
    tests: ['test/passengers/sheet/header-row.test.ts', 'test/passengers/sheet/date-order.test.ts'],
  },
  'date-range': {
    mutate: ['src/timeline/date-range.ts'],
    tests: ['test/timeline/date-range.test.ts'],
  },
};
