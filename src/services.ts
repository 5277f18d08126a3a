import type { Connection } from 'mongoose';
import { AirportService } from './airports/airport.service';
import type { ChangeFeed } from './changes/change-event';
import type { LiveChanges } from './changes/live-changes';
import type { Config } from './config';
import { serverTimeLimitMs } from './db/database';
import type { Models } from './models';
import { FlightService } from './flights/flight.service';
import { PassengerListService } from './passengers/passenger-list.service';
import { PdfRenders, type PdfRenderOutcome } from './passengers/export/pdf-renders';
import { PassengerUploadService } from './passengers/passenger-upload.service';
import { ResourceService } from './resources/resource.service';
import { LargeReadGate } from './timeline/large-read-gate';
import { TimelineService } from './timeline/timeline.service';
import { createWebhookServices, type WebhookServices } from './webhooks/webhook-services';

/** The domain services; resolvers call these and nothing below them. */
export interface Services {
  airports: AirportService;
  resources: ResourceService;
  flights: FlightService;
  timeline: TimelineService;
  passengerLists: PassengerListService;
  passengerUploads: PassengerUploadService;
  /** Live events of every committed change, from every process (subscriptions, webhooks). */
  changes: ChangeFeed;
  /** Webhook endpoints, their delivery log and replays. */
  webhooks: WebhookServices;
  /** PDF passenger manifests, rendered in turns (PDF_RENDERS_MAX, PDF_RENDERS_QUEUE). */
  pdfRenders: PdfRenders;
}

/** What the services tell the metrics: how each spreadsheet read and each PDF render went. */
export interface ServiceObservers {
  onUploadRead?: (outcome: 'read' | 'refused', seconds: number) => void;
  onPdfRender?: (outcome: PdfRenderOutcome, seconds: number) => void;
}

export function createServices(connection: Connection, models: Models, config: Config, changes: LiveChanges, observers: ServiceObservers = {}): Services {
  const { publisher } = changes;
  const passengerLists = new PassengerListService({ ...models, publisher, maxPassengers: config.limits.passengerListMaxPassengers });
  return {
    airports: new AirportService(models.airports),
    resources: new ResourceService(models.resources, models.counters),
    flights: new FlightService({ connection, ...models, publisher }),
    timeline: new TimelineService({
      ...models,
      publicHost: config.publicHost,
      maxTimeMs: serverTimeLimitMs(config.database.operationTimeoutMs),
      largeReads: new LargeReadGate({ maxInFlight: config.limits.timelineLargeReadsMax, maxWaiting: config.limits.timelineLargeReadsQueue }),
      largeReadEntries: config.limits.timelineLargeReadEntries,
      flightsPerDay: config.limits.graphqlCostFlightsPerDay,
    }),
    passengerLists,
    passengerUploads: new PassengerUploadService({ flights: models.flights, limits: config.limits, defaultPhoneRegion: config.passengerDefaultPhoneRegion, onRead: observers.onUploadRead }),
    changes: changes.feed,
    webhooks: createWebhookServices(models, config.webhooks),
    pdfRenders: new PdfRenders({ maxInFlight: config.limits.pdfRendersMax, maxWaiting: config.limits.pdfRendersQueue }, observers.onPdfRender),
  };
}
