import fc from 'fast-check';

/**
 * Values a hostile or broken client sends where a field is expected: wrong JSON types, extremes of
 * numbers, long, odd and control-character strings, deep and wide structures.
 */
export const hostileString = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.constantFrom('', ' ', '\u0000', '\uFFFD', '\uD800', '💥', '%00', '../../etc/passwd', '{"$gt":""}', '$where', '__proto__', 'constructor', 'null', 'NaN', '-1', '1e309', '2026-02-30', '2026-06-10T25:00:00Z', '9999-12-31', 'javascript:alert(1)'),
  fc.integer({ min: 1000, max: 70_000 }).map((n) => 'x'.repeat(n)),
);

export const hostileNumber = fc.oneof(
  fc.integer(),
  fc.double(),
  fc.constantFrom(0, -1, 2 ** 31, -(2 ** 31) - 1, 2 ** 53, Number.MAX_SAFE_INTEGER + 2, 1e300, -1e300, 0.5),
);

export const hostileJson: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constant(null),
    fc.boolean(),
    hostileNumber,
    hostileString,
    fc.array(tie('value'), { maxLength: 5 }),
    fc.dictionary(fc.oneof(hostileString, fc.constantFrom('$set', '__proto__', 'id', 'created')), tie('value'), { maxKeys: 5 }),
    fc.integer({ min: 100, max: 3000 }).map((depth) => nest(depth)),
    fc.integer({ min: 1000, max: 50_000 }).map((n) => Array.from({ length: n }, (_, i) => i)),
  ),
})).value;

function nest(depth: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < depth; i += 1) value = i % 2 ? [value] : { a: value };
  return value;
}

/** Fixed seeds so CI runs the same inputs every time; FUZZ_SEED / FUZZ_RUNS explore further locally. */
export const FUZZ = {
  seed: Number(process.env.FUZZ_SEED ?? 20261123),
  numRuns: Number(process.env.FUZZ_RUNS ?? 60),
};

/** Messages of JavaScript internals that must never reach a client. */
export const INTERNAL_MESSAGE = /TypeError|ReferenceError|RangeError|Cannot read prop|is not a function|is not iterable|undefined \(reading|Maximum call stack|\bat .+\.(ts|js):\d+/;
