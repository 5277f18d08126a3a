import { MongoInvalidArgumentError, MongoServerError } from 'mongodb';
import { isDocumentTooLarge } from '../../src/db/document-too-large';

describe('isDocumentTooLarge', () => {
  it.each([
    ['BSONObjectTooLarge by code', new MongoServerError({ code: 10334, codeName: 'BSONObjectTooLarge', errmsg: 'BSONObj size: 17000000 (0x1036640) is invalid. Size must be between 0 and 16793600(16MB)' })],
    ['an update grown too large (older servers)', new MongoServerError({ code: 17419, errmsg: 'Resulting document after update is larger than 16777216' })],
    ['an insert refused by message only', new MongoServerError({ code: 2, errmsg: 'object to insert too large. size in bytes: 17000000, max size: 16777216' })],
    ['the driver refusing before sending', new MongoInvalidArgumentError('Document is larger than the maximum size 16777216')],
    ['a write error inside a bulk answer', Object.assign(new Error('write failed'), { writeErrors: [{ code: 10334, errmsg: 'too big' }] })],
  ])('recognises %s', (_name, error) => {
    expect(isDocumentTooLarge(error)).toBe(true);
  });

  it.each([
    ['a duplicate key', new MongoServerError({ code: 11000, errmsg: 'E11000 duplicate key error' })],
    ['a time-out', new MongoServerError({ code: 50, codeName: 'MaxTimeMSExpired', errmsg: 'operation exceeded time limit' })],
    ['a plain value', 'too large'],
    ['nothing', null],
  ])('does not mistake %s for it', (_name, error) => {
    expect(isDocumentTooLarge(error)).toBe(false);
  });
});
