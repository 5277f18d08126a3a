import type { ApolloServerPlugin } from '@apollo/server';
import { Kind, type OperationDefinitionNode } from 'graphql';
import type { GraphQLContext } from '../graphql-kit/context';
import { AppError, ErrorCode } from '../errors';

/** What the gate asks: how long the database has been known to be down (0: it is not). */
export interface DatabaseState {
  readonly knownDown: boolean;
  downForMs(): number;
}

/** Seconds a client is told to wait: the driver checks the server more often than that. */
const RETRY_AFTER_SECONDS = 1;

/**
 * While the database is known to be down, an operation that would read or write data answers 503
 * at once, with Retry-After, instead of waiting for the driver to look for a server it will not find
 * (DB_SERVER_SELECTION_TIMEOUT_MS per request, and a queue of waiting requests). The REST facade's
 * prepared operations make the same check (`checkDatabase`), so its routes answer the same 503. Introspection
 * needs no database and is still answered.
 */
export function databaseGatePlugin(database: DatabaseState): ApolloServerPlugin<GraphQLContext> {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ operation }) {
          if (operation) checkDatabase(database, operation);
        },
      };
    },
  };
}

/** Throws the 503 while the database is known to be down, unless the operation needs no data. */
export function checkDatabase(database: DatabaseState, operation: OperationDefinitionNode): void {
  if (database.knownDown && !introspectionOnly(operation)) throw databaseKnownDown(database.downForMs());
}

/** The fast path's answer; its message differs from the one a driver time-out gets. */
export function databaseKnownDown(downForMs: number): AppError {
  const seconds = Math.floor(downForMs / 1000);
  return new AppError(ErrorCode.SERVICE_UNAVAILABLE, `The database is down (known for ${seconds} s): the request was not tried; try again shortly`, {
    headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) },
  });
}

function introspectionOnly(operation: OperationDefinitionNode): boolean {
  return operation.selectionSet.selections.every((selection) => selection.kind === Kind.FIELD && selection.name.value.startsWith('__'));
}
