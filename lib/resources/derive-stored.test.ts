import Database from 'better-sqlite3';
import Big from 'big.js';
import { expect } from 'chai';
import { Kysely, SqliteDialect, sql } from 'kysely';
import { sqliteDialect } from '../storage/dialects/sqlite-dialect.js';
import { child } from './declaration.js';
import { deriveStored } from './derive-stored.js';
import { field } from './field.js';
import { resource } from './resource.js';

/**
 * The declaration as it is today, run by an older migration (which deriveStored is, on a database several migrations
 * behind): the lines' amount is now derived from a discount whose column a later migration adds, and a tax total
 * derived from the lines' total has no column yet either.
 */
const bill = resource({
  name: 'bill',
  fields: {
    linesTotal: field.money().sum('lines', 'amount'),
    taxTotal: field.money().derived(['linesTotal'], (v) => new Big(v.linesTotal).times(0.2)),
  },
  children: {
    lines: child({
      item: 'line',
      fields: {
        quantity: field.integer().required(), price: field.money().required(), discount: field.money(),
        amount: field.money().derived(['quantity', 'price', 'discount'], (v) => new Big(v.quantity).times(v.price).minus(v.discount)),
      },
    }),
  },
});

describe('deriveStored: a migration computing what the records made before lack', () => {
  let db: Kysely<unknown>;
  beforeEach(async () => {
    db = new Kysely<unknown>({ dialect: new SqliteDialect({ database: new Database(':memory:') }) });
    // The schema as migration 0002 leaves it: lines_total and amount added, discount and tax_total not yet.
    await sql`create table bill (bill_id integer primary key, lines_total integer not null default 0, revision_number integer not null, modified_date text not null)`.execute(db);
    await sql`create table bill_line (bill_line_id integer primary key, bill_id integer not null, quantity integer not null, price integer not null, amount integer)`.execute(db);
  });
  afterEach(() => db.destroy());

  it('computes the columns it is given and what follows from them, in batches past 500 records, leaving fields whose columns are missing', async () => {
    const bills = 1_203;
    await sql`insert into bill (bill_id, revision_number, modified_date) select value, 1, '2026-01-01' from generate_series(1, ${bills})`.execute(db)
      .catch(async () => {
        // SQLite builds without the generate_series extension: a recursive CTE instead.
        await sql`with recursive n(i) as (select 1 union all select i + 1 from n where i < ${bills})
          insert into bill (bill_id, revision_number, modified_date) select i, 1, '2026-01-01' from n`.execute(db);
      });
    // Two lines on every bill, 2 × 1.5 and 1 × 0.25 (money in ten-thousandths), their amount stored as 7 (stale).
    await sql`insert into bill_line (bill_id, quantity, price, amount) select bill_id, 2, 15000, 7 from bill`.execute(db);
    await sql`insert into bill_line (bill_id, quantity, price, amount) select bill_id, 1, 2500, 7 from bill`.execute(db);

    // The amount needs discount, which has no column yet: left as stored; the total follows the stored amounts; tax_total has no column.
    expect(await deriveStored(db, sqliteDialect, bill, ['bill.lines_total', 'bill_line.amount'])).to.equal(bills);
    const { rows } = await sql<{ n: number; total: number; amount: number }>`select count(*) as n, min(lines_total) as total, max(amount) as amount
      from bill join bill_line using (bill_id) where lines_total = 14 and amount = 7`.execute(db);
    expect(rows[0]).to.deep.equal({ n: bills * 2, total: 14, amount: 7 });

    // Once the later migration added discount, the amounts are computed, and the totals follow.
    await sql`alter table bill_line add column discount integer`.execute(db);
    await sql`update bill_line set discount = 0`.execute(db);
    expect(await deriveStored(db, sqliteDialect, bill, ['bill_line.amount'])).to.equal(bills * 3);
    const after = await sql<{ total: number }>`select distinct lines_total as total from bill`.execute(db);
    expect(after.rows).to.deep.equal([{ total: 32_500 }]);
  });
});
