/** The two orders of the timeline's entries (the GraphQL enum of the same name is registered in timeline-event.type.ts). */
export enum TimelineView {
  CALENDAR = 'CALENDAR',
  RESOURCE = 'RESOURCE',
}
