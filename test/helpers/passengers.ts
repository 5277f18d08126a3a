/** A valid passenger record of the push body, with a document number of its own. */
export function passengerRecord(id: number, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id,
    surname: 'Rossi',
    name: 'Mario',
    luogonascita: 'IT',
    nazionalita: 'Italy',
    typedoc: 'P',
    numberdoc: `YA${1_000_000 + id}`,
    date_born: '1980-05-01',
    scadenza: '2031-01-01',
    issuingstate: 'IT',
    email: null,
    phone: null,
    is_carring_infant: false,
    gender: 'M',
    ...overrides,
  };
}

export const emptyChanges = { created: [], modified: [], deleted: [] };
