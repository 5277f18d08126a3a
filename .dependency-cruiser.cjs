// The import rules of the code base (npm run lint:deps, part of npm test): no cycles, and arrows
// that only point down the floors described in CONTRIBUTING.md ("Floors"). Type-only imports count:
// they tie files together as much as any other.

/** The service's own code, and the embedded engine's package (no cycles there either). */
const ours = '^(src|rest-facade|packages)/';

// Floors, bottom up. A file may import its own floor and the ones below it.
const foundation = '^src/(shared/|config/|errors\\.ts$|logger\\.ts$)';
const infrastructure = '^src/(db|auth)/';
const features = '^src/(airports|resources|flights|timeline|passengers|changes|webhooks|seed)/';
/** A feature's GraphQL face: its types, inputs, arguments and resolvers. */
const apiRole = '\\.(resolver|type|input|args|schema)\\.ts$';
const domainWiring = '^src/(models|services)\\.ts$';
const graphqlKit = '^src/graphql-kit/';
const serving = '^(src/(graphql|subscriptions|http|health|metrics|telemetry)/|rest-facade/)';
const composition = '^src/(app|main)\\.ts$';

const above = {
  foundation: [infrastructure, features, domainWiring, graphqlKit, serving, composition],
  infrastructure: [features, domainWiring, graphqlKit, serving, composition],
  domain: [graphqlKit, serving, composition],
  api: [serving, composition],
  serving: [composition],
};

function floorRule(name, from, forbiddenTargets, comment) {
  return {
    name: `${name}-imports-no-higher-floor`,
    comment,
    severity: 'error',
    from,
    to: { path: forbiddenTargets },
  };
}

module.exports = {
  forbidden: [
    {
      name: 'no-cycles',
      comment: 'Import cycles make load order matter and hide which module owns what.',
      severity: 'error',
      from: { path: ours },
      to: { circular: true },
    },
    {
      name: 'engine-only-through-the-database-layer',
      comment: 'The embedded engine is a development dependency: only src/db/ starts it, so the production build never needs it.',
      severity: 'error',
      from: { path: '^(src|rest-facade)/', pathNot: '^src/db/' },
      to: { path: '^packages/embedded-mongo/' },
    },
    floorRule('foundation', { path: foundation }, above.foundation, 'shared/, errors, logger and config know nothing of the service.'),
    floorRule('infrastructure', { path: infrastructure }, above.infrastructure, 'db/ and auth/ know no feature (the model registry is src/models.ts).'),
    floorRule('domain', { path: [features, domainWiring], pathNot: apiRole }, [...above.domain, `${features}.*${apiRole}`], 'Models, services and rules know nothing of GraphQL.'),
    floorRule('api', { path: [`${features}.*${apiRole}`, graphqlKit] }, above.api, 'Types and resolvers know nothing of the server that runs them.'),
    floorRule('serving', { path: serving }, above.serving, 'Transports are wired together by app.ts and main.ts, not by each other.'),
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    includeOnly: ours,
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    exclude: { path: '^(src/graphql/generated/|packages/[^/]+/(test|node_modules)/)' },
  },
};
