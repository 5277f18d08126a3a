/** Internal type. DO NOT USE DIRECTLY. */
type Exact<T extends { [key: string]: unknown }> = { [K in keyof T]: T[K] };
/** Internal type. DO NOT USE DIRECTLY. */
export type Incremental<T> = T | { [P in keyof T]?: P extends ' $fragmentName' | '__typename' ? T[P] : never };
import type { TypedDocumentNode as DocumentNode } from '@graphql-typed-document-node/core';
/** An airport to create, or to replace when its ICAO code exists. */
export type AirportInput = {
  /** City the airport serves. */
  city: string;
  /** Country name. */
  country: string;
  /** Shown in parentheses after the country on the timeline; may be empty. */
  countryTag: string;
  /** Three-letter IATA code. */
  iata: string;
  /** Four-letter ICAO code: the airport’s key. */
  icao: string;
  /** IANA time zone, e.g. Europe/Rome. */
  timezone: string;
};

/** A new flight. Colours left out come from the resource. */
export type CreateFlightInput = {
  /** After departureAt, within 24 hours. */
  arrivalAt: string;
  /** ICAO code of a known airport. */
  arrivalIcao: string;
  /** CSS colour name; left out or null: the resource’s. */
  backgroundColor: string | null | undefined;
  /** CSS colour name; left out or null: the resource’s. */
  borderColor: string | null | undefined;
  /** ISO 8601 date-time with offset, e.g. 2026-05-01T09:30:00+02:00. */
  departureAt: string;
  /** ICAO code of a known airport. */
  departureIcao: string;
  /** Flight designator, e.g. IFL123. */
  flightNumber: string;
  /** Id of an existing resource (timeline row). */
  resourceId: number;
  /** CSS colour name; left out or null: the resource’s. */
  textColor: string | null | undefined;
};

/** A passenger record in a push. Every field is optional here so that all problems of a change set come back together (422); in `created` the interface’s required fields must be present, in `modified` absent fields keep their stored value. */
export type PassengerInput = {
  /** Date of birth, YYYY-MM-DD (other common date formats are normalised). */
  date_born: string | null | undefined;
  /** E-mail address, or null. */
  email: string | null | undefined;
  /** M, F or I. */
  gender: string | null | undefined;
  /** The record’s number within the flight’s list (Passenger.recordId, the v0 interface’s `id`): in `created` a new integer of your choice, unique within the flight; in `modified` the record to change. */
  id: number | null | undefined;
  /** The flight id; when present it must equal the flightId argument. */
  idvolo: number | null | undefined;
  /** True when the passenger carries an infant. */
  is_carring_infant: boolean | null | undefined;
  /** Document issuing state: ISO 3166-1 code or English name. */
  issuingstate: string | null | undefined;
  /** Country of birth: ISO 3166-1 alpha-2 or alpha-3 code, or English name. */
  luogonascita: string | null | undefined;
  /** Given names (stored upper case). */
  name: string | null | undefined;
  /** Nationality: ISO 3166-1 alpha-2 or alpha-3 code, or English name. */
  nazionalita: string | null | undefined;
  /** Travel document number. */
  numberdoc: string | null | undefined;
  /** The recordId of the parent record (an infant’s carrying adult), or null. */
  parent_id: number | null | undefined;
  /** Phone number, international form preferred (stored as E.164), or null. */
  phone: string | null | undefined;
  /** Position in the list, from 1 (as the upload returns it). */
  row_number: number | null | undefined;
  /** In `created`: the parent’s row_number in this push (as the upload returns it). */
  row_number_parent_id: number | null | undefined;
  /** Document expiry, YYYY-MM-DD (other common date formats are normalised). */
  scadenza: string | null | undefined;
  /** Surname (stored upper case). */
  surname: string | null | undefined;
  /** Travel document type: P passport, I identity card. */
  typedoc: string | null | undefined;
};

/** One change set of a flight’s passenger list, applied all or nothing. */
export type PassengerListChangesInput = {
  /** New records, each with a client-chosen integer id (its recordId) unique within the flight. */
  created: Array<PassengerInput>;
  /** The recordIds of the records to delete. */
  deleted: Array<number | null | undefined>;
  /** Records named by id (their recordId); present fields replace the stored ones. */
  modified: Array<PassengerInput>;
};

/** A resource to create (no id: the next free id) or to create or replace with the given id. */
export type ResourceInput = {
  /** Default background colour of its entries, a CSS colour name. */
  backgroundColor: string;
  /** Default border colour of its entries, a CSS colour name. */
  borderColor: string;
  /** Omit to create a resource with the next free id. */
  id: number | null | undefined;
  /** Aircraft registration (stored upper case). */
  registration: string;
  /** Default text colour of its entries, a CSS colour name. */
  textColor: string;
  /** Name shown on the timeline row. */
  title: string;
};

/** CALENDAR orders entries by departure then flight id; RESOURCE by resource id, then departure. */
export type TimelineView =
  /** By departure, then flight id (the calendar timeline route). */
  | 'CALENDAR'
  /** By resource id, then departure (the resource timeline route). */
  | 'RESOURCE';

/** Changes to a flight: absent fields stay; a null colour removes the override. */
export type UpdateFlightInput = {
  /** ISO 8601 date-time with offset; after departure, within 24 hours. */
  arrivalAt: string | null | undefined;
  /** ICAO code of a known airport. */
  arrivalIcao: string | null | undefined;
  /** CSS colour name; null removes the flight’s own colour. */
  backgroundColor: string | null | undefined;
  /** CSS colour name; null removes the flight’s own colour. */
  borderColor: string | null | undefined;
  /** ISO 8601 date-time with offset. */
  departureAt: string | null | undefined;
  /** ICAO code of a known airport. */
  departureIcao: string | null | undefined;
  /** New flight designator. */
  flightNumber: string | null | undefined;
  /** Move the flight to this resource (timeline row). */
  resourceId: number | null | undefined;
  /** CSS colour name; null removes the flight’s own colour. */
  textColor: string | null | undefined;
};

export type FlightFieldsFragment = { id: string, flightId: number, flightNumber: string, resourceId: number, backgroundColor: string, textColor: string, borderColor: string, passengerCount: number, colours: { background: string | null, text: string | null, border: string | null } | null, departure: { icao: string, at: string, localTime: string, airport: { iata: string, city: string, timezone: string } | null }, arrival: { icao: string, at: string, localTime: string, airport: { iata: string, city: string, timezone: string } | null }, resource: { id: string, resourceId: number, title: string } | null };

export type FlightsQueryVariables = Exact<{
  start: string;
  end: string;
  resourceId: number | null | undefined;
}>;


export type FlightsQuery = { flights: Array<{ id: string, flightId: number, flightNumber: string, resourceId: number, backgroundColor: string, textColor: string, borderColor: string, passengerCount: number, colours: { background: string | null, text: string | null, border: string | null } | null, departure: { icao: string, at: string, localTime: string, airport: { iata: string, city: string, timezone: string } | null }, arrival: { icao: string, at: string, localTime: string, airport: { iata: string, city: string, timezone: string } | null }, resource: { id: string, resourceId: number, title: string } | null }> };

export type FlightQueryVariables = Exact<{
  id: number;
}>;


export type FlightQuery = { flight: { id: string, flightId: number, flightNumber: string, resourceId: number, backgroundColor: string, textColor: string, borderColor: string, passengerCount: number, colours: { background: string | null, text: string | null, border: string | null } | null, departure: { icao: string, at: string, localTime: string, airport: { iata: string, city: string, timezone: string } | null }, arrival: { icao: string, at: string, localTime: string, airport: { iata: string, city: string, timezone: string } | null }, resource: { id: string, resourceId: number, title: string } | null } | null };

export type AirportsQueryVariables = Exact<{
  search: string | null | undefined;
}>;


export type AirportsQuery = { airports: Array<{ icao: string, iata: string, city: string, country: string, countryTag: string, timezone: string }> };

export type ResourcesQueryVariables = Exact<{ [key: string]: never; }>;


export type ResourcesQuery = { resources: Array<{ id: string, resourceId: number, title: string, registration: string, backgroundColor: string, textColor: string, borderColor: string }> };

export type CreateFlightMutationVariables = Exact<{
  input: CreateFlightInput;
}>;


export type CreateFlightMutation = { createFlight: { id: string, flightId: number, flightNumber: string, resourceId: number, backgroundColor: string, textColor: string, borderColor: string, passengerCount: number, colours: { background: string | null, text: string | null, border: string | null } | null, departure: { icao: string, at: string, localTime: string, airport: { iata: string, city: string, timezone: string } | null }, arrival: { icao: string, at: string, localTime: string, airport: { iata: string, city: string, timezone: string } | null }, resource: { id: string, resourceId: number, title: string } | null } };

export type UpdateFlightMutationVariables = Exact<{
  id: number;
  input: UpdateFlightInput;
}>;


export type UpdateFlightMutation = { updateFlight: { id: string, flightId: number, flightNumber: string, resourceId: number, backgroundColor: string, textColor: string, borderColor: string, passengerCount: number, colours: { background: string | null, text: string | null, border: string | null } | null, departure: { icao: string, at: string, localTime: string, airport: { iata: string, city: string, timezone: string } | null }, arrival: { icao: string, at: string, localTime: string, airport: { iata: string, city: string, timezone: string } | null }, resource: { id: string, resourceId: number, title: string } | null } };

export type DeleteFlightMutationVariables = Exact<{
  id: number;
}>;


export type DeleteFlightMutation = { deleteFlight: boolean };

export type UpsertAirportMutationVariables = Exact<{
  input: AirportInput;
}>;


export type UpsertAirportMutation = { upsertAirport: { icao: string, iata: string, city: string, country: string, countryTag: string, timezone: string } };

export type UpsertResourceMutationVariables = Exact<{
  input: ResourceInput;
}>;


export type UpsertResourceMutation = { upsertResource: { id: string, resourceId: number, title: string, registration: string, backgroundColor: string, textColor: string, borderColor: string } };

export type FlightsWithPassengersQueryVariables = Exact<{
  start: string;
  end: string;
}>;


export type FlightsWithPassengersQuery = { flights: Array<{ id: string, flightId: number, passengerCount: number, passengers: Array<{ id: string, recordId: number, surname: string, row_number: number }> }> };

export type PassengerRecordFragment = { idvolo: number, surname: string, name: string, luogonascita: string, nazionalita: string, typedoc: string, numberdoc: string, date_born: string, scadenza: string, issuingstate: string, email: string | null, phone: string | null, is_carring_infant: boolean, gender: string, parent_id: number | null, row_number_parent_id: number | null, row_number: number, id: number };

export type PassengerPreviewRecordFragment = { idvolo: number, surname: string, name: string, luogonascita: string, nazionalita: string, typedoc: string, numberdoc: string, date_born: string, scadenza: string, issuingstate: string, email: string | null, phone: string | null, is_carring_infant: boolean, gender: string, parent_id: number | null, row_number_parent_id: number | null, row_number: number, id: number | null };

export type PushPassengerListMutationVariables = Exact<{
  flightId: number;
  changes: PassengerListChangesInput;
  expectedVersion: number | null | undefined;
  idempotencyKey: string | null | undefined;
}>;


export type PushPassengerListMutation = { pushPassengerList: { status: string, version: number, created: number, modified: number, deleted: number, passengers: number, flight_id: number, warnings: Array<{ code: string, message: string, id: number | null }> } };

export type PassengerListQueryVariables = Exact<{
  flightId: number;
}>;


export type PassengerListQuery = { passengerList: { flightId: number, version: number, passengers: Array<{ idvolo: number, surname: string, name: string, luogonascita: string, nazionalita: string, typedoc: string, numberdoc: string, date_born: string, scadenza: string, issuingstate: string, email: string | null, phone: string | null, is_carring_infant: boolean, gender: string, parent_id: number | null, row_number_parent_id: number | null, row_number: number, id: number }> } };

export type PassengerListHistoryQueryVariables = Exact<{
  flightId: number;
}>;


export type PassengerListHistoryQuery = { passengerListHistory: Array<{ version: number, at: string, subject: string, tokenId: string | null, idempotencyKey: string | null, created: number, modified: number, deleted: number, passengers: number }> };

export type UploadPassengerListMutationVariables = Exact<{
  flightId: number;
  file: unknown;
}>;


export type UploadPassengerListMutation = { uploadPassengerList: Array<{ idvolo: number, surname: string, name: string, luogonascita: string, nazionalita: string, typedoc: string, numberdoc: string, date_born: string, scadenza: string, issuingstate: string, email: string | null, phone: string | null, is_carring_infant: boolean, gender: string, parent_id: number | null, row_number_parent_id: number | null, row_number: number, id: number | null }> };

export type PassengerTemplateUrlQueryVariables = Exact<{ [key: string]: never; }>;


export type PassengerTemplateUrlQuery = { passengerTemplateUrl: string };

export type TimelineEntryFragment = { resourceId: number, flightId: number, flightNumber: string, backgroundColor: string, textColor: string, borderColor: string, start: string, end: string, url: string, apiVersion: string, passengers: number, dep: { icao: string, iata: string, country: string, city: string }, arr: { icao: string, iata: string, country: string, city: string } };

export type TimelineEventsQueryVariables = Exact<{
  view: TimelineView;
  start: string;
  end: string;
  timeZone: string | null | undefined;
}>;


export type TimelineEventsQuery = { timelineEvents: Array<{ resourceId: number, flightId: number, flightNumber: string, backgroundColor: string, textColor: string, borderColor: string, start: string, end: string, url: string, apiVersion: string, passengers: number, dep: { icao: string, iata: string, country: string, city: string }, arr: { icao: string, iata: string, country: string, city: string } }> };

export type TimelineResourcesQueryVariables = Exact<{ [key: string]: never; }>;


export type TimelineResourcesQuery = { resources: Array<{ title: string, backgroundColor: string, borderColor: string, textColor: string, id: number }> };

export const FlightFieldsFragmentDoc = {"kind":"Document","definitions":[{"kind":"FragmentDefinition","name":{"kind":"Name","value":"FlightFields"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Flight"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"flightId"}},{"kind":"Field","name":{"kind":"Name","value":"flightNumber"}},{"kind":"Field","name":{"kind":"Name","value":"resourceId"}},{"kind":"Field","name":{"kind":"Name","value":"backgroundColor"}},{"kind":"Field","name":{"kind":"Name","value":"textColor"}},{"kind":"Field","name":{"kind":"Name","value":"borderColor"}},{"kind":"Field","name":{"kind":"Name","value":"passengerCount"}},{"kind":"Field","name":{"kind":"Name","value":"colours"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"background"}},{"kind":"Field","name":{"kind":"Name","value":"text"}},{"kind":"Field","name":{"kind":"Name","value":"border"}}]}},{"kind":"Field","name":{"kind":"Name","value":"departure"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"icao"}},{"kind":"Field","name":{"kind":"Name","value":"at"}},{"kind":"Field","name":{"kind":"Name","value":"localTime"}},{"kind":"Field","name":{"kind":"Name","value":"airport"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"iata"}},{"kind":"Field","name":{"kind":"Name","value":"city"}},{"kind":"Field","name":{"kind":"Name","value":"timezone"}}]}}]}},{"kind":"Field","name":{"kind":"Name","value":"arrival"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"icao"}},{"kind":"Field","name":{"kind":"Name","value":"at"}},{"kind":"Field","name":{"kind":"Name","value":"localTime"}},{"kind":"Field","name":{"kind":"Name","value":"airport"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"iata"}},{"kind":"Field","name":{"kind":"Name","value":"city"}},{"kind":"Field","name":{"kind":"Name","value":"timezone"}}]}}]}},{"kind":"Field","name":{"kind":"Name","value":"resource"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"resourceId"}},{"kind":"Field","name":{"kind":"Name","value":"title"}}]}}]}}]} as unknown as DocumentNode<FlightFieldsFragment, unknown>;
export const PassengerRecordFragmentDoc = {"kind":"Document","definitions":[{"kind":"FragmentDefinition","name":{"kind":"Name","value":"PassengerRecord"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Passenger"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","alias":{"kind":"Name","value":"id"},"name":{"kind":"Name","value":"recordId"}},{"kind":"Field","name":{"kind":"Name","value":"idvolo"}},{"kind":"Field","name":{"kind":"Name","value":"surname"}},{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"luogonascita"}},{"kind":"Field","name":{"kind":"Name","value":"nazionalita"}},{"kind":"Field","name":{"kind":"Name","value":"typedoc"}},{"kind":"Field","name":{"kind":"Name","value":"numberdoc"}},{"kind":"Field","name":{"kind":"Name","value":"date_born"}},{"kind":"Field","name":{"kind":"Name","value":"scadenza"}},{"kind":"Field","name":{"kind":"Name","value":"issuingstate"}},{"kind":"Field","name":{"kind":"Name","value":"email"}},{"kind":"Field","name":{"kind":"Name","value":"phone"}},{"kind":"Field","name":{"kind":"Name","value":"is_carring_infant"}},{"kind":"Field","name":{"kind":"Name","value":"gender"}},{"kind":"Field","name":{"kind":"Name","value":"parent_id"}},{"kind":"Field","name":{"kind":"Name","value":"row_number_parent_id"}},{"kind":"Field","name":{"kind":"Name","value":"row_number"}}]}}]} as unknown as DocumentNode<PassengerRecordFragment, unknown>;
export const PassengerPreviewRecordFragmentDoc = {"kind":"Document","definitions":[{"kind":"FragmentDefinition","name":{"kind":"Name","value":"PassengerPreviewRecord"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"PassengerPreview"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","alias":{"kind":"Name","value":"id"},"name":{"kind":"Name","value":"recordId"}},{"kind":"Field","name":{"kind":"Name","value":"idvolo"}},{"kind":"Field","name":{"kind":"Name","value":"surname"}},{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"luogonascita"}},{"kind":"Field","name":{"kind":"Name","value":"nazionalita"}},{"kind":"Field","name":{"kind":"Name","value":"typedoc"}},{"kind":"Field","name":{"kind":"Name","value":"numberdoc"}},{"kind":"Field","name":{"kind":"Name","value":"date_born"}},{"kind":"Field","name":{"kind":"Name","value":"scadenza"}},{"kind":"Field","name":{"kind":"Name","value":"issuingstate"}},{"kind":"Field","name":{"kind":"Name","value":"email"}},{"kind":"Field","name":{"kind":"Name","value":"phone"}},{"kind":"Field","name":{"kind":"Name","value":"is_carring_infant"}},{"kind":"Field","name":{"kind":"Name","value":"gender"}},{"kind":"Field","name":{"kind":"Name","value":"parent_id"}},{"kind":"Field","name":{"kind":"Name","value":"row_number_parent_id"}},{"kind":"Field","name":{"kind":"Name","value":"row_number"}}]}}]} as unknown as DocumentNode<PassengerPreviewRecordFragment, unknown>;
export const TimelineEntryFragmentDoc = {"kind":"Document","definitions":[{"kind":"FragmentDefinition","name":{"kind":"Name","value":"TimelineEntry"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"TimelineEvent"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"resourceId"}},{"kind":"Field","name":{"kind":"Name","value":"flightId"}},{"kind":"Field","name":{"kind":"Name","value":"flightNumber"}},{"kind":"Field","name":{"kind":"Name","value":"backgroundColor"}},{"kind":"Field","name":{"kind":"Name","value":"textColor"}},{"kind":"Field","name":{"kind":"Name","value":"borderColor"}},{"kind":"Field","name":{"kind":"Name","value":"start"}},{"kind":"Field","name":{"kind":"Name","value":"end"}},{"kind":"Field","name":{"kind":"Name","value":"dep"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"icao"}},{"kind":"Field","name":{"kind":"Name","value":"iata"}},{"kind":"Field","name":{"kind":"Name","value":"country"}},{"kind":"Field","name":{"kind":"Name","value":"city"}}]}},{"kind":"Field","name":{"kind":"Name","value":"arr"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"icao"}},{"kind":"Field","name":{"kind":"Name","value":"iata"}},{"kind":"Field","name":{"kind":"Name","value":"country"}},{"kind":"Field","name":{"kind":"Name","value":"city"}}]}},{"kind":"Field","name":{"kind":"Name","value":"url"}},{"kind":"Field","name":{"kind":"Name","value":"apiVersion"}},{"kind":"Field","name":{"kind":"Name","value":"passengers"}}]}}]} as unknown as DocumentNode<TimelineEntryFragment, unknown>;
export const FlightsDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"Flights"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"start"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"end"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"resourceId"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"Int"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"flights"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"start"},"value":{"kind":"Variable","name":{"kind":"Name","value":"start"}}},{"kind":"Argument","name":{"kind":"Name","value":"end"},"value":{"kind":"Variable","name":{"kind":"Name","value":"end"}}},{"kind":"Argument","name":{"kind":"Name","value":"resourceId"},"value":{"kind":"Variable","name":{"kind":"Name","value":"resourceId"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"FlightFields"}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"FlightFields"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Flight"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"flightId"}},{"kind":"Field","name":{"kind":"Name","value":"flightNumber"}},{"kind":"Field","name":{"kind":"Name","value":"resourceId"}},{"kind":"Field","name":{"kind":"Name","value":"backgroundColor"}},{"kind":"Field","name":{"kind":"Name","value":"textColor"}},{"kind":"Field","name":{"kind":"Name","value":"borderColor"}},{"kind":"Field","name":{"kind":"Name","value":"passengerCount"}},{"kind":"Field","name":{"kind":"Name","value":"colours"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"background"}},{"kind":"Field","name":{"kind":"Name","value":"text"}},{"kind":"Field","name":{"kind":"Name","value":"border"}}]}},{"kind":"Field","name":{"kind":"Name","value":"departure"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"icao"}},{"kind":"Field","name":{"kind":"Name","value":"at"}},{"kind":"Field","name":{"kind":"Name","value":"localTime"}},{"kind":"Field","name":{"kind":"Name","value":"airport"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"iata"}},{"kind":"Field","name":{"kind":"Name","value":"city"}},{"kind":"Field","name":{"kind":"Name","value":"timezone"}}]}}]}},{"kind":"Field","name":{"kind":"Name","value":"arrival"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"icao"}},{"kind":"Field","name":{"kind":"Name","value":"at"}},{"kind":"Field","name":{"kind":"Name","value":"localTime"}},{"kind":"Field","name":{"kind":"Name","value":"airport"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"iata"}},{"kind":"Field","name":{"kind":"Name","value":"city"}},{"kind":"Field","name":{"kind":"Name","value":"timezone"}}]}}]}},{"kind":"Field","name":{"kind":"Name","value":"resource"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"resourceId"}},{"kind":"Field","name":{"kind":"Name","value":"title"}}]}}]}}]} as unknown as DocumentNode<FlightsQuery, FlightsQueryVariables>;
export const FlightDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"Flight"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"id"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"Int"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"flight"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"id"},"value":{"kind":"Variable","name":{"kind":"Name","value":"id"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"FlightFields"}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"FlightFields"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Flight"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"flightId"}},{"kind":"Field","name":{"kind":"Name","value":"flightNumber"}},{"kind":"Field","name":{"kind":"Name","value":"resourceId"}},{"kind":"Field","name":{"kind":"Name","value":"backgroundColor"}},{"kind":"Field","name":{"kind":"Name","value":"textColor"}},{"kind":"Field","name":{"kind":"Name","value":"borderColor"}},{"kind":"Field","name":{"kind":"Name","value":"passengerCount"}},{"kind":"Field","name":{"kind":"Name","value":"colours"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"background"}},{"kind":"Field","name":{"kind":"Name","value":"text"}},{"kind":"Field","name":{"kind":"Name","value":"border"}}]}},{"kind":"Field","name":{"kind":"Name","value":"departure"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"icao"}},{"kind":"Field","name":{"kind":"Name","value":"at"}},{"kind":"Field","name":{"kind":"Name","value":"localTime"}},{"kind":"Field","name":{"kind":"Name","value":"airport"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"iata"}},{"kind":"Field","name":{"kind":"Name","value":"city"}},{"kind":"Field","name":{"kind":"Name","value":"timezone"}}]}}]}},{"kind":"Field","name":{"kind":"Name","value":"arrival"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"icao"}},{"kind":"Field","name":{"kind":"Name","value":"at"}},{"kind":"Field","name":{"kind":"Name","value":"localTime"}},{"kind":"Field","name":{"kind":"Name","value":"airport"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"iata"}},{"kind":"Field","name":{"kind":"Name","value":"city"}},{"kind":"Field","name":{"kind":"Name","value":"timezone"}}]}}]}},{"kind":"Field","name":{"kind":"Name","value":"resource"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"resourceId"}},{"kind":"Field","name":{"kind":"Name","value":"title"}}]}}]}}]} as unknown as DocumentNode<FlightQuery, FlightQueryVariables>;
export const AirportsDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"Airports"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"search"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"airports"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"search"},"value":{"kind":"Variable","name":{"kind":"Name","value":"search"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"icao"}},{"kind":"Field","name":{"kind":"Name","value":"iata"}},{"kind":"Field","name":{"kind":"Name","value":"city"}},{"kind":"Field","name":{"kind":"Name","value":"country"}},{"kind":"Field","name":{"kind":"Name","value":"countryTag"}},{"kind":"Field","name":{"kind":"Name","value":"timezone"}}]}}]}}]} as unknown as DocumentNode<AirportsQuery, AirportsQueryVariables>;
export const ResourcesDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"Resources"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"resources"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"resourceId"}},{"kind":"Field","name":{"kind":"Name","value":"title"}},{"kind":"Field","name":{"kind":"Name","value":"registration"}},{"kind":"Field","name":{"kind":"Name","value":"backgroundColor"}},{"kind":"Field","name":{"kind":"Name","value":"textColor"}},{"kind":"Field","name":{"kind":"Name","value":"borderColor"}}]}}]}}]} as unknown as DocumentNode<ResourcesQuery, ResourcesQueryVariables>;
export const CreateFlightDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"mutation","name":{"kind":"Name","value":"CreateFlight"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"input"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"CreateFlightInput"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"createFlight"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"input"},"value":{"kind":"Variable","name":{"kind":"Name","value":"input"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"FlightFields"}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"FlightFields"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Flight"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"flightId"}},{"kind":"Field","name":{"kind":"Name","value":"flightNumber"}},{"kind":"Field","name":{"kind":"Name","value":"resourceId"}},{"kind":"Field","name":{"kind":"Name","value":"backgroundColor"}},{"kind":"Field","name":{"kind":"Name","value":"textColor"}},{"kind":"Field","name":{"kind":"Name","value":"borderColor"}},{"kind":"Field","name":{"kind":"Name","value":"passengerCount"}},{"kind":"Field","name":{"kind":"Name","value":"colours"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"background"}},{"kind":"Field","name":{"kind":"Name","value":"text"}},{"kind":"Field","name":{"kind":"Name","value":"border"}}]}},{"kind":"Field","name":{"kind":"Name","value":"departure"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"icao"}},{"kind":"Field","name":{"kind":"Name","value":"at"}},{"kind":"Field","name":{"kind":"Name","value":"localTime"}},{"kind":"Field","name":{"kind":"Name","value":"airport"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"iata"}},{"kind":"Field","name":{"kind":"Name","value":"city"}},{"kind":"Field","name":{"kind":"Name","value":"timezone"}}]}}]}},{"kind":"Field","name":{"kind":"Name","value":"arrival"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"icao"}},{"kind":"Field","name":{"kind":"Name","value":"at"}},{"kind":"Field","name":{"kind":"Name","value":"localTime"}},{"kind":"Field","name":{"kind":"Name","value":"airport"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"iata"}},{"kind":"Field","name":{"kind":"Name","value":"city"}},{"kind":"Field","name":{"kind":"Name","value":"timezone"}}]}}]}},{"kind":"Field","name":{"kind":"Name","value":"resource"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"resourceId"}},{"kind":"Field","name":{"kind":"Name","value":"title"}}]}}]}}]} as unknown as DocumentNode<CreateFlightMutation, CreateFlightMutationVariables>;
export const UpdateFlightDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"mutation","name":{"kind":"Name","value":"UpdateFlight"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"id"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"Int"}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"input"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"UpdateFlightInput"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"updateFlight"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"id"},"value":{"kind":"Variable","name":{"kind":"Name","value":"id"}}},{"kind":"Argument","name":{"kind":"Name","value":"input"},"value":{"kind":"Variable","name":{"kind":"Name","value":"input"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"FlightFields"}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"FlightFields"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Flight"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"flightId"}},{"kind":"Field","name":{"kind":"Name","value":"flightNumber"}},{"kind":"Field","name":{"kind":"Name","value":"resourceId"}},{"kind":"Field","name":{"kind":"Name","value":"backgroundColor"}},{"kind":"Field","name":{"kind":"Name","value":"textColor"}},{"kind":"Field","name":{"kind":"Name","value":"borderColor"}},{"kind":"Field","name":{"kind":"Name","value":"passengerCount"}},{"kind":"Field","name":{"kind":"Name","value":"colours"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"background"}},{"kind":"Field","name":{"kind":"Name","value":"text"}},{"kind":"Field","name":{"kind":"Name","value":"border"}}]}},{"kind":"Field","name":{"kind":"Name","value":"departure"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"icao"}},{"kind":"Field","name":{"kind":"Name","value":"at"}},{"kind":"Field","name":{"kind":"Name","value":"localTime"}},{"kind":"Field","name":{"kind":"Name","value":"airport"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"iata"}},{"kind":"Field","name":{"kind":"Name","value":"city"}},{"kind":"Field","name":{"kind":"Name","value":"timezone"}}]}}]}},{"kind":"Field","name":{"kind":"Name","value":"arrival"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"icao"}},{"kind":"Field","name":{"kind":"Name","value":"at"}},{"kind":"Field","name":{"kind":"Name","value":"localTime"}},{"kind":"Field","name":{"kind":"Name","value":"airport"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"iata"}},{"kind":"Field","name":{"kind":"Name","value":"city"}},{"kind":"Field","name":{"kind":"Name","value":"timezone"}}]}}]}},{"kind":"Field","name":{"kind":"Name","value":"resource"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"resourceId"}},{"kind":"Field","name":{"kind":"Name","value":"title"}}]}}]}}]} as unknown as DocumentNode<UpdateFlightMutation, UpdateFlightMutationVariables>;
export const DeleteFlightDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"mutation","name":{"kind":"Name","value":"DeleteFlight"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"id"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"Int"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"deleteFlight"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"id"},"value":{"kind":"Variable","name":{"kind":"Name","value":"id"}}}]}]}}]} as unknown as DocumentNode<DeleteFlightMutation, DeleteFlightMutationVariables>;
export const UpsertAirportDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"mutation","name":{"kind":"Name","value":"UpsertAirport"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"input"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"AirportInput"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"upsertAirport"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"input"},"value":{"kind":"Variable","name":{"kind":"Name","value":"input"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"icao"}},{"kind":"Field","name":{"kind":"Name","value":"iata"}},{"kind":"Field","name":{"kind":"Name","value":"city"}},{"kind":"Field","name":{"kind":"Name","value":"country"}},{"kind":"Field","name":{"kind":"Name","value":"countryTag"}},{"kind":"Field","name":{"kind":"Name","value":"timezone"}}]}}]}}]} as unknown as DocumentNode<UpsertAirportMutation, UpsertAirportMutationVariables>;
export const UpsertResourceDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"mutation","name":{"kind":"Name","value":"UpsertResource"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"input"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"ResourceInput"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"upsertResource"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"input"},"value":{"kind":"Variable","name":{"kind":"Name","value":"input"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"resourceId"}},{"kind":"Field","name":{"kind":"Name","value":"title"}},{"kind":"Field","name":{"kind":"Name","value":"registration"}},{"kind":"Field","name":{"kind":"Name","value":"backgroundColor"}},{"kind":"Field","name":{"kind":"Name","value":"textColor"}},{"kind":"Field","name":{"kind":"Name","value":"borderColor"}}]}}]}}]} as unknown as DocumentNode<UpsertResourceMutation, UpsertResourceMutationVariables>;
export const FlightsWithPassengersDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"FlightsWithPassengers"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"start"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"end"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"flights"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"start"},"value":{"kind":"Variable","name":{"kind":"Name","value":"start"}}},{"kind":"Argument","name":{"kind":"Name","value":"end"},"value":{"kind":"Variable","name":{"kind":"Name","value":"end"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"flightId"}},{"kind":"Field","name":{"kind":"Name","value":"passengerCount"}},{"kind":"Field","name":{"kind":"Name","value":"passengers"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"recordId"}},{"kind":"Field","name":{"kind":"Name","value":"surname"}},{"kind":"Field","name":{"kind":"Name","value":"row_number"}}]}}]}}]}}]} as unknown as DocumentNode<FlightsWithPassengersQuery, FlightsWithPassengersQueryVariables>;
export const PushPassengerListDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"mutation","name":{"kind":"Name","value":"PushPassengerList"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"flightId"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"Int"}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"changes"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"PassengerListChangesInput"}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"expectedVersion"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"Int"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"idempotencyKey"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"pushPassengerList"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"flightId"},"value":{"kind":"Variable","name":{"kind":"Name","value":"flightId"}}},{"kind":"Argument","name":{"kind":"Name","value":"changes"},"value":{"kind":"Variable","name":{"kind":"Name","value":"changes"}}},{"kind":"Argument","name":{"kind":"Name","value":"expectedVersion"},"value":{"kind":"Variable","name":{"kind":"Name","value":"expectedVersion"}}},{"kind":"Argument","name":{"kind":"Name","value":"idempotencyKey"},"value":{"kind":"Variable","name":{"kind":"Name","value":"idempotencyKey"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"status"}},{"kind":"Field","alias":{"kind":"Name","value":"flight_id"},"name":{"kind":"Name","value":"flightId"}},{"kind":"Field","name":{"kind":"Name","value":"version"}},{"kind":"Field","name":{"kind":"Name","value":"created"}},{"kind":"Field","name":{"kind":"Name","value":"modified"}},{"kind":"Field","name":{"kind":"Name","value":"deleted"}},{"kind":"Field","name":{"kind":"Name","value":"passengers"}},{"kind":"Field","name":{"kind":"Name","value":"warnings"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"code"}},{"kind":"Field","alias":{"kind":"Name","value":"id"},"name":{"kind":"Name","value":"recordId"}},{"kind":"Field","name":{"kind":"Name","value":"message"}}]}}]}}]}}]} as unknown as DocumentNode<PushPassengerListMutation, PushPassengerListMutationVariables>;
export const PassengerListDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"PassengerList"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"flightId"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"Int"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"passengerList"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"flightId"},"value":{"kind":"Variable","name":{"kind":"Name","value":"flightId"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"flightId"}},{"kind":"Field","name":{"kind":"Name","value":"version"}},{"kind":"Field","name":{"kind":"Name","value":"passengers"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"PassengerRecord"}}]}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"PassengerRecord"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Passenger"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","alias":{"kind":"Name","value":"id"},"name":{"kind":"Name","value":"recordId"}},{"kind":"Field","name":{"kind":"Name","value":"idvolo"}},{"kind":"Field","name":{"kind":"Name","value":"surname"}},{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"luogonascita"}},{"kind":"Field","name":{"kind":"Name","value":"nazionalita"}},{"kind":"Field","name":{"kind":"Name","value":"typedoc"}},{"kind":"Field","name":{"kind":"Name","value":"numberdoc"}},{"kind":"Field","name":{"kind":"Name","value":"date_born"}},{"kind":"Field","name":{"kind":"Name","value":"scadenza"}},{"kind":"Field","name":{"kind":"Name","value":"issuingstate"}},{"kind":"Field","name":{"kind":"Name","value":"email"}},{"kind":"Field","name":{"kind":"Name","value":"phone"}},{"kind":"Field","name":{"kind":"Name","value":"is_carring_infant"}},{"kind":"Field","name":{"kind":"Name","value":"gender"}},{"kind":"Field","name":{"kind":"Name","value":"parent_id"}},{"kind":"Field","name":{"kind":"Name","value":"row_number_parent_id"}},{"kind":"Field","name":{"kind":"Name","value":"row_number"}}]}}]} as unknown as DocumentNode<PassengerListQuery, PassengerListQueryVariables>;
export const PassengerListHistoryDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"PassengerListHistory"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"flightId"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"Int"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"passengerListHistory"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"flightId"},"value":{"kind":"Variable","name":{"kind":"Name","value":"flightId"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"version"}},{"kind":"Field","name":{"kind":"Name","value":"at"}},{"kind":"Field","name":{"kind":"Name","value":"subject"}},{"kind":"Field","name":{"kind":"Name","value":"tokenId"}},{"kind":"Field","name":{"kind":"Name","value":"idempotencyKey"}},{"kind":"Field","name":{"kind":"Name","value":"created"}},{"kind":"Field","name":{"kind":"Name","value":"modified"}},{"kind":"Field","name":{"kind":"Name","value":"deleted"}},{"kind":"Field","name":{"kind":"Name","value":"passengers"}}]}}]}}]} as unknown as DocumentNode<PassengerListHistoryQuery, PassengerListHistoryQueryVariables>;
export const UploadPassengerListDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"mutation","name":{"kind":"Name","value":"UploadPassengerList"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"flightId"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"Int"}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"file"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"Upload"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"uploadPassengerList"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"flightId"},"value":{"kind":"Variable","name":{"kind":"Name","value":"flightId"}}},{"kind":"Argument","name":{"kind":"Name","value":"file"},"value":{"kind":"Variable","name":{"kind":"Name","value":"file"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"PassengerPreviewRecord"}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"PassengerPreviewRecord"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"PassengerPreview"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","alias":{"kind":"Name","value":"id"},"name":{"kind":"Name","value":"recordId"}},{"kind":"Field","name":{"kind":"Name","value":"idvolo"}},{"kind":"Field","name":{"kind":"Name","value":"surname"}},{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"luogonascita"}},{"kind":"Field","name":{"kind":"Name","value":"nazionalita"}},{"kind":"Field","name":{"kind":"Name","value":"typedoc"}},{"kind":"Field","name":{"kind":"Name","value":"numberdoc"}},{"kind":"Field","name":{"kind":"Name","value":"date_born"}},{"kind":"Field","name":{"kind":"Name","value":"scadenza"}},{"kind":"Field","name":{"kind":"Name","value":"issuingstate"}},{"kind":"Field","name":{"kind":"Name","value":"email"}},{"kind":"Field","name":{"kind":"Name","value":"phone"}},{"kind":"Field","name":{"kind":"Name","value":"is_carring_infant"}},{"kind":"Field","name":{"kind":"Name","value":"gender"}},{"kind":"Field","name":{"kind":"Name","value":"parent_id"}},{"kind":"Field","name":{"kind":"Name","value":"row_number_parent_id"}},{"kind":"Field","name":{"kind":"Name","value":"row_number"}}]}}]} as unknown as DocumentNode<UploadPassengerListMutation, UploadPassengerListMutationVariables>;
export const PassengerTemplateUrlDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"PassengerTemplateUrl"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"passengerTemplateUrl"}}]}}]} as unknown as DocumentNode<PassengerTemplateUrlQuery, PassengerTemplateUrlQueryVariables>;
export const TimelineEventsDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"TimelineEvents"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"view"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"TimelineView"}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"start"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"end"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"timeZone"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"timelineEvents"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"view"},"value":{"kind":"Variable","name":{"kind":"Name","value":"view"}}},{"kind":"Argument","name":{"kind":"Name","value":"start"},"value":{"kind":"Variable","name":{"kind":"Name","value":"start"}}},{"kind":"Argument","name":{"kind":"Name","value":"end"},"value":{"kind":"Variable","name":{"kind":"Name","value":"end"}}},{"kind":"Argument","name":{"kind":"Name","value":"timeZone"},"value":{"kind":"Variable","name":{"kind":"Name","value":"timeZone"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"FragmentSpread","name":{"kind":"Name","value":"TimelineEntry"}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"TimelineEntry"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"TimelineEvent"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"resourceId"}},{"kind":"Field","name":{"kind":"Name","value":"flightId"}},{"kind":"Field","name":{"kind":"Name","value":"flightNumber"}},{"kind":"Field","name":{"kind":"Name","value":"backgroundColor"}},{"kind":"Field","name":{"kind":"Name","value":"textColor"}},{"kind":"Field","name":{"kind":"Name","value":"borderColor"}},{"kind":"Field","name":{"kind":"Name","value":"start"}},{"kind":"Field","name":{"kind":"Name","value":"end"}},{"kind":"Field","name":{"kind":"Name","value":"dep"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"icao"}},{"kind":"Field","name":{"kind":"Name","value":"iata"}},{"kind":"Field","name":{"kind":"Name","value":"country"}},{"kind":"Field","name":{"kind":"Name","value":"city"}}]}},{"kind":"Field","name":{"kind":"Name","value":"arr"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"icao"}},{"kind":"Field","name":{"kind":"Name","value":"iata"}},{"kind":"Field","name":{"kind":"Name","value":"country"}},{"kind":"Field","name":{"kind":"Name","value":"city"}}]}},{"kind":"Field","name":{"kind":"Name","value":"url"}},{"kind":"Field","name":{"kind":"Name","value":"apiVersion"}},{"kind":"Field","name":{"kind":"Name","value":"passengers"}}]}}]} as unknown as DocumentNode<TimelineEventsQuery, TimelineEventsQueryVariables>;
export const TimelineResourcesDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"TimelineResources"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"resources"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","alias":{"kind":"Name","value":"id"},"name":{"kind":"Name","value":"resourceId"}},{"kind":"Field","name":{"kind":"Name","value":"title"}},{"kind":"Field","name":{"kind":"Name","value":"backgroundColor"}},{"kind":"Field","name":{"kind":"Name","value":"borderColor"}},{"kind":"Field","name":{"kind":"Name","value":"textColor"}}]}}]}}]} as unknown as DocumentNode<TimelineResourcesQuery, TimelineResourcesQueryVariables>;