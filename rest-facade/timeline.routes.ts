import type { Request } from 'express';
import { TimelineLegacyEventsDocument, TimelineResourcesDocument } from '../src/graphql/generated/operations';
import { readQueryParameters } from './query';
import { defineRoute } from './route';

/** jQuery's and FullCalendar's cache buster (`_=<timestamp>`), accepted on every timeline route and ignored. */
const CACHE_BUSTERS = ['_'];

function rangeVariables(req: Request) {
  // FullCalendar's JSON feed sends start, end and, for UTC or a named zone, timeZone.
  const { start, end, timeZone } = readQueryParameters(req, ['start', 'end', 'timeZone'], CACHE_BUSTERS);
  // Missing values reach the resolver as '' so its one parser reports them (400 naming the parameter).
  return { start: start ?? '', end: end ?? '', timeZone: timeZone ?? null };
}

export const timelineRoutes = [
  defineRoute({
    method: 'GET',
    path: '/calendar/timeline/event',
    // The operation's aliases give the entries the contract's names and order: its data is the body.
    operation: TimelineLegacyEventsDocument,
    toVariables: (req) => ({ view: 'CALENDAR' as const, ...rangeVariables(req) }),
    toResponse: (data) => data.timelineEvents,
  }),
  defineRoute({
    method: 'GET',
    path: '/resource/timeline/event',
    operation: TimelineLegacyEventsDocument,
    toVariables: (req) => ({ view: 'RESOURCE' as const, ...rangeVariables(req) }),
    toResponse: (data) => data.timelineEvents,
  }),
  defineRoute({
    method: 'GET',
    path: '/resource/timeline/resources',
    operation: TimelineResourcesDocument,
    toVariables: (req) => {
      // With refetchResourcesOnNavigate FullCalendar sends the visible range and zone here too;
      // the resource list does not depend on them, so they are accepted and not used.
      readQueryParameters(req, ['start', 'end', 'timeZone'], CACHE_BUSTERS);
      return {};
    },
    // FullCalendar's resource objects: string ids and per-resource event colours.
    toResponse: (data) =>
      data.resources.map((resource) => ({
        id: String(resource.id),
        title: resource.title,
        eventBackgroundColor: resource.backgroundColor,
        eventBorderColor: resource.borderColor,
        eventTextColor: resource.textColor,
      })),
  }),
];
