/**
 * Whether the server under test refuses transactions (TEST_ENGINE_TOPOLOGY=standalone, or a
 * standalone MongoDB named by MONGODB_URI with TEST_SERVER_STANDALONE=true): transaction tests are
 * then skipped, saying why, instead of failing or passing unseen. The service's suite reads the
 * same two variables (test/helpers/topology.ts at the repository's root).
 */
export const SERVER_IS_STANDALONE = process.env.TEST_ENGINE_TOPOLOGY === 'standalone' || process.env.TEST_SERVER_STANDALONE === 'true';

export function describeWithTransactions(name: string, body: () => void): void {
  if (SERVER_IS_STANDALONE) {
    describe.skip(`${name} (skipped: the server is a standalone without transactions)`, body);
    return;
  }
  describe(name, body);
}

export const itWithTransactions: jest.It = SERVER_IS_STANDALONE ? it.skip : it;
