import type { PipelineStage } from 'mongoose';

/*
 * Passenger counts read with the flights that need them, in the same aggregate (the timeline's):
 * a `$lookup` from each flight id into the passenger lists, on their unique `flightId` index,
 * bringing back `passengerCount` alone (kept in step with the list by each push's own
 * version-guarded update). One command instead of a second query naming thousands of flight ids.
 * The count is read by the request's own command after any push that answered before it, as
 * the second query read it: never older than an acknowledged push. (A count stored on the flight
 * would need a second write per push, without a transaction: a crash or two racing pushes between
 * the writes would leave it wrong after the push answered.) Needs MongoDB 5.0 or later (a
 * `$lookup` with both `localField` and `pipeline`).
 */

/** Joins `[{passengerCount}]` (or `[]` for a flight without a list) into `as`. */
export function passengerCountLookup(passengerListsCollection: string, flightIdField: string, as: string): PipelineStage.Lookup {
  return {
    $lookup: {
      from: passengerListsCollection,
      localField: flightIdField,
      foreignField: 'flightId',
      pipeline: [{ $project: { _id: 0, passengerCount: 1 } }],
      as,
    },
  };
}
