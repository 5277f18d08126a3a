import { ChangeEventType, type ChangeEvent, type FlightPlacement } from '../changes/change-event';
import type { InstantRange } from '../timeline/date-range';
import { TimelineChangeKind } from './timeline-change.type';

/** What a timelineChanged subscriber watches: a range of instants, on one resource or all. */
export interface TimelineWindow {
  range: InstantRange;
  resourceId: number | null;
}

/**
 * Whether the flight shows in the window: its time in the air overlaps the range, the rule of the
 * timeline queries (flight.service.ts overlapFilter: departure before the end, arrival after the start).
 */
export function placedInWindow(placement: FlightPlacement | null | undefined, window: TimelineWindow): boolean {
  if (!placement) return false;
  if (window.resourceId !== null && placement.resourceId !== window.resourceId) return false;
  return new Date(placement.departureAt).getTime() < window.range.to.getTime() && new Date(placement.arrivalAt).getTime() > window.range.from.getTime();
}

/**
 * What an event means to a subscriber of `window`: an entry ENTERED (created in the range, or moved
 * into it), CHANGED (moved within it, edited, or its passenger count changed) or LEFT (moved out,
 * or deleted); undefined when the window never showed the flight. An update whose previous placement
 * is unknown is CHANGED when the flight is in the window now (the client refetches it either way).
 * A deletion whose placement is unknown is LEFT for every window: dropping an entry the client does
 * not show is harmless, keeping a deleted one is not.
 */
export function timelineChangeKind(event: ChangeEvent, window: TimelineWindow): TimelineChangeKind | undefined {
  const isIn = placedInWindow(event.flight, window);
  switch (event.type) {
    case ChangeEventType.FlightCreated:
      return isIn ? TimelineChangeKind.ENTERED : undefined;
    case ChangeEventType.FlightUpdated: {
      if (!event.previous) return isIn ? TimelineChangeKind.CHANGED : undefined;
      const wasIn = placedInWindow(event.previous, window);
      if (wasIn && isIn) return TimelineChangeKind.CHANGED;
      if (isIn) return TimelineChangeKind.ENTERED;
      return wasIn ? TimelineChangeKind.LEFT : undefined;
    }
    case ChangeEventType.FlightDeleted:
      return isIn || !event.flight ? TimelineChangeKind.LEFT : undefined;
    case ChangeEventType.PassengerListUpdated:
      return isIn ? TimelineChangeKind.CHANGED : undefined;
    default:
      return undefined;
  }
}
