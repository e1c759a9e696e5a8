import Database from 'better-sqlite3';
import { expect } from 'chai';
import { CompiledQuery } from 'kysely';
import { MainReadBudget } from './sqlite-read-budget.js';

// sqlite-read-budget.ts: list queries first run on the main connection, within a few milliseconds.
const count = (upTo: number, term = ' and restlayer_within_budget()') => CompiledQuery.raw(
  `with recursive c(x) as (select 1 union all select x + 1 from c where x < ${upTo}${term}) select count(*) as n from c`, []);

describe('the main thread budget of SQLite reader queries', () => {
  const database = new Database(':memory:');
  // 50 ms: far above what 1,000 rows take even on a loaded machine (at 5 ms a scheduling hiccup failed the first
  // test now and then), far below the half minute of the overrunning count.
  const budget = new MainReadBudget(database, 50);
  let reads = 0;
  const read = (query: CompiledQuery) => {
    reads++;
    return database.prepare(query.sql).all(...query.parameters);
  };
  after(() => database.close());

  it('answers a query that ends within the budget', () => {
    expect(budget.tryRun(count(1_000), read)).to.deep.equal([{ n: 1000 }]);
  });

  it('stops one that overruns it (a count that would take half a minute), and sends it to the readers the next times', () => {
    reads = 0;
    expect(budget.tryRun(count(200_000_000), read)).to.equal(undefined);
    expect(budget.tryRun(count(200_000_000), read)).to.equal(undefined);
    expect(reads).to.equal(1);
    // Other queries still run here, and after the budgeted try queries on the main connection run unbounded again.
    expect(budget.tryRun(count(2_000), read)).to.deep.equal([{ n: 2000 }]);
    expect(database.prepare(count(100_000).sql).all()).to.deep.equal([{ n: 100_000 }]);
  });

  it('leaves queries without the budget term to the readers, and every query when the budget is 0', () => {
    reads = 0;
    expect(budget.tryRun(count(10, ''), read)).to.equal(undefined);
    expect(new MainReadBudget(new Database(':memory:'), 0).tryRun(count(10), read)).to.equal(undefined);
    expect(reads).to.equal(0);
  });

  it('passes on errors other than the budget\'s', () => {
    expect(() => budget.tryRun(CompiledQuery.raw('select nope from nowhere where restlayer_within_budget()', []), read)).to.throw(/no such table/);
  });
});
