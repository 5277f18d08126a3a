import type { Document } from 'bson';
import type { ClusterClock } from './cluster-time';
import type { WriteJournal } from './collection';
import type { CursorRegistry } from './cursors';
import type { EmbeddedLogger } from './logger';
import type { Storage } from './storage';
import type { ClientInfo } from './client-info';
import type { FailPoints } from './fail-points';

export type { ClientInfo };
import type { RetryableWrites } from './retryable-writes';
import type { Transaction, TransactionManager } from './transactions';

/** Engine-wide state every command handler may use. */
export interface EngineState {
  readonly storage: Storage;
  readonly cursors: CursorRegistry;
  readonly transactions: TransactionManager;
  /** Outcomes of retryable writes, so a retry after a lost reply is not applied twice. */
  readonly retryableWrites: RetryableWrites;
  /** `configureFailPoint` state; undefined unless test commands are enabled. */
  readonly failPoints: FailPoints | undefined;
  readonly logger: EmbeddedLogger;
  readonly startedAt: Date;
  /** The `host:port` clients reach the engine at (a wildcard interface: see `ClientInfo.localAddress`). */
  readonly address: () => string;
  readonly openConnections: () => number;
  /** What the engine presents itself as (see README.md, Topology). */
  readonly topology: EngineTopology;
}

/**
 * `replicaSet`: a single-node replica set named `setName`, with a logical clock (`operationTime`,
 * `$clusterTime`) and transactions. `standalone`: a standalone mongod, which refuses transactions.
 */
export type EngineTopology = { kind: 'replicaSet'; setName: string; clock: ClusterClock } | { kind: 'standalone' };


/** What a handler receives for one command. */
export interface CommandContext {
  readonly engine: EngineState;
  /** The command document, with OP_MSG document sequences merged in. */
  readonly body: Document;
  /** The target database (`$db`, or the namespace of a legacy OP_QUERY). */
  readonly database: string;
  readonly connectionId: number;
  readonly client: ClientInfo;
  /** The open transaction the command belongs to, if it carries `autocommit: false`. */
  readonly transaction: Transaction | undefined;
  /** Call before changing data: inside a transaction it returns the transaction (writes stay in its write set until commit). */
  beginWrite(): Promise<WriteJournal | undefined>;
}

export type CommandHandler = (context: CommandContext) => Document | Promise<Document>;
