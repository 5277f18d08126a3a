import type { Request } from 'express';
import { TimelineLegacyEventsDocument, TimelineResourcesDocument } from '../src/graphql/generated/operations';
import { readQueryParameters } from './query';
import { defineRoute, type ParameterDoc, type RouteDoc } from './route';

/** jQuery's and FullCalendar's cache buster (`_=<timestamp>`), accepted on every timeline route and ignored. */
const CACHE_BUSTERS = ['_'];

function rangeVariables(req: Request) {
  // FullCalendar's JSON feed sends start, end and, for UTC or a named zone, timeZone.
  const { start, end, timeZone } = readQueryParameters(req, ['start', 'end', 'timeZone'], CACHE_BUSTERS);
  // Missing values reach the resolver as '' so its one parser reports them (400 naming the parameter).
  return { start: start ?? '', end: end ?? '', timeZone: timeZone ?? null };
}

const START_EXAMPLES = ['2026-05-01', '2026-05-01T00:00:00+02:00', '2026-05-01T00:00:00Z', '2026-05-01T00:00:00'];
const END_EXAMPLES = ['2026-05-31', '2026-06-01T00:00:00'];

/** FullCalendar's JSON feed parameters: the range, the calendar's zone and a cache buster. */
const rangeParameters: ParameterDoc[] = [
  {
    name: 'start', in: 'query', required: true, variable: 'start', schema: { examples: START_EXAMPLES },
    description: 'First day (YYYY-MM-DD, included) or an ISO 8601 date-time. A date, or a date-time without offset, is read in the timeZone parameter’s zone, else the service TIMEZONE.',
  },
  {
    name: 'end', in: 'query', required: true, variable: 'end', schema: { examples: END_EXAMPLES },
    description: 'Last day (YYYY-MM-DD, included) or an ISO 8601 date-time (excluded), read like start. At most 366 days after start.',
  },
  {
    name: 'timeZone', in: 'query', variable: 'timeZone', schema: { type: 'string', examples: ['Europe/Rome', 'UTC'] },
    description: 'IANA time zone name (e.g. Europe/Rome, or UTC) in which offset-less start and end are read and every entry’s start and end are shown. Default: the service TIMEZONE. An unknown zone is a 400.',
  },
];

const cacheBuster: ParameterDoc = { name: '_', in: 'query', description: 'Cache buster sent by jQuery and FullCalendar; accepted and ignored.', schema: { type: 'string' } };

const timelineDoc = (operationId: string, summary: string, order: string): RouteDoc => ({
  operationId,
  summary,
  description: `Flights whose time in the air overlaps the range, ${order}. Requires scope timeline:read.`,
  scope: 'timeline:read',
  parameters: [...rangeParameters, cacheBuster],
  ok: { description: 'Timeline entries', content: { 'application/json': { schema: { type: 'array', items: { $ref: '#/components/schemas/TimelineEntry' } } } } },
  responses: { '400': 'A missing, malformed or impossible start or end, start after end, a range over 366 days, an unknown timeZone, or an unknown or repeated parameter' },
});

export const timelineRoutes = [
  defineRoute({
    method: 'GET',
    path: '/calendar/timeline/event',
    // The operation's aliases give the entries the contract's names and order: its data is the body.
    operation: TimelineLegacyEventsDocument,
    toVariables: (req) => ({ view: 'CALENDAR' as const, ...rangeVariables(req) }),
    toResponse: (data) => data.timelineEvents,
    doc: timelineDoc('getCalendarTimeline', 'Calendar timeline', 'ordered by departure, then flight id'),
  }),
  defineRoute({
    method: 'GET',
    path: '/resource/timeline/event',
    operation: TimelineLegacyEventsDocument,
    toVariables: (req) => ({ view: 'RESOURCE' as const, ...rangeVariables(req) }),
    toResponse: (data) => data.timelineEvents,
    doc: timelineDoc('getResourceTimeline', 'Resource timeline', 'ordered by resource id, then departure'),
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
    doc: {
      operationId: 'listTimelineResources',
      summary: 'Resources for a FullCalendar resource timeline',
      description: 'Every resource, with string ids (FullCalendar convention). Requires scope timeline:read.',
      scope: 'timeline:read',
      parameters: [
        { name: 'start', in: 'query', description: 'Accepted (FullCalendar sends the visible range with refetchResourcesOnNavigate) and not used.', schema: { type: 'string', examples: START_EXAMPLES } },
        { name: 'end', in: 'query', description: 'Accepted and not used, like start.', schema: { type: 'string', examples: END_EXAMPLES } },
        { name: 'timeZone', in: 'query', description: 'Accepted (FullCalendar sends it with refetchResourcesOnNavigate) and not used: resources do not depend on the zone.', schema: { type: 'string', examples: ['Europe/Rome', 'UTC'] } },
        cacheBuster,
      ],
      ok: { description: 'Resources', content: { 'application/json': { schema: { type: 'array', items: { $ref: '#/components/schemas/CalendarResource' } } } } },
      responses: { '400': 'An unexpected query parameter' },
    },
  }),
];
