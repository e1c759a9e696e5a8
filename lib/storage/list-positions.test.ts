import Database from 'better-sqlite3';
import { expect } from 'chai';
import { type CompiledQuery, Kysely, SqliteDialect, sql } from 'kysely';
import { sqliteDialect } from './dialects/sqlite-dialect.js';
import { trackListChanges } from './list-changes.js';
import type { Tables } from './tables.js';
import { type ListCriteria, type ListDefinition, readListRows } from './list-query.js';

// list-positions.ts: a deep offset page keeps where it starts and where the next one does, and a repeat or the next
// page seeks there instead of walking the offset, while no write has touched the table.
describe('deep pages from kept positions', () => {
  const ROWS = 5_000;
  const TAKE = 50;
  const database = new Database(':memory:');
  const pages: CompiledQuery[] = [];
  /** Run once right after the next statement that reads the generation alone (a kept count's check), before the page. */
  let afterCountCheck: (() => void) | undefined;
  const db = new Kysely<Tables>({
    dialect: new SqliteDialect({ database }),
    log: (event) => {
      if (event.level !== 'query') return;
      if (event.query.sql.includes('list_page')) pages.push(event.query);
      // The kept count's check of the generation: a statement of the generation alone.
      else if (/^select \(select [^]* from "restlayer_list_change" as g where [^]*\) as generation$/.test(event.query.sql) && afterCountCheck) {
        afterCountCheck();
        afterCountCheck = undefined;
      }
    },
  });
  const storage = { reader: db, dialect: { ...sqliteDialect, readBudget: [] } };
  type Field = 'itemId' | 'rank' | 'note';
  const def: ListDefinition<Field> = {
    table: 'item', alias: 'i', id: 'i.item_id',
    columns: { itemId: 'i.item_id', rank: 'i.rank', note: 'i.note' },
    select: ['i.item_id as itemId', 'i.rank as rank'],
    notNull: ['itemId', 'rank'],
  };
  type Item = { itemId: number; rank: number };
  let rows: Item[] = [];

  const byRank = (a: Item, b: Item) => a.rank - b.rank || a.itemId - b.itemId;
  const rankAscending = { sort: [{ fieldName: 'rank' as const, sortDirection: 'Ascending' as const }] };
  const readItems = () => database.prepare('select item_id as itemId, rank from item').all() as Item[];
  /** Rows that sort before every other (rank below any): each shifts every page by one. */
  const insertFirst = (ids: number[], rank: number) => {
    for (const id of ids) database.prepare('insert into item (item_id, rank) values (?, ?)').run(id, rank);
  };
  const list = async (criteria: ListCriteria<Field>) => (await readListRows<Field, Item>(storage, def, { take: TAKE, ...criteria }, { maxRows: 100 })).rows;
  /** The last page statement's limit and offset, and whether it sought to a position. */
  const lastPage = () => {
    const { sql: text, parameters } = pages[pages.length - 1];
    return { limit: parameters.at(-2), offset: parameters.at(-1), seeks: /[<>]=/.test(text) };
  };
  const expectPage = async (criteria: ListCriteria<Field>, expected: Item[]) => {
    const skip = criteria.skip ?? 0;
    expect((await list(criteria)).map((r) => r.itemId)).to.deep.equal(expected.slice(skip, skip + TAKE).map((r) => r.itemId));
  };
  /** The page at `skip` by rank, read twice: the second from the position the first kept. */
  const seekingAt = async (skip: number) => {
    for (let i = 0; i < 2; i++) await expectPage({ ...rankAscending, skip }, [...rows].sort(byRank));
    expect(lastPage().seeks).to.equal(true);
  };

  before(async () => {
    await sql`create table item (item_id integer primary key, rank integer not null, note text)`.execute(db);
    await sql`create index ix_item_rank on item (rank, item_id)`.execute(db);
    // Many ties (rank repeats every 997 ids): a position must carry the id that breaks them.
    const insert = database.prepare('insert into item (item_id, rank, note) values (?, ?, ?)');
    database.transaction(() => {
      for (let id = 1; id <= ROWS; id++) insert.run(id, (id * 7919) % 997, id % 3 ? null : 'x');
    })();
    rows = readItems();
    await trackListChanges(db as Kysely<unknown>, sqliteDialect, 'item');
  });
  after(() => db.destroy());

  it('walks a first deep page, seeks on its repeat and on the next pages, with the same rows as walking', async () => {
    const sorted = [...rows].sort(byRank);
    await expectPage({ ...rankAscending, skip: 1_200 }, sorted);
    // The row before the page is read with it, for the position the repeat starts from.
    expect(lastPage()).to.deep.equal({ limit: TAKE + 2, offset: 1_199, seeks: false });
    await expectPage({ ...rankAscending, skip: 1_200 }, sorted);
    expect(lastPage()).to.deep.equal({ limit: TAKE + 1, offset: 0, seeks: true });
    await expectPage({ ...rankAscending, skip: 1_250 }, sorted);
    expect(lastPage()).to.deep.equal({ limit: TAKE + 1, offset: 0, seeks: true });
    // Between kept positions: from the nearest before it (1,300, which the page at 1,250 kept).
    await expectPage({ ...rankAscending, skip: 1_310 }, sorted);
    expect(lastPage()).to.deep.equal({ limit: TAKE + 2, offset: 9, seeks: true });
  });

  it('keeps positions of a page read from the end, and of a descending sort', async () => {
    const descending = [...rows].sort((a, b) => byRank(b, a));
    const criteria = { sort: [{ fieldName: 'rank' as const, sortDirection: 'Descending' as const }] };
    await expectPage({ ...criteria, skip: 4_000 }, descending);
    expect(lastPage().seeks).to.equal(false);
    await expectPage({ ...criteria, skip: 4_000 }, descending);
    expect(lastPage()).to.deep.equal({ limit: TAKE + 1, offset: 0, seeks: true });
    await expectPage({ ...criteria, skip: 4_050 }, descending);
    expect(lastPage()).to.deep.equal({ limit: TAKE + 1, offset: 0, seeks: true });
  });

  it('never starts from a position of other filters', async () => {
    const sorted = [...rows].sort(byRank);
    await expectPage({ skip: 1_500 }, [...rows].sort((a, b) => a.itemId - b.itemId));
    const high = sorted.filter((r) => r.rank > 100);
    const criteria = { rank: { operator: 'GT', values: [100] }, ...rankAscending } as ListCriteria<Field>;
    await expectPage({ ...criteria, skip: 1_200 }, high);
    expect(lastPage().seeks).to.equal(false);
  });

  it('walks again once a write moved the rows (the table\'s generation), with the rows as they are now', async () => {
    await seekingAt(2_000);
    // Three rows that sort before every kept position: a page from a stale position would be three rows off.
    insertFirst([ROWS + 1, ROWS + 2, ROWS + 3], -1);
    rows = readItems();
    await expectPage({ ...rankAscending, skip: 2_000 }, [...rows].sort(byRank));
    expect(lastPage()).to.deep.equal({ limit: TAKE + 2, offset: 1_999, seeks: false });
    await expectPage({ ...rankAscending, skip: 2_000 }, [...rows].sort(byRank));
    expect(lastPage().seeks).to.equal(true);
  });

  it('reads the page again by its offset when a write committed between the count\'s check and the page', async () => {
    await seekingAt(3_000);
    // The count is answered from the generation it was kept at; then two rows that sort first commit.
    afterCountCheck = () => insertFirst([ROWS + 11, ROWS + 12], -2);
    const page = (await list({ ...rankAscending, skip: 3_000 })).map((r) => r.itemId);
    expect(afterCountCheck).to.equal(undefined);
    rows = readItems();
    expect(page).to.deep.equal([...rows].sort(byRank).slice(3_000, 3_000 + TAKE).map((r) => r.itemId));
    expect(lastPage()).to.deep.equal({ limit: TAKE + 1, offset: 3_000, seeks: false });
  });

  it('keeps none for a sort whose first column may be NULL (no index seek to it)', async () => {
    const nullable: ListDefinition<Field> = { ...def, notNull: ['itemId'] };
    const criteria = { take: TAKE, skip: 1_200, sort: [{ fieldName: 'note' as const, sortDirection: 'Ascending' as const }] };
    for (let i = 0; i < 2; i++) await readListRows(storage, nullable, criteria, { maxRows: 100 });
    expect(lastPage()).to.deep.equal({ limit: TAKE + 1, offset: 1_200, seeks: false });
  });
});
