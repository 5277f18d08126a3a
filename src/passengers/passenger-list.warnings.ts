import type { StoredPassenger } from './passenger-list.model';

export interface PassengerListWarningData {
  code:
    | 'DOCUMENT_EXPIRES_BEFORE_DEPARTURE'
    | 'INFANT_WITHOUT_PARENT'
    | 'PARENT_LINK_ON_NON_INFANT'
    | 'CARRIER_WITHOUT_INFANT'
    | 'INFANT_CARRIER_NOT_MARKED'
    | 'DUPLICATE_DOCUMENT';
  id: number | null;
  message: string;
}

/** Completed years between a `YYYY-MM-DD` birth date and a `YYYY-MM-DD` day. */
export function ageOn(dateBorn: string, day: string): number {
  const [by, bm, bd] = dateBorn.split('-').map(Number);
  const [y, m, d] = day.split('-').map(Number);
  return y - by - (m < bm || (m === bm && d < bd) ? 1 : 0);
}

/**
 * Checks worth a look that do not stop a push: documents expiring before departure, infants and
 * their carrying adults, and the same document twice on one flight. `departureDay` is the local
 * date of departure at the departure airport.
 */
export function passengerListWarnings(passengers: readonly StoredPassenger[], departureDay: string): PassengerListWarningData[] {
  const warnings: PassengerListWarningData[] = [];
  const byId = new Map(passengers.map((passenger) => [passenger.id, passenger]));
  const childCount = new Map<number, number>();
  for (const passenger of passengers) {
    if (passenger.parent_id !== null) childCount.set(passenger.parent_id, (childCount.get(passenger.parent_id) ?? 0) + 1);
  }
  const documents = new Map<string, number>();

  for (const passenger of passengers) {
    const who = `passenger ${passenger.id} (${passenger.surname} ${passenger.name})`;
    if (passenger.scadenza < departureDay) {
      warnings.push({ code: 'DOCUMENT_EXPIRES_BEFORE_DEPARTURE', id: passenger.id, message: `${who}: the document expires on ${passenger.scadenza}, before departure on ${departureDay}` });
    }
    const age = ageOn(passenger.date_born, departureDay);
    if (age < 2 && passenger.parent_id === null) {
      warnings.push({ code: 'INFANT_WITHOUT_PARENT', id: passenger.id, message: `${who} is under 2 at departure but is not linked to a carrying adult` });
    } else if (age >= 2 && passenger.parent_id !== null) {
      warnings.push({ code: 'PARENT_LINK_ON_NON_INFANT', id: passenger.id, message: `${who} is ${age} at departure but is linked to passenger ${passenger.parent_id} as an infant` });
    }
    if (passenger.is_carring_infant && !childCount.has(passenger.id)) {
      warnings.push({ code: 'CARRIER_WITHOUT_INFANT', id: passenger.id, message: `${who} is marked as carrying an infant but no passenger is linked to them` });
    }
    if (passenger.parent_id !== null && byId.get(passenger.parent_id)?.is_carring_infant === false) {
      warnings.push({ code: 'INFANT_CARRIER_NOT_MARKED', id: passenger.id, message: `${who} is linked to passenger ${passenger.parent_id}, who is not marked as carrying an infant` });
    }
    const document = `${passenger.issuingstate}:${passenger.numberdoc}`;
    const first = documents.get(document);
    if (first !== undefined) {
      warnings.push({ code: 'DUPLICATE_DOCUMENT', id: passenger.id, message: `${who} has the same document (${passenger.numberdoc}, ${passenger.issuingstate}) as passenger ${first}` });
    } else {
      documents.set(document, passenger.id);
    }
  }
  return warnings;
}
