import assert from 'node:assert/strict';
import { expectError, expectOk } from './assertions.js';
import { UNKNOWN_ID, type SuiteRun } from './resource-suite-context.js';
import { type Input, assertHolds } from './resource-suite-samples.js';

/** The ids of the deleted records the suite's caller lists (`?deleted=true`), walking the pages by cursor. */
async function deletedIds(run: SuiteRun): Promise<number[]> {
  const ids: number[] = [];
  let cursor = '';
  for (let page = 0; page < 1000; page++) {
    const body = expectOk(await run.call(`${run.path}?deleted=true&take=100&cursor=${encodeURIComponent(cursor)}`));
    ids.push(...run.idsOf(body.result as Input[]));
    if (!body.nextCursor) return ids;
    cursor = body.nextCursor as string;
  }
  throw new Error(`${run.path}?deleted=true: more than 1000 pages`);
}

/**
 * Soft delete and restore (contract part 13), for a resource declared with `softDelete`: a delete marks the record,
 * which then lists with `?deleted=true` only, and `POST …/{id}/restore` (permission `<name>.delete`) brings it back.
 */
export function restoreTests(run: SuiteRun): void {
  const restore = (id: number | string, token?: string) => run.call(`${run.item(id)}/restore`, { method: 'POST', ...(token ? { token } : {}) });

  it('a deleted record lists with deleted=true only; restore brings it back, with its values, at the next revision', async () => {
    const input = await run.sample();
    const id = await run.create(input);
    const total = await run.count();
    const revision = (await run.read(id)).revisionNumber as number;
    expectOk(await run.remove(id));
    assert.equal(await run.count(), total - 1);
    assert.ok((await deletedIds(run)).includes(id), `${run.path}?deleted=true lists the deleted record ${id}`);
    const reply = await restore(id);
    const { result } = expectOk(reply);
    // The delete took one revision, the restore the next.
    assert.equal(result.revisionNumber, revision + 2, reply.text);
    assert.ok(!Number.isNaN(Date.parse(result.modifiedDate as string)), reply.text);
    const record = await run.read(id);
    assert.equal(record.revisionNumber, revision + 2);
    assertHolds(record, input, 'the restored record');
    assert.equal(await run.count(), total);
    assert.ok(!(await deletedIds(run)).includes(id), `${run.path}?deleted=true no longer lists the restored record ${id}`);
    const history = expectOk(await run.call(`${run.item(id)}/history?take=2`)).result as { operation: string }[];
    assert.deepEqual(history.map((e) => e.operation), ['restore', 'delete']);
  });

  it('restore of a record not deleted, already restored, or unknown is a 404 Entity_NotFound', async () => {
    const id = await run.create();
    expectError(await restore(id), 404, 'Entity_NotFound');
    expectError(await restore(UNKNOWN_ID), 404, 'Entity_NotFound');
    expectOk(await run.remove(id));
    expectOk(await restore(id));
    expectError(await restore(id), 404, 'Entity_NotFound');
  });

  it(`deleted=true and restore need ${run.model.permissions.delete}: a reader gets 403 and the record stays deleted`, async () => {
    const id = await run.create();
    expectOk(await run.remove(id));
    const reader = run.server.token({ role: ['ResourceSuiteReader'] });
    expectError(await run.call(`${run.path}?deleted=true`, { token: reader }), 403, 'Security_Forbidden');
    expectError(await restore(id, reader), 403, 'Security_Forbidden');
    expectError(await run.call(run.item(id)), 404, 'Entity_NotFound');
    assert.ok((await deletedIds(run)).includes(id));
  });
}
