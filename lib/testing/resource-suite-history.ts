import assert from 'node:assert/strict';
import { expectError, expectOk } from './assertions.js';
import type { SuiteRun } from './resource-suite-context.js';
import { assertHolds } from './resource-suite-samples.js';

interface HistoryEntry {
  at: string;
  user: string;
  operation: string;
  changes: { field: string; old?: unknown; new?: unknown }[];
}

/** The record's history (contract part 11): an entry per write, newest first, paged; a refused write leaves none. */
export function historyTests(run: SuiteRun): void {
  it('every write leaves a history entry, newest first: who, the operation, the changed fields; a refused write none', async () => {
    const input = await run.sample();
    const id = await run.create(input);
    expectOk(await run.put(id, { ...run.forUpdate(await run.sample()), revisionNumber: 1 }));
    expectOk(await run.patch(id, { revisionNumber: 2, ...(await run.sampleChange()) }));
    expectError(await run.patch(id, { revisionNumber: 1 }), 409, 'Entity_Concurrency', 'revisionNumber');
    const history = async (query = '') => expectOk(await run.call(`${run.item(id)}/history${query}`)).result as HistoryEntry[];
    const entries = await history();
    assert.deepEqual(entries.map((e) => e.operation), ['patch', 'update', 'create']);
    for (const e of entries) assert.equal(e.user, 'tester');
    const created = entries[2].changes;
    const fields = new Set(run.model.fields.map((f) => f.name));
    for (const [field, value] of Object.entries(input).filter(([name, v]) => fields.has(name) && v != null)) {
      const change = created.find((c) => c.field === field);
      assert.ok(change && !('old' in change), `the create's entry names ${field} with its new value only: ${JSON.stringify(created)}`);
      assertHolds({ [field]: change.new }, { [field]: value }, 'the create entry');
    }
    assert.deepEqual(entries[1].changes.find((c) => c.field === 'revisionNumber'), { field: 'revisionNumber', old: 1, new: 2 });
    assert.deepEqual(entries[0].changes.find((c) => c.field === 'revisionNumber'), { field: 'revisionNumber', old: 2, new: 3 });
    assert.deepEqual((await history('?skip=1&take=1')).map((e) => e.operation), ['update']);
    // A delete has old values only; the history of a deleted record stays readable (with the delete permission).
    expectOk(await run.remove(id));
    const [deleted] = await history();
    assert.equal(deleted.operation, 'delete');
    assert.deepEqual(deleted.changes.find((c) => c.field === 'revisionNumber'), { field: 'revisionNumber', old: 3 });
    assert.deepEqual(deleted.changes.filter((c) => 'new' in c), []);
  });
}
