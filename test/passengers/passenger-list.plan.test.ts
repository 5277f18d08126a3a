import { normalizePassenger } from '../../src/passengers/passenger.normalize';
import type { StoredPassenger } from '../../src/passengers/passenger-list.model';
import { planPassengerChanges, type PassengerChange, type PassengerChangeSet } from '../../src/passengers/passenger-list.plan';

const FLIGHT = 7;
const TODAY = '2026-11-21';

/** A passenger as a push sends it, with valid values; `extra` overrides. */
function sent(id: number, extra: PassengerChange = {}): PassengerChange {
  return {
    id,
    surname: `Rossi${'x'.repeat(id % 5)}`,
    name: 'Mario',
    luogonascita: 'IT',
    nazionalita: 'IT',
    typedoc: 'P',
    numberdoc: `YA${1000000 + id}`,
    date_born: '1980-05-17',
    scadenza: '2030-01-01',
    issuingstate: 'IT',
    email: null,
    phone: null,
    is_carring_infant: false,
    gender: 'M',
    ...extra,
  };
}

/** A passenger as the list stores it (normalised by the shared rules). */
function stored(id: number, parentId: number | null = null, extra: PassengerChange = {}): StoredPassenger {
  const { value, problems } = normalizePassenger(sent(id, extra) as Record<string, unknown>, { today: TODAY });
  if (!value) throw new Error(`fixture passenger ${id} is invalid: ${JSON.stringify(problems)}`);
  return { id, ...value, parent_id: parentId };
}

function plan(current: StoredPassenger[], changes: Partial<PassengerChangeSet>, maxPassengers?: number) {
  return planPassengerChanges(current, { created: [], modified: [], deleted: [], ...changes }, { flightId: FLIGHT, today: TODAY, maxPassengers });
}

const ids = (passengers: StoredPassenger[]) => passengers.map((p) => p.id);

describe('planPassengerChanges: what a valid push does', () => {
  it('appends created records, normalised, after the kept ones, and counts them', () => {
    const result = plan([stored(1)], { created: [sent(5, { surname: ' de  la Cruz ' }), sent(3)] });
    expect(result.problems).toEqual([]);
    expect(result.conflicts).toEqual([]);
    expect(ids(result.passengers)).toEqual([1, 5, 3]);
    expect(result.passengers[1]).toMatchObject({ id: 5, surname: 'DE LA CRUZ', parent_id: null });
    expect(result).toMatchObject({ created: 2, modified: 0, deleted: 0, createdIds: [5, 3], modifiedIds: [], deletedIds: [] });
  });

  it('replaces only the fields a modified record gives, keeps the record in place and its parent unless given', () => {
    const current = [stored(1), stored(2, 1), stored(3)];
    const result = plan(current, { modified: [{ id: 2, email: 'Anna@Example.COM', surname: undefined }] });
    expect(result.problems).toEqual([]);
    expect(ids(result.passengers)).toEqual([1, 2, 3]);
    expect(result.passengers[1]).toEqual({ ...current[1], email: 'Anna@example.com', parent_id: 1 });
    expect(result).toMatchObject({ created: 0, modified: 1, deleted: 0, modifiedIds: [2] });
    // parent_id null unlinks; a number relinks.
    expect(plan(current, { modified: [{ id: 2, parent_id: null }] }).passengers[1].parent_id).toBeNull();
    expect(plan(current, { modified: [{ id: 2, parent_id: 3 }] }).passengers[1].parent_id).toBe(3);
  });

  /** A new value for each passenger field, and what is stored for it. */
  const CHANGES: [string, unknown, unknown][] = [
    ['surname', 'Bianchi', 'BIANCHI'],
    ['name', 'Luigi', 'LUIGI'],
    ['luogonascita', 'FR', 'FR'],
    ['nazionalita', 'DE', 'DE'],
    ['typedoc', 'I', 'I'],
    ['numberdoc', 'CA12345AB', 'CA12345AB'],
    ['date_born', '1981-06-18', '1981-06-18'],
    ['scadenza', '2031-02-02', '2031-02-02'],
    ['issuingstate', 'ES', 'ES'],
    ['email', 'mario@example.com', 'mario@example.com'],
    ['phone', '+39 333 123 4567', '+393331234567'],
    ['is_carring_infant', true, true],
    ['gender', 'F', 'F'],
  ];

  it.each(CHANGES)('modifies %s alone, keeping the other fields', (field, given, storedValue) => {
    const before = stored(1);
    const result = plan([before], { modified: [{ id: 1, [field]: given }] });
    expect(result.problems).toEqual([]);
    expect(result.passengers).toEqual([{ ...before, [field]: storedValue }]);
  });

  it.each(CHANGES)('takes a created record that differs from the stored one only in %s for a conflict', (field, given) => {
    const result = plan([stored(1)], { created: [sent(1, { [field]: given })] });
    expect(result.conflicts).toEqual([expect.objectContaining({ group: 'created', index: 0, id: 1 })]);
  });

  it('does not count a modified record whose content stays as stored (a field sent with its stored value, or none)', () => {
    for (const record of [{ id: 1, idvolo: FLIGHT }, { id: 1, name: 'Mario' }, { id: 1, surname: ' rossix ' }]) {
      const result = plan([stored(1)], { modified: [record] });
      expect(result.problems).toEqual([]);
      expect(result).toMatchObject({ modified: 0, modifiedIds: [] });
      expect(result.passengers).toEqual([stored(1)]);
    }
    expect(plan([stored(1)], { modified: [{ id: 1, name: 'Luigi' }] })).toMatchObject({ modified: 1, modifiedIds: [1] });
  });

  it('deletes records named by id or by an object with one, in the order named', () => {
    const result = plan([stored(1), stored(2), stored(3)], { deleted: [3, { id: 1 }] });
    expect(result.problems).toEqual([]);
    expect(ids(result.passengers)).toEqual([2]);
    expect(result).toMatchObject({ deleted: 2, deletedIds: [3, 1], created: 0, modified: 0 });
  });

  it('takes a retry of an identical created record as no change, and a deleted-and-created record as replaced in place', () => {
    const retry = plan([stored(1), stored(2)], { created: [sent(1)] });
    expect(retry.problems).toEqual([]);
    expect(retry.conflicts).toEqual([]);
    expect(retry).toMatchObject({ created: 0, createdIds: [] });
    expect(ids(retry.passengers)).toEqual([1, 2]);

    const replaced = plan([stored(1), stored(2)], { deleted: [1], created: [sent(1, { name: 'Luigi' })] });
    expect(replaced.problems).toEqual([]);
    expect(replaced.conflicts).toEqual([]);
    expect(ids(replaced.passengers)).toEqual([1, 2]);
    expect(replaced.passengers[0].name).toBe('LUIGI');
    expect(replaced).toMatchObject({ created: 1, deleted: 1, createdIds: [1], deletedIds: [1] });
  });

  it('links a created child to a created parent by row_number, or by parent_id when both agree', () => {
    const result = plan([], { created: [sent(10, { row_number: 1 }), sent(11, { row_number: 2, row_number_parent_id: 1 }), sent(12, { row_number_parent_id: 1, parent_id: 10 })] });
    expect(result.problems).toEqual([]);
    expect(result.passengers.map((p) => [p.id, p.parent_id])).toEqual([[10, null], [11, 10], [12, 10]]);
    // A created record may name an existing passenger as parent.
    expect(plan([stored(1)], { created: [sent(2, { parent_id: 1 })] }).passengers[1].parent_id).toBe(1);
  });

  it('accepts a list exactly at the limit', () => {
    const result = plan([stored(1)], { created: [sent(2), sent(3)] }, 3);
    expect(result.problems).toEqual([]);
    expect(result.created).toBe(3 - 1);
  });

  it('lets a push that creates nothing through, even on a list already over a lowered limit', () => {
    expect(plan([stored(1), stored(2), stored(3)], { modified: [{ id: 1, name: 'Anna' }], deleted: [2] }, 1).problems).toEqual([]);
  });
});

describe('planPassengerChanges: refusals name the group, the element, the record and the field', () => {
  it('refuses deleted entries that are no id, repeat one, or name no passenger of the flight', () => {
    const result = plan([stored(1), stored(2)], { deleted: [0, -1, 1.5, '2', 2_147_483_648, {}, null, 1, 1, 9] });
    const message = 'expected a positive integer id, or an object with one';
    expect(result.problems).toEqual([
      { group: 'deleted', index: 0, id: null, field: 'id', message, value: 0 },
      { group: 'deleted', index: 1, id: null, field: 'id', message, value: -1 },
      { group: 'deleted', index: 2, id: null, field: 'id', message, value: 1.5 },
      { group: 'deleted', index: 3, id: null, field: 'id', message, value: '2' },
      { group: 'deleted', index: 4, id: null, field: 'id', message, value: 2_147_483_648 },
      { group: 'deleted', index: 5, id: null, field: 'id', message, value: {} },
      { group: 'deleted', index: 6, id: null, field: 'id', message, value: null },
      { group: 'deleted', index: 8, id: 1, field: 'id', message: 'passenger 1 is listed twice in deleted' },
      { group: 'deleted', index: 9, id: 9, field: 'id', message: `passenger 9 does not exist on flight ${FLIGHT}` },
    ]);
    // The largest id a 32-bit signed integer holds is an id.
    expect(plan([stored(2_147_483_647)], { deleted: [2_147_483_647] }).problems).toEqual([]);
  });

  it('refuses modified records without an id, named twice, unknown, or also deleted', () => {
    const result = plan([stored(1), stored(2)], { modified: [{ name: 'X' }, { id: 'a' }, { id: 1 }, { id: 1 }, { id: 9 }, { id: 2 }], deleted: [2] });
    expect(result.problems).toEqual([
      { group: 'modified', index: 0, id: null, field: 'id', message: 'a modified record needs the integer id of an existing passenger', value: null },
      { group: 'modified', index: 1, id: null, field: 'id', message: 'a modified record needs the integer id of an existing passenger', value: 'a' },
      { group: 'modified', index: 3, id: 1, field: 'id', message: 'passenger 1 is modified twice in one push' },
      { group: 'modified', index: 4, id: 9, field: 'id', message: `passenger 9 does not exist on flight ${FLIGHT}` },
      { group: 'modified', index: 5, id: 2, field: 'id', message: 'passenger 2 is both modified and deleted' },
    ]);
  });

  it('refuses a record of another flight, in modified and in created', () => {
    const result = plan([stored(1)], { modified: [{ id: 1, idvolo: 8 }], created: [sent(2, { idvolo: '7' }), sent(3, { idvolo: null }), sent(4, { idvolo: FLIGHT })] });
    expect(result.problems).toEqual([
      { group: 'modified', index: 0, id: 1, field: 'idvolo', message: `idvolo 8 does not match the flight ${FLIGHT} of the path`, value: 8 },
      { group: 'created', index: 0, id: 2, field: 'idvolo', message: `idvolo 7 does not match the flight ${FLIGHT} of the path`, value: '7' },
    ]);
  });

  it('validates the merged modified record whole, with the shared passenger rules', () => {
    const result = plan([stored(1)], { modified: [{ id: 1, surname: '', date_born: '2030-01-01' }] });
    expect(result.problems).toEqual([
      { group: 'modified', index: 0, id: 1, field: 'surname', value: '', message: 'a value is required' },
      expect.objectContaining({ group: 'modified', index: 0, id: 1, field: 'date_born', value: '2030-01-01' }),
    ]);
    expect(result.passengers).toEqual([stored(1)]);
    expect(result.modified).toBe(0);
    // A field the record does not give is checked as stored: a valid stored record stays valid.
    expect(plan([stored(1)], { modified: [{ id: 1, scadenza: '1979-01-01' }] }).problems).toEqual([
      expect.objectContaining({ field: 'scadenza', message: 'the document expiry date 1979-01-01 is before the date of birth 1980-05-17' }),
    ]);
  });

  it('judges dates of birth against the day the push is given, in modified and in created', () => {
    // The day after TODAY: already past on the machine's clock, but in the future for this push.
    const result = plan([stored(1)], { modified: [{ id: 1, date_born: '2026-11-22' }], created: [sent(2, { date_born: '2026-11-22' })] });
    expect(result.problems).toEqual([
      { group: 'modified', index: 0, id: 1, field: 'date_born', value: '2026-11-22', message: 'the date of birth 2026-11-22 is in the future (today is 2026-11-21)' },
      { group: 'created', index: 0, id: 2, field: 'date_born', value: '2026-11-22', message: 'the date of birth 2026-11-22 is in the future (today is 2026-11-21)' },
    ]);
  });

  it('refuses a parent_id that is no id, in modified and in created', () => {
    const message = 'parent_id must be the integer id of another passenger, or null';
    const result = plan([stored(1), stored(2)], { modified: [{ id: 2, parent_id: 'one' }], created: [sent(3, { parent_id: 0 })] });
    expect(result.problems).toEqual([
      { group: 'modified', index: 0, id: 2, field: 'parent_id', message, value: 'one' },
      { group: 'created', index: 0, id: 3, field: 'parent_id', message, value: 0 },
    ]);
  });

  it('refuses created records without an id, or with an id used twice', () => {
    const result = plan([], { created: [sent(0), { ...sent(1), id: undefined }, sent(2), sent(2)] });
    expect(result.problems).toEqual([
      { group: 'created', index: 0, id: null, field: 'id', message: 'a created record needs an integer id (from 1) chosen by the client, unique within the flight', value: 0 },
      { group: 'created', index: 1, id: null, field: 'id', message: 'a created record needs an integer id (from 1) chosen by the client, unique within the flight', value: null },
      { group: 'created', index: 3, id: 2, field: 'id', message: 'id 2 is used by two created records' },
    ]);
  });

  it('reports field problems of created records, and creates none of them', () => {
    const result = plan([], { created: [sent(1), sent(2, { gender: 'Q' })] });
    expect(result.problems).toEqual([expect.objectContaining({ group: 'created', index: 1, id: 2, field: 'gender', value: 'Q' })]);
    expect(ids(result.passengers)).toEqual([1]);
  });

  it('reports a created id that exists with other content as a conflict, keeping the stored record', () => {
    const result = plan([stored(1)], { created: [sent(1, { name: 'Luigi' }), sent(2)] });
    expect(result.problems).toEqual([]);
    expect(result.conflicts).toEqual([
      { group: 'created', index: 0, id: 1, field: 'id', message: `passenger 1 already exists on flight ${FLIGHT} with different content: use modified to change it` },
    ]);
    expect(result.passengers[0].name).toBe('MARIO');
    // Another parent is other content too.
    expect(plan([stored(1), stored(2)], { created: [sent(2, { parent_id: 1 })] }).conflicts).toHaveLength(1);
  });

  it('refuses row numbers that are no positive integer or are used twice, and links to rows not created', () => {
    const result = plan([], {
      created: [
        sent(1, { row_number: 0 }),
        sent(2, { row_number: 5 }),
        sent(3, { row_number: 5 }),
        sent(4, { row_number_parent_id: 8 }),
        sent(6, { row_number_parent_id: 'x' }),
        sent(7, { row_number_parent_id: 5, parent_id: 3 }),
      ],
    });
    expect(result.problems).toEqual([
      { group: 'created', index: 0, id: 1, field: 'row_number', message: 'row_number must be a positive integer', value: 0 },
      { group: 'created', index: 2, id: 3, field: 'row_number', message: 'row_number 5 is used by two created records' },
      { group: 'created', index: 3, id: 4, field: 'row_number_parent_id', message: 'row_number_parent_id 8 is not the row_number of a record created in this push', value: 8 },
      { group: 'created', index: 4, id: 6, field: 'row_number_parent_id', message: 'row_number_parent_id x is not the row_number of a record created in this push', value: 'x' },
      { group: 'created', index: 5, id: 7, field: 'parent_id', message: 'parent_id 3 disagrees with row_number_parent_id 5 (passenger 2)', value: 3 },
    ]);
    expect(ids(result.passengers)).toEqual([1, 2, 3]);
    // A null row number is no row number.
    expect(plan([], { created: [sent(1, { row_number: null })] }).problems).toEqual([]);
    // A row number on a record without a valid id is left to the id's own refusal.
    expect(plan([], { created: [sent(0, { row_number: 'x' })] }).problems.map((p) => p.field)).toEqual(['id']);
  });

  it('refuses the first created record over the limit, saying how many after it do not fit either', () => {
    const over = plan([stored(1)], { created: [sent(2), sent(3), sent(4), sent(5)] }, 3);
    expect(over.problems).toEqual([
      { group: 'created', index: 2, id: 4, field: 'id', message: 'the list would hold 5 passengers, over the limit of 3 a flight may have: this record and the 1 created after it do not fit' },
    ]);
    const last = plan([stored(1)], { created: [sent(2), sent(3)] }, 2);
    expect(last.problems).toEqual([
      { group: 'created', index: 1, id: 3, field: 'id', message: 'the list would hold 3 passengers, over the limit of 2 a flight may have: this record does not fit' },
    ]);
    // Already over the limit: the first created record is named.
    expect(plan([stored(1), stored(2)], { created: [sent(3)] }, 1).problems[0]).toMatchObject({ index: 0, id: 3, message: expect.stringMatching(/this record does not fit$/) });
  });

  it('refuses parent links that name the record itself, no passenger, a circle or a child', () => {
    const result = plan([stored(1), stored(2), stored(3, 2)], {
      modified: [{ id: 1, parent_id: 1 }],
      created: [sent(4, { parent_id: 99 }), sent(5, { parent_id: 6 }), sent(6, { parent_id: 5 }), sent(7, { parent_id: 3 })],
    });
    expect(result.problems).toEqual([
      { group: 'modified', index: 0, id: 1, field: 'parent_id', message: 'passenger 1 names itself as parent' },
      { group: 'created', index: 0, id: 4, field: 'parent_id', message: `parent_id 99 is not a passenger of flight ${FLIGHT}` },
      { group: 'created', index: 1, id: 5, field: 'parent_id', message: 'circular parent link between passengers 5 and 6' },
      { group: 'created', index: 2, id: 6, field: 'parent_id', message: 'circular parent link between passengers 6 and 5' },
      { group: 'created', index: 3, id: 7, field: 'parent_id', message: 'parent 3 is itself linked to a parent: a parent must be an adult without a parent link' },
    ]);
  });

  it('names a bad link on every record of the push that takes part in it, a retried one included', () => {
    const result = plan([stored(1), stored(2, 1)], { modified: [{ id: 1, parent_id: 2 }], created: [sent(2, { parent_id: 1 })] });
    expect(result.conflicts).toEqual([]);
    expect(result.problems).toEqual([
      { group: 'modified', index: 0, id: 1, field: 'parent_id', message: 'circular parent link between passengers 1 and 2' },
      { group: 'created', index: 0, id: 2, field: 'parent_id', message: 'circular parent link between passengers 2 and 1' },
    ]);
  });

  it('refuses deleting a parent whose child stays, on the deleted entry', () => {
    const result = plan([stored(1), stored(2, 1)], { deleted: [1] });
    expect(result.problems).toEqual([
      { group: 'deleted', index: 0, id: 1, field: 'id', message: 'passenger 1 cannot be deleted: passenger 2 names it as parent (delete or relink the child too)' },
    ]);
    expect(plan([stored(1), stored(2, 1)], { deleted: [2, 1] }).problems).toEqual([]);
    expect(plan([stored(1), stored(2, 1), stored(3)], { deleted: [1], modified: [{ id: 2, parent_id: 3 }] }).problems).toEqual([]);
  });

  it('leaves links of records the push does not touch unjudged', () => {
    // A stored list can only hold valid links; one that does not (an older rule) blocks no unrelated push.
    const legacy = [stored(1, 1), stored(2, 9), stored(3, 4), stored(4, 3), stored(5, 2)];
    expect(plan(legacy, { created: [sent(6)] }).problems).toEqual([]);
  });
});
