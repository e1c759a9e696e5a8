import { expect } from 'chai';
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { SqliteFileWatch } from './sqlite-files.js';
import { openSqlite } from './sqlite.js';
import { StoreOutcomeUnknownError } from './store-faults.js';

/**
 * The watch of the database's files (lib/storage/sqlite-files.ts): the check after a write always looks at the files,
 * the one before it may stand on a check of the last few milliseconds, and a difference once found is found for good.
 */
describe('storage: the SQLite files watch', () => {
  let dir: string;
  let path: string;
  let told: string[];
  let watch: SqliteFileWatch;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'restlayer-files-'));
    path = join(dir, 'app.db');
    for (const suffix of ['', '-wal', '-shm']) writeFileSync(path + suffix, '');
    told = [];
    watch = new SqliteFileWatch(path, (what) => told.push(what));
    watch.capture();
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('finds a removed -wal at once, and for good, told once', () => {
    expect(watch.problem()).to.equal(undefined);
    rmSync(`${path}-wal`);
    expect(watch.problem()).to.match(/the -wal file was removed while the server had it open/);
    writeFileSync(`${path}-wal`, '');
    expect(watch.problemBeforeWrite()).to.match(/the -wal file was removed/);
    expect(told).to.have.length(1);
  });

  it('before a write, stands on a check that found the files the same moments ago, and looks again after that', async () => {
    // A window of its own, wide enough that a pause of the test's process cannot end it between two lines.
    watch = new SqliteFileWatch(path, (what) => told.push(what), 500);
    watch.capture();
    expect(watch.problem()).to.equal(undefined);
    rmSync(`${path}-shm`);
    expect(watch.problemBeforeWrite(), 'within the moment of the last check').to.equal(undefined);
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(watch.problemBeforeWrite(), 'once that check is older').to.match(/the -shm file was removed/);
  });

  it('before a first write, looks', () => {
    // Written beside and moved over it: a file made after a removal may get the freed inode back.
    writeFileSync(`${path}.new`, '');
    renameSync(`${path}.new`, path);
    expect(watch.problemBeforeWrite()).to.match(/the database file was replaced/);
  });

  it('a store does not acknowledge a write with RETURNING that went to the files after they were removed', async () => {
    // Removed right after a write's check found them the same, the check before the next write stands on that one, so
    // only the one after it can tell (a RETURNING write answers rows, not a count of rows changed). Should the check
    // before look after all (a pause of over 20 ms on a loaded machine: 503 Storage_Unavailable), that try proves
    // nothing and another store is tried.
    const answers: string[] = [];
    for (let attempt = 0; attempt < 5 && !answers.includes('StoreOutcomeUnknownError'); attempt++) {
      const storage = openSqlite(join(dir, `store-${attempt}.db`));
      try {
        await sql`create table t (id integer primary key, v integer)`.execute(storage.db);
        await sql`insert into t (v) values (1)`.execute(storage.db);
        for (const suffix of ['-wal', '-shm']) rmSync(join(dir, `store-${attempt}.db${suffix}`));
        const failed = await sql`insert into t (v) values (2) returning id`.execute(storage.db).then(() => undefined, (err: unknown) => err);
        answers.push(failed instanceof Error ? failed.constructor.name : 'acknowledged');
      } finally {
        await storage.close();
      }
    }
    expect(answers).to.not.include('acknowledged');
    expect(answers).to.include('StoreOutcomeUnknownError');
  });
});
