import { expect } from 'chai';
import Database from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import { keptQuery } from 'restlayer';

interface Db {
  item: { id: number; name: string; kind: string };
}

/**
 * keptQuery (lib/storage/kept-query.ts): the SQL is built and compiled once and each run fills in its own values; a
 * builder that computes with a value instead of passing it to Kysely fails at once instead of reusing the first
 * value. The scope part of the key is tested over HTTP (test/access/scopes.test.ts, reads by callers in turn).
 */
describe('keptQuery', () => {
  let db: Kysely<Db>;
  before(async () => {
    db = new Kysely<Db>({ dialect: new SqliteDialect({ database: new Database(':memory:') }) });
    await db.schema.createTable('item').addColumn('id', 'integer', (c) => c.primaryKey()).addColumn('name', 'text').addColumn('kind', 'text').execute();
    await db.insertInto('item').values([{ id: 1, name: 'one', kind: 'a' }, { id: 2, name: 'two', kind: 'b' }, { id: 3, name: 'three', kind: 'a' }]).execute();
  });
  after(() => db.destroy());

  it('builds once, then answers each run for its own values (the same value twice, in any order)', async () => {
    let builds = 0;
    const byKind = keptQuery((k: Kysely<Db>, p: { kind: string; above: number }) => {
      builds++;
      return k.selectFrom('item').select(['id', 'name']).where('kind', '=', p.kind).where('id', '>', p.above).where('name', '<>', 'none').orderBy('id');
    });
    expect(await byKind(db, { kind: 'a', above: 0 })).to.deep.equal([{ id: 1, name: 'one' }, { id: 3, name: 'three' }]);
    expect(await byKind(db, { kind: 'b', above: 0 })).to.deep.equal([{ id: 2, name: 'two' }]);
    expect(await byKind(db, { kind: 'a', above: 1 })).to.deep.equal([{ id: 3, name: 'three' }]);
    // In a transaction (same dialect: the kept statement serves it too).
    expect(await db.transaction().execute((trx) => byKind(trx, { kind: 'a', above: 2 }))).to.deep.equal([{ id: 3, name: 'three' }]);
    expect(builds).to.equal(1);
  });

  it('a builder that computes with a value fails at its first run, saying which value', async () => {
    const computed = keptQuery((k: Kysely<Db>, p: { id: number }) => k.selectFrom('item').selectAll().where('id', '=', Number(p.id) + 1));
    let failure: unknown;
    try {
      await computed(db, { id: 1 });
    } catch (err) {
      failure = err;
    }
    expect(failure).to.be.instanceOf(Error);
    expect((failure as Error).message).to.contain("'id' is not a parameter of the compiled SQL");
  });
});
