import { boundHistoryDetails, describePassengerChanges, PASSENGER_LIST_HISTORY_DETAIL_BYTES } from '../../src/passengers/passenger-list.audit';
import type { PassengerListChangeDetail } from '../../src/passengers/passenger-list.model';
import { planPassengerChanges, type PassengerChangeSet } from '../../src/passengers/passenger-list.plan';
import { passengerRecord } from '../helpers/passengers';

const context = { flightId: 9, today: '2026-01-10' };
const plan = (current: ReturnType<typeof planPassengerChanges>['passengers'], changes: Partial<PassengerChangeSet>) =>
  planPassengerChanges(current, { created: [], modified: [], deleted: [], ...changes }, context);
const detailOf = (bytes: number): PassengerListChangeDetail => ({ version: 1, bytes, createdIds: [], modifications: [], deletedRecords: [] });

describe('the ids a planned push creates, modifies and deletes', () => {
  const base = plan([], { created: [1, 2, 3, 4].map((id) => passengerRecord(id)) }).passengers;

  it('lists them in the order the push named them, as many as the counts', () => {
    const result = plan(base, { created: [passengerRecord(6), passengerRecord(5)], modified: [{ id: 3, name: 'Anna', gender: 'F' }, { id: 1, email: 'a@b.it' }], deleted: [4, 2] });
    expect(result.problems).toEqual([]);
    expect(result).toMatchObject({ createdIds: [6, 5], modifiedIds: [3, 1], deletedIds: [4, 2], created: 2, modified: 2, deleted: 2 });
  });

  it('leaves out a re-created identical record (a retry)', () => {
    expect(plan(base, { created: [passengerRecord(1), passengerRecord(8)] })).toMatchObject({ createdIds: [8], created: 1 });
  });

  it('replaces, in place, a record deleted and created again by the same push', () => {
    const result = plan(base, { created: [passengerRecord(2, { name: 'Giulia', gender: 'F' })], deleted: [2] });
    expect(result.problems).toEqual([]);
    expect(result).toMatchObject({ createdIds: [2], deletedIds: [2] });
    expect(result.passengers.map((passenger) => [passenger.id, passenger.name])).toEqual([[1, 'MARIO'], [2, 'GIULIA'], [3, 'MARIO'], [4, 'MARIO']]);
  });
});

describe('describePassengerChanges', () => {
  const base = plan([], { created: [passengerRecord(1), passengerRecord(2, { email: 'x@y.it' })] }).passengers;

  it('lists only the fields whose stored value changed, and keeps exactly the stored fields of deleted records', () => {
    const planned = plan(base, { modified: [{ id: 1, surname: 'ROSSI', name: 'Mario Luigi', date_born: '1980/05/01', phone: '+39 06 1234 5678' }], deleted: [2] });
    const detail = describePassengerChanges(base, planned, 2);
    expect(detail.modifications).toEqual([{ id: 1, changes: [{ field: 'name', before: 'MARIO', after: 'MARIO LUIGI' }, { field: 'phone', before: null, after: '+390612345678' }] }]);
    expect(detail.deletedRecords).toEqual([{ ...base[1] }]);
    expect(Object.keys(detail.deletedRecords[0]).sort()).toEqual(Object.keys(base[1]).sort());
    expect(detail.bytes).toBeGreaterThan(200);
  });
});

describe('boundHistoryDetails', () => {
  const budget = 1000;

  it('keeps the newest details that fit with the new one, dropping older ones', () => {
    expect(boundHistoryDetails([100, 500, 300, 200], detailOf(400), budget)).toMatchObject({ slice: -3, append: [expect.objectContaining({ bytes: 400 })] });
    expect(boundHistoryDetails([], detailOf(1000), budget)).toMatchObject({ slice: -1 });
  });

  it('appends nothing for a detail over the budget on its own, and keeps the older ones that fit', () => {
    expect(boundHistoryDetails([600, 300, 300], detailOf(1001), budget)).toEqual({ append: [], slice: -2 });
    expect(boundHistoryDetails([], detailOf(5000), budget)).toEqual({ append: [], slice: 0 });
  });

  it('treats a stored detail without a size as too large to keep', () => {
    expect(boundHistoryDetails([10, Number.NaN, 10], detailOf(10), budget)).toMatchObject({ slice: -2 });
  });

  it('never keeps more details than the history keeps entries', () => {
    expect(boundHistoryDetails(Array.from({ length: 1500 }, () => 1), detailOf(1), PASSENGER_LIST_HISTORY_DETAIL_BYTES)).toMatchObject({ slice: -1000 });
  });
});
