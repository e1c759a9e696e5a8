import { expect } from 'chai';
import { pgDriver } from '../storage/pg-driver.js';
import { createErrorParser } from './error-parser.js';

// Over HTTP: a race of creates on a unique key is test/customer/duplicates.test.ts; these are the stores' reports one by one.
describe('unique-key violations map to the property by the store\'s code', () => {
  const parse = createErrorParser({ production: true, uniqueKeys: [{ index: 'ux_thing_code', property: 'thingCode' }] });
  const sqlite = (code: string, text: string) => Object.assign(new Error(text), { code });

  it('SQLite: a plain column (table.column) maps to its camelCase name; a named index to its declared property', () => {
    const plain = parse(sqlite('SQLITE_CONSTRAINT_UNIQUE', 'UNIQUE constraint failed: purchase_order.order_number'));
    expect(plain.messages[0]).to.deep.include({ code: 'Entity_Duplicate', type: 'Concurrency', status: 409, property: 'orderNumber' });
    const key = parse(sqlite('SQLITE_CONSTRAINT_PRIMARYKEY', 'UNIQUE constraint failed: thing.thing_id'));
    expect(key.messages[0]).to.deep.include({ code: 'Entity_Duplicate', property: 'thingId' });
    const index = parse(sqlite('SQLITE_CONSTRAINT_UNIQUE', "UNIQUE constraint failed: index 'ux_thing_code'"));
    expect(index.messages[0]).to.deep.include({ code: 'Entity_Duplicate', property: 'thingCode' });
    expect(index.unhandled).to.equal(false);
  });

  it('PostgreSQL 23505: the declared index by its constraint name, else the column its detail names', () => {
    // The driver a PostgreSQL store loads when it opens (the errors are its own class).
    const { DatabaseError } = pgDriver();
    const violation = (constraint: string, detail: string) => Object.assign(new DatabaseError('duplicate key value violates unique constraint', 0, 'error'),
      { code: '23505', constraint, detail });
    expect(parse(violation('ux_thing_code', 'Key (lower(code::text))=(a) already exists.')).messages[0]).to.deep.include({ code: 'Entity_Duplicate', property: 'thingCode' });
    expect(parse(violation('purchase_order_order_number_key', 'Key (order_number)=(PO1) already exists.')).messages[0])
      .to.deep.include({ code: 'Entity_Duplicate', type: 'Concurrency', status: 409, property: 'orderNumber' });
  });
});

describe('the error parser: store codes that are not the request\'s fault', () => {
  it("maps SQLite's extended busy and locked codes to 503 Storage_Unavailable (SQLITE_BUSY_SNAPSHOT was a 500)", () => {
    const parse = createErrorParser({ production: true });
    for (const code of ['SQLITE_BUSY', 'SQLITE_BUSY_SNAPSHOT', 'SQLITE_BUSY_RECOVERY', 'SQLITE_LOCKED', 'SQLITE_LOCKED_SHAREDCACHE']) {
      const parsed = parse(Object.assign(new Error('database is locked'), { code }));
      expect([parsed.unhandled, parsed.messages.map((m) => [m.code, m.status])], code).to.deep.equal([false, [['Storage_Unavailable', 503]]]);
    }
    expect(parse(Object.assign(new Error('constraint failed'), { code: 'SQLITE_CONSTRAINT_FOREIGNKEY' })).unhandled).to.equal(true);
  });
});
