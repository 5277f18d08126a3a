import { ObjectId } from 'mongodb';
import { commandStatement } from '../../src/telemetry/mongodb-statement';

describe('the statement on a MongoDB command span', () => {
  it('names the command and its collection, and shows every value as ?', () => {
    const statement = commandStatement({
      aggregate: 'flights',
      pipeline: [{ $match: { 'departure.at': { $gte: new Date('2026-05-01'), $lt: new Date('2026-06-01') }, flightNumber: 'IFL100' } }, { $sort: { _id: 1 } }],
      cursor: {},
      lsid: { id: new ObjectId() },
    });
    expect(JSON.parse(statement)).toEqual({
      aggregate: 'flights',
      pipeline: [{ $match: { 'departure.at': { $gte: '?', $lt: '?' }, flightNumber: '?' } }, '…1 more'],
      cursor: {},
      lsid: { id: '?' },
    });
  });

  it('stays small whatever the command carries: a list shows its first item, deep nesting and long shapes are cut', () => {
    const passengers = Array.from({ length: 2000 }, (_, index) => ({ name: `Passenger ${index}`, passport: `X${index}` }));
    const push = commandStatement({ update: 'passengerlists', updates: [{ q: { flightId: 7 }, u: { $set: { passengers } } }] });
    expect(push).toBe('{"update":"passengerlists","updates":[{"q":{"flightId":"?"},"u":{"$set":{"passengers":[{"name":"?","passport":"?"},"…1999 more"]}}}]}');
    let deep: Record<string, unknown> = { leaf: 'secret' };
    for (let i = 0; i < 20; i += 1) deep = { nested: deep };
    expect(commandStatement({ find: 'flights', filter: deep })).not.toContain('secret');
    const wide = Object.fromEntries(Array.from({ length: 1000 }, (_, index) => [`field${index}`, index]));
    const cut = commandStatement({ insert: 'flights', documents: [wide] });
    expect(cut.length).toBe(2000);
    expect(cut.endsWith('…')).toBe(true);
  });
});
