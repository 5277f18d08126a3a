import type { Connection } from 'mongoose';
import type { Config } from './config';
import { connectDatabase, type Database as AnyDatabase, type OpenDatabaseOptions } from './db/database';
import type { Logger } from './logger';
import { changeEventModel, type ChangeEventModel } from './changes/change-event.model';
import { airportModel, type AirportModel } from './airports/airport.model';
import { flightModel, type FlightModel } from './flights/flight.model';
import { passengerListModel, type PassengerListModel } from './passengers/passenger-list.model';
import { resourceModel, type ResourceModel } from './resources/resource.model';
import { counterModel, type CounterModel } from './db/counter.model';
import { webhookDeliveryModel, type WebhookDeliveryModel } from './webhooks/webhook-delivery.model';
import { webhookEndpointModel, type WebhookEndpointModel } from './webhooks/webhook-endpoint.model';

/*
 * The service's model registry: every feature's mongoose model bound to one connection. It sits above
 * the features (it names each of them) and beside src/services.ts, which wires the services on top of
 * it; src/db/ below knows no model.
 */

/** Every model of the service, bound to one connection (tests open one connection per database). */
export type Models = {
  airports: AirportModel;
  resources: ResourceModel;
  flights: FlightModel;
  passengerLists: PassengerListModel;
  counters: CounterModel;
  changeEvents: ChangeEventModel;
  webhookEndpoints: WebhookEndpointModel;
  webhookDeliveries: WebhookDeliveryModel;
};

export function createModels(connection: Connection): Models {
  return {
    airports: airportModel(connection),
    resources: resourceModel(connection),
    flights: flightModel(connection),
    passengerLists: passengerListModel(connection),
    counters: counterModel(connection),
    changeEvents: changeEventModel(connection),
    webhookEndpoints: webhookEndpointModel(connection),
    webhookDeliveries: webhookDeliveryModel(connection),
  };
}


/** The service's database: the connection (src/db/database.ts) with every model bound to it. */
export type Database = AnyDatabase<Models>;

/** Opens the service's database (see connectDatabase) with the service's models; `ready` settles once their indexes exist. */
export function openDatabase(config: Config, logger: Logger, options: OpenDatabaseOptions = {}): Promise<Database> {
  return connectDatabase(config, logger, createModels, options);
}
