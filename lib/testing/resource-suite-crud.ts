import assert from 'node:assert/strict';
import { expectError, expectOk } from './assertions.js';
import { UNKNOWN_ID, type SuiteRun } from './resource-suite-context.js';
import { assertHolds } from './resource-suite-samples.js';

interface HistoryEntry {
  at: string;
  user: string;
  operation: string;
  changes: { field: string; old?: unknown; new?: unknown }[];
}

/** Create, read, PUT, PATCH, DELETE, revisions and history: what every resource answers alike. */
export function crudTests(run: SuiteRun): void {
  const { model } = run;
  const entity = model.entity;

  it('POST answers 201 with a Location that GETs the new record, holding every field sent', async () => {
    const input = await run.sample();
    const reply = await run.call(run.path, { method: 'POST', body: input });
    const { result } = expectOk(reply, 201);
    const id = result[model.key] as number;
    assert.ok(Number.isInteger(id) && id > 0, reply.text);
    assert.equal(result.revisionNumber, 1, reply.text);
    assert.equal(reply.headers.get('Location'), run.item(id));
    const record = expectOk(await run.call(reply.headers.get('Location')!)).result;
    assert.equal(record[model.key], id);
    assert.equal(record.revisionNumber, 1);
    assertHolds(record, input, 'the created record');
  });

  it('PUT replaces the record and answers the next revisionNumber; PATCH changes only the fields it names', async () => {
    const id = await run.create();
    const replacement = run.forUpdate(await run.sample());
    const { result } = expectOk(await run.put(id, { ...replacement, revisionNumber: 1 }));
    assert.deepEqual(Object.keys(result).sort(), ['modifiedDate', 'revisionNumber']);
    assert.equal(result.revisionNumber, 2);
    const afterPut = await run.read(id);
    assertHolds(afterPut, replacement, 'after PUT');
    const [first] = run.updateFields;
    if (!first) return;
    const change = { [first.name]: run.forUpdate(await run.sample())[first.name] };
    const patched = expectOk(await run.patch(id, change)).result;
    assert.equal(patched.revisionNumber, 3);
    const afterPatch = await run.read(id);
    assertHolds(afterPatch, change, 'after PATCH');
    const { [first.name]: _was, ...kept } = afterPut;
    assertHolds(afterPatch, { ...kept, ...patched }, 'after PATCH, the fields it did not name');
  });

  it('a stale revisionNumber is a 409 Entity_Concurrency for PUT and PATCH, and nothing is written', async () => {
    const input = await run.sample();
    const id = await run.create(input);
    expectOk(await run.put(id, { ...run.forUpdate(input), revisionNumber: 1 }));
    const before = await run.read(id);
    expectError(await run.put(id, { ...run.forUpdate(input), revisionNumber: 1 }), 409, 'Entity_Concurrency', 'revisionNumber');
    expectError(await run.patch(id, { revisionNumber: 1 }), 409, 'Entity_Concurrency', 'revisionNumber');
    assert.deepEqual(await run.read(id), before);
  });

  it('DELETE answers 200 with an envelope without result; then the record is a 404 and the count one less', async () => {
    const id = await run.create();
    const total = await run.count();
    const reply = await run.remove(id);
    assert.equal(reply.status, 200, reply.text);
    assert.deepEqual(reply.body, { messages: [] });
    expectError(await run.call(run.item(id)), 404, 'Entity_NotFound');
    assert.equal(await run.count(), total - 1);
  });

  it(`an unknown id is a 404 Entity_NotFound ("${entity} with id … not found.") for GET, PUT, PATCH, DELETE and history`, async () => {
    const input = run.forUpdate(await run.sample());
    for (const reply of [
      await run.call(run.item(UNKNOWN_ID)), await run.put(UNKNOWN_ID, input), await run.patch(UNKNOWN_ID, {}),
      await run.remove(UNKNOWN_ID), await run.call(`${run.item(UNKNOWN_ID)}/history`),
    ]) {
      const m = expectError(reply, 404, 'Entity_NotFound');
      assert.equal(m.message, `${entity} with id ${UNKNOWN_ID} not found.`);
      assert.equal(m.type, 'Data');
    }
  });

  it('an id that is not a positive integer is a 400 on the route parameter', async () => {
    expectError(await run.call(run.item('abc')), 400, 'Input_InvalidType', model.param);
    expectError(await run.call(run.item(0)), 400, 'Input_OutOfRange', model.param);
  });

  it('every write leaves a history entry, newest first: who, the operation, the changed fields; a refused write none', async () => {
    const input = await run.sample();
    const id = await run.create(input);
    expectOk(await run.put(id, { ...run.forUpdate(await run.sample()), revisionNumber: 1 }));
    const [first] = run.updateFields;
    expectOk(await run.patch(id, { revisionNumber: 2, ...(first ? { [first.name]: run.forUpdate(await run.sample())[first.name] } : {}) }));
    expectError(await run.patch(id, { revisionNumber: 1 }), 409, 'Entity_Concurrency', 'revisionNumber');
    const history = async (query = '') => expectOk(await run.call(`${run.item(id)}/history${query}`)).result as HistoryEntry[];
    const entries = await history();
    assert.deepEqual(entries.map((e) => e.operation), ['patch', 'update', 'create']);
    for (const e of entries) assert.equal(e.user, 'tester');
    const created = entries[2].changes;
    for (const [field, value] of Object.entries(input)) {
      const change = created.find((c) => c.field === field);
      assert.ok(change && !('old' in change), `the create's entry names ${field} with its new value only: ${JSON.stringify(created)}`);
      assertHolds({ [field]: change.new }, { [field]: value }, 'the create entry');
    }
    assert.deepEqual(entries[1].changes.find((c) => c.field === 'revisionNumber'), { field: 'revisionNumber', old: 1, new: 2 });
    assert.deepEqual((await history('?skip=1&take=1')).map((e) => e.operation), ['update']);
    expectOk(await run.remove(id));
    const [deleted] = await history();
    assert.equal(deleted.operation, 'delete');
    assert.deepEqual(deleted.changes.filter((c) => 'new' in c), []);
  });
}
