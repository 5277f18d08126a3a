import { Binary, Long, Timestamp, type Document } from 'bson';
import { isPlainObject } from './bson-values';
import { CommandError, ErrorCode } from './errors';

/** The signature MongoDB attaches to `$clusterTime` when authentication is off: a zero hash, key 0. */
const UNSIGNED = { hash: new Binary(Buffer.alloc(20), 0), keyId: Long.ZERO };

/**
 * The replica set's logical clock, as a MongoDB node keeps it: a `Timestamp` (seconds, increment)
 * that only moves forward. Every command advances it, so a reply's `operationTime` is later than
 * every write made before it; a client's gossiped `$clusterTime` moves it forward too (MongoDB
 * accepts unsigned cluster times when authentication is off).
 */
export class ClusterClock {
  private seconds = 0;
  private increment = 0;

  /** The current cluster time, without advancing it. */
  now(): Timestamp {
    return new Timestamp({ t: this.seconds, i: this.increment });
  }

  /** Advances the clock and returns the new time (the `operationTime` of a command). */
  tick(): Timestamp {
    const wallSeconds = Math.floor(Date.now() / 1000);
    if (wallSeconds > this.seconds) {
      this.seconds = wallSeconds;
      this.increment = 1;
    } else if (this.increment >= 0xffffffff) {
      this.seconds += 1;
      this.increment = 1;
    } else {
      this.increment += 1;
    }
    return this.now();
  }

  /** Moves the clock to a later time a client has seen (its `$clusterTime`); never backwards. */
  advanceTo(time: Timestamp): void {
    const seconds = time.high >>> 0;
    const increment = time.low >>> 0;
    if (seconds > this.seconds || (seconds === this.seconds && increment > this.increment)) {
      this.seconds = seconds;
      this.increment = increment;
    }
  }

  /** `$clusterTime` as a reply carries it. */
  gossip(): Document {
    return { clusterTime: this.now(), signature: UNSIGNED };
  }

  /**
   * Takes in what a command says about time: its `$clusterTime` (gossip) and a read concern's
   * `afterClusterTime`, which, as on a MongoDB node, may not lie beyond the cluster time.
   */
  receive(body: Document): void {
    const gossiped = body.$clusterTime;
    if (isPlainObject(gossiped) && gossiped.clusterTime instanceof Timestamp) this.advanceTo(gossiped.clusterTime);
    const readConcern = body.readConcern;
    if (!isPlainObject(readConcern) || readConcern.afterClusterTime === undefined) return;
    const after = readConcern.afterClusterTime;
    if (!(after instanceof Timestamp)) {
      throw new CommandError(ErrorCode.TypeMismatch, `BSON field 'afterClusterTime' is the wrong type '${typeof after}', expected type 'timestamp'`);
    }
    if (compareTimestamps(after, this.now()) > 0) {
      throw new CommandError(
        ErrorCode.InvalidOptions,
        `readConcern afterClusterTime value must not be greater than the current clusterTime. Requested clusterTime: ${describe(after)}; current clusterTime: ${describe(this.now())}`,
      );
    }
  }
}

function compareTimestamps(a: Timestamp, b: Timestamp): number {
  const seconds = (a.high >>> 0) - (b.high >>> 0);
  return seconds !== 0 ? seconds : (a.low >>> 0) - (b.low >>> 0);
}

function describe(time: Timestamp): string {
  return `{ ts: Timestamp(${time.high >>> 0}, ${time.low >>> 0}) }`;
}
