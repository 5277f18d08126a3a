import type { Connection } from 'mongoose';
import { changeEventModel, type ChangeEventModel } from '../changes/change-event.model';
import { airportModel, type AirportModel } from '../airports/airport.model';
import { flightModel, type FlightModel } from '../flights/flight.model';
import { passengerListModel, type PassengerListModel } from '../passengers/passenger-list.model';
import { resourceModel, type ResourceModel } from '../resources/resource.model';
import { counterModel, type CounterModel } from './counter.model';
import { webhookDeliveryModel, type WebhookDeliveryModel } from '../webhooks/webhook-delivery.model';
import { webhookEndpointModel, type WebhookEndpointModel } from '../webhooks/webhook-endpoint.model';

/** Every model of the service, bound to one connection (tests open one connection per database). */
export interface Models {
  airports: AirportModel;
  resources: ResourceModel;
  flights: FlightModel;
  passengerLists: PassengerListModel;
  counters: CounterModel;
  changeEvents: ChangeEventModel;
  webhookEndpoints: WebhookEndpointModel;
  webhookDeliveries: WebhookDeliveryModel;
}

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

/** Builds the indexes the models declare (unique ids, the timeline's range index). */
export async function ensureIndexes(models: Models): Promise<void> {
  await Promise.all(Object.values(models).map((model) => model.createIndexes()));
}
