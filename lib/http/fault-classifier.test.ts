import { expect } from 'chai';
import { StoreOutcomeUnknownError, StoreUnavailableError } from '../storage/store-faults.js';
import { createErrorParser } from './error-parser.js';

/** The error parser classifies infrastructure faults by class and code (test/faults/ covers them over HTTP). */
describe('faults: infrastructure errors are 503 with Retry-After, by class and code', () => {
  const parse = createErrorParser({ production: true });
  const answer = (err: unknown) => {
    const parsed = parse(err);
    return [parsed.unhandled, parsed.messages.map((m) => `${m.status ?? 500} ${m.code}`).join(), parsed.headers?.['Retry-After']];
  };

  it("SQLite's disk, file, space and corruption codes, with their extended forms (the sqlitefaults cases)", () => {
    for (const code of ['SQLITE_IOERR', 'SQLITE_IOERR_WRITE', 'SQLITE_IOERR_SHMOPEN', 'SQLITE_FULL', 'SQLITE_CANTOPEN', 'SQLITE_READONLY',
      'SQLITE_READONLY_DBMOVED', 'SQLITE_READONLY_CANTINIT', 'SQLITE_CORRUPT', 'SQLITE_NOTADB', 'SQLITE_BUSY_SNAPSHOT', 'SQLITE_LOCKED']) {
      expect(answer(Object.assign(new Error('any text'), { code })), code).to.deep.equal([false, '503 Storage_Unavailable', '1']);
    }
  });

  it('the stores\' fault classes, whatever their text; a fault on COMMIT is Storage_OutcomeUnknown', () => {
    expect(answer(new StoreUnavailableError('PostgreSQL', 'Client has encountered a connection error and is not queryable')))
      .to.deep.equal([false, '503 Storage_Unavailable', '1']);
    expect(answer(new StoreUnavailableError('Redis', 'no answer within 500 ms'))).to.deep.equal([false, '503 Storage_Unavailable', '1']);
    expect(answer(new StoreOutcomeUnknownError('PostgreSQL', 'connection lost during COMMIT'))).to.deep.equal([false, '503 Storage_OutcomeUnknown', '1']);
    expect(answer(Object.assign(new Error('x'), { code: '57P01' }))).to.deep.equal([false, '503 Storage_Unavailable', '1']);
  });

  it('a constraint other than uniqueness stays a defect (500): only infrastructure is a 503', () => {
    expect(answer(Object.assign(new Error('CHECK constraint failed'), { code: 'SQLITE_CONSTRAINT_CHECK' }))[1]).to.equal('500 Exception_Unhandled');
  });
});
