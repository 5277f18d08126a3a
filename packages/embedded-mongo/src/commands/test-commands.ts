import type { CommandHandler } from '../command-context';
import { CommandError, ErrorCode } from '../errors';

/**
 * Test commands, answered only when the engine was started with `testCommands: true` (as mongod
 * answers them only with `enableTestCommands`); otherwise they do not exist (CommandNotFound).
 */
export const testCommands: Record<string, CommandHandler> = {
  configureFailPoint: ({ engine, body, database }) => {
    if (!engine.failPoints) {
      throw new CommandError(
        ErrorCode.CommandNotFound,
        "no such command: 'configureFailPoint'. It is a test command: start the embedded engine with testCommands: true (npm run db -- --enable-test-commands).",
      );
    }
    return engine.failPoints.configure(body, database);
  },
};
