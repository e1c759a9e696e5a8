import assert from 'node:assert/strict';
import { expectError, expectOk } from './assertions.js';
import { UNKNOWN_ID, type SuiteRun } from './resource-suite-context.js';
import { assertHolds } from './resource-suite-samples.js';

/** Create, read and DELETE, and the answers for ids that name no record. */
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
    // The answer holds the id and revision (and values made from the id alone), never a copy of the record.
    const keyed = model.fields.filter((f) => f.spec.derived?.from.length === 1 && f.spec.derived.from[0] === model.key).map((f) => f.name);
    assert.deepEqual(Object.keys(result).sort(), [model.key, 'revisionNumber', 'modifiedDate', ...keyed].sort(), reply.text);
    const record = expectOk(await run.call(reply.headers.get('Location')!)).result;
    const known = new Set([model.key, ...model.fields.map((f) => f.name), ...model.children.map((c) => c.property), 'revisionNumber', 'modifiedDate']);
    assert.deepEqual(Object.keys(record).filter((name) => !known.has(name)), [], `the read holds the declared fields only: ${JSON.stringify(record)}`);
    assert.deepEqual([record[model.key], record.revisionNumber, record.modifiedDate], [id, 1, result.modifiedDate]);
    assertHolds(record, input, 'the created record');
  });

  it('reads property names case-insensitively', async () => {
    const input = await run.sample();
    const id = await run.create(Object.fromEntries(Object.entries(input).map(([name, value]) => [name.toUpperCase(), value])));
    assertHolds(await run.read(id), input, 'created with upper-case names');
  });

  if (run.generated && run.clearable.length) {
    it('POST with the required fields only: the optional ones are absent from the read, never null', async () => {
      const id = await run.create(run.requiredOf(await run.sample()));
      const record = await run.read(id);
      for (const f of run.clearable) assert.ok(!(f.name in record), `${f.name} is absent: ${JSON.stringify(record)}`);
    });
  }

  it('DELETE answers 200 with an envelope without result; then the record is a 404 and the count one less', async () => {
    const id = await run.create();
    const total = await run.count();
    const reply = await run.remove(id);
    assert.equal(reply.status, 200, reply.text);
    assert.deepEqual(reply.body, { messages: [] });
    expectError(await run.call(run.item(id)), 404, 'Entity_NotFound');
    assert.equal(await run.count(), total - 1);
  });

  it('DELETE with a stale ?revisionNumber is a 409 Entity_Concurrency on it and deletes nothing; with the current one it deletes', async () => {
    const id = await run.create();
    const { revisionNumber } = await run.read(id);
    const reply = await run.call(`${run.item(id)}?revisionNumber=${Number(revisionNumber) + 1}`, { method: 'DELETE' });
    expectError(reply, 409, 'Entity_Concurrency', 'revisionNumber');
    assert.equal((await run.read(id)).revisionNumber, revisionNumber, 'still there, unchanged');
    expectOk(await run.call(`${run.item(id)}?revisionNumber=${String(revisionNumber)}`, { method: 'DELETE' }));
    expectError(await run.call(run.item(id)), 404, 'Entity_NotFound');
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
}
