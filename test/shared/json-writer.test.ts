import fc from 'fast-check';
import { writeJson } from '../../src/shared/json-writer';

const member = fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.constant(undefined), fc.date({ noInvalidDate: true }), fc.constant({ toJSON: () => 'custom' }));
/** Values shaped like answers: long lists (sliced) at the top or a few objects down, beside anything JSON.stringify takes. */
const answer = fc.letrec((tie) => ({
  value: fc.oneof({ maxDepth: 4 }, member, fc.array(tie('value'), { minLength: 0, maxLength: 80 }), fc.dictionary(fc.string({ maxLength: 6 }), tie('value'), { maxKeys: 4 })),
})).value;
/** Lists long enough to be written in several slices, alone or a few objects down (fast-check's default sizes rarely pass 32 elements). */
const longList = fc.array(member, { minLength: 0, maxLength: 150, size: 'max' });
const sliced = fc.oneof(answer, longList, longList.map((list) => ({ data: { timelineEvents: list } })));

describe('JSON written a slice at a time through scratch memory', () => {
  it('is byte for byte JSON.stringify of the value, then the suffix', () => {
    fc.assert(
      fc.property(sliced, fc.constantFrom('', '\n'), (value, suffix) => {
        const written = writeJson(value, 10 * 1024 * 1024, suffix);
        const expected = `${JSON.stringify(value) ?? 'null'}${suffix}`;
        expect('bytes' in written && written.bytes.toString('utf8')).toBe(expected);
      }),
      { numRuns: 500 },
    );
  });

  it('counts the exact size of an answer over the limit, wherever the limit falls', () => {
    fc.assert(
      fc.property(sliced, fc.double({ min: 0, max: 1, noNaN: true }), (value, fraction) => {
        const size = Buffer.byteLength(`${JSON.stringify(value) ?? 'null'}\n`);
        const limit = Math.floor((size - 1) * fraction);
        expect(writeJson(value, limit, '\n')).toEqual({ byteLength: size });
      }),
      { numRuns: 500 },
    );
  });

  it('hands each answer bytes of its own, untouched by the next answer', () => {
    const first = writeJson(['a'.repeat(1000)], 1024 * 1024);
    writeJson(['b'.repeat(1000)], 1024 * 1024);
    expect('bytes' in first && first.bytes.toString('utf8')).toBe(JSON.stringify(['a'.repeat(1000)]));
  });

  it('writes a GraphQL result whose list is nested, and counts the exact size of one over the limit', () => {
    const entries = Array.from({ length: 1000 }, (_, i) => ({ flightId: i, flightNumber: `IFL${i} ✈`, dep: { icao: 'LIRF' }, skipped: undefined }));
    const result = { errors: undefined, data: { timelineEvents: entries }, extensions: undefined };
    const expected = `${JSON.stringify(result)}\n`;
    const fits = writeJson(result, Buffer.byteLength(expected), '\n');
    expect('bytes' in fits && fits.bytes.toString('utf8')).toBe(expected);
    const over = writeJson(result, Buffer.byteLength(expected) - 1, '\n');
    expect(over).toEqual({ byteLength: Buffer.byteLength(expected) });
  });
});
