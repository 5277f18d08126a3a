import { AppError, capDetails, ErrorCode, MAX_DETAIL_MESSAGE_CHARS, truncateText } from '../../src/errors';

describe('error details cut to size', () => {
  const long = `${'a'.repeat(MAX_DETAIL_MESSAGE_CHARS)}${'b'.repeat(50)}`;

  it('keep a detail message up to 400 characters, and say how many more a longer one had', () => {
    const [exact, over] = capDetails([{ message: long.slice(0, MAX_DETAIL_MESSAGE_CHARS) }, { message: long }]);
    expect(exact.message).toBe(long.slice(0, MAX_DETAIL_MESSAGE_CHARS));
    expect(over.message).toBe(`${'a'.repeat(MAX_DETAIL_MESSAGE_CHARS)}… (50 more characters)`);
  });

  it('keep the true count when an error is rebuilt from an error (as the REST facade rebuilds GraphQL errors)', () => {
    const first = new AppError(ErrorCode.UNPROCESSABLE, 'bad', { details: [{ field: 'x', message: long, value: 'v'.repeat(203) }] });
    const rebuilt = new AppError(ErrorCode.UNPROCESSABLE, first.message, { details: first.details });
    expect(rebuilt.details).toEqual(first.details);
    expect(rebuilt.details[0].message).toMatch(/… \(50 more characters\)$/);
    expect(rebuilt.details[0].value).toMatch(/… \(3 more characters\)$/);
  });

  it('cut a text that only looks cut', () => {
    const fake = `${'c'.repeat(300)}… (1 more characters)`;
    expect(truncateText(fake)).toBe(`${'c'.repeat(200)}… (${fake.length - 200} more characters)`);
  });
});
