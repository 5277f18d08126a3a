import type { ApolloServerPlugin } from '@apollo/server';
import type { Metrics } from './metrics';

/**
 * Times every GraphQL operation Apollo runs (/graphql; the REST facade's prepared operations report
 * the same way, src/graphql/prepared-operation.ts):
 * `invalid` when it never reached execution (unparsable, invalid, refused by a guard), `error` when
 * its answer carries errors, else `success`.
 */
export function graphqlMetricsPlugin(metrics: Metrics): ApolloServerPlugin {
  return {
    async requestDidStart() {
      const started = process.hrtime.bigint();
      let operationType = 'unknown';
      let operationName: string | null | undefined;
      let executed = false;
      return {
        async didResolveOperation({ operation, operationName: name }) {
          operationType = operation?.operation ?? 'unknown';
          operationName = name;
        },
        // Reached once every plugin accepted the operation; the compiled (jit) execution answers
        // here and skips executionDidStart, so this plugin must come before it in the list.
        async responseForOperation() {
          executed = true;
          return null;
        },
        async executionDidStart() {
          executed = true;
        },
        async willSendResponse({ response }) {
          const errors = response.body.kind === 'single' ? response.body.singleResult.errors : undefined;
          const outcome = !executed ? 'invalid' : errors?.length ? 'error' : 'success';
          metrics.observeGraphQL(operationName, operationType, outcome, Number(process.hrtime.bigint() - started) / 1e9);
        },
      };
    },
  };
}
