import Database from 'better-sqlite3';
import { expect } from 'chai';
import { Kysely, SqliteDialect, sql } from 'kysely';
import { sqliteDialect } from './dialects/sqlite-dialect.js';
import { generationOf, trackListChanges } from './list-changes.js';

/**
 * The generation read (lib/storage/list-changes.ts) carries its table names in its text, never as parameters: SQLite
 * built with STAT4 (better-sqlite3 is) prepares a statement again at every run that binds a parameter compared with
 * an analysed index, and this read is in every write's first statement and every kept count's check.
 */
describe('storage: the list change generation', () => {
  const database = new Database(':memory:');
  const db = new Kysely<unknown>({ dialect: new SqliteDialect({ database }) });
  const generation = async (tables: string[]) =>
    (await sql<{ g: number | null }>`select ${generationOf(tables)} as g`.execute(db)).rows[0].g;

  before(async () => {
    for (const name of ['plain', "it's"]) {
      await sql`create table ${sql.table(name)} (id integer primary key)`.execute(db);
      await trackListChanges(db, sqliteDialect, name);
    }
    await sql`create table untracked (id integer primary key)`.execute(db);
    await sql`analyze`.execute(db);
  });
  after(() => db.destroy());

  it('names its tables in the SQL, with no parameter, one table or several', () => {
    const compiled = (tables: string[]) => sql`select ${generationOf(tables)} as g`.compile(db);
    expect(compiled(['plain']).parameters).to.deep.equal([]);
    expect(compiled(['plain', "it's"]).parameters).to.deep.equal([]);
    expect(compiled(['plain', "it's"]).sql).to.include("'it''s'");
  });

  it('moves on with each write of a table, a quoted name too, and is null while one of its tables is untracked', async () => {
    expect(await generation(['plain', "it's"])).to.equal(0);
    await sql`insert into ${sql.table("it's")} (id) values (1)`.execute(db);
    await sql`insert into plain (id) values (1)`.execute(db);
    await sql`update plain set id = 2`.execute(db);
    expect(await generation(["it's"])).to.equal(1);
    expect(await generation(['plain'])).to.equal(2);
    expect(await generation(['plain', "it's"])).to.equal(3);
    expect(await generation(['plain', 'untracked'])).to.equal(null);
    expect(await generation(['untracked'])).to.equal(null);
  });
});
