import assert from 'node:assert/strict';
import Big from 'big.js';
import type { ChildModel } from '../resources/model.js';
import { expectError, expectOk } from './assertions.js';
import { childWriteTests } from './resource-suite-child-writes.js';
import { UNKNOWN_ID, type SuiteRun } from './resource-suite-context.js';
import { type Input, assertHolds } from './resource-suite-samples.js';

/**
 * Each child collection: written with its record (whole or not at all), read with it and by its own routes, never
 * through another record, checked on its path (`lines[1].quantity`), and the record's totals of it exact; one child
 * written by its own routes (resource-suite-child-writes.ts).
 */
export function childTests(run: SuiteRun): void {
  for (const child of run.model.children) {
    describe(`child collection ${child.property}`, () => {
      collectionTests(run, child);
      describe(`a ${child.item}'s writes by its own routes`, () => childWriteTests(run, child));
    });
  }
}

function collectionTests(run: SuiteRun, child: ChildModel): void {
  const { model } = run;
  const { property, key } = child;
  const listPath = (id: number | string) => `${run.item(id)}/${child.path}`;
  const totals = model.fields.filter((f) => f.spec.sum?.children === property);

  /** A record created with `items`: its id and its read. */
  async function withItems(items: Input[]): Promise<[number, Input]> {
    const id = await run.create({ ...(await run.sample()), [property]: items });
    return [id, await run.read(id)];
  }

  it(`a create writes its ${property}: the read holds them in the order sent, each with its fields; its route lists them and reads each by ${key}`, async () => {
    const items = await run.children(property, 3);
    const [id, record] = await withItems(items);
    assertHolds(record, { [property]: items }, 'the created record');
    const read = record[property] as Input[];
    for (const item of read) assert.ok(Number.isInteger(item[key]), `each item has its ${key}: ${JSON.stringify(item)}`);
    assert.deepEqual(expectOk(await run.call(listPath(id))).result, read);
    for (const item of read) assert.deepEqual(expectOk(await run.call(`${listPath(id)}/${item[key]}`)).result, item);
  });

  it(`a ${child.item} of another ${model.entity.toLowerCase()}, an unknown one, and the ${property} of an unknown id are each a 404 Entity_NotFound`, async () => {
    const [, record] = await withItems(await run.children(property, 1));
    const [other] = await withItems(await run.children(property, 1));
    const item = (record[property] as Input[])[0][key];
    expectError(await run.call(`${listPath(other)}/${item}`), 404, 'Entity_NotFound');
    expectError(await run.call(`${listPath(other)}/${UNKNOWN_ID}`), 404, 'Entity_NotFound');
    expectError(await run.call(listPath(UNKNOWN_ID)), 404, 'Entity_NotFound');
  });

  for (const total of totals) {
    const summed = total.spec.sum!.field;
    it(`${total.name} is the exact sum of the ${property}' ${summed}, and 0 without ${property}`, async () => {
      const [, record] = await withItems(await run.children(property, 3));
      const sum = (record[property] as Input[]).reduce((s, item) => s.plus(Number(item[summed] ?? 0)), new Big(0));
      assert.equal(record[total.name], sum.toNumber(), JSON.stringify(record));
      if (!run.generated) return;
      const [, empty] = await withItems([]);
      assert.equal(empty[total.name], 0, JSON.stringify(empty));
    });
  }

  const required = child.fields.filter((f) => f.spec.required && f.spec.input !== 'none');
  if (required.length) {
    it(`a ${child.item} without its required fields is a 400 Input_Required on each, on its path (${property}[1].…), and nothing is written`, async () => {
      const total = await run.count();
      const items = await run.children(property, 2);
      const broken = items.map((item, i) => (i === 1 ? Object.fromEntries(Object.entries(item).filter(([name]) => !required.some((f) => f.name === name))) : item));
      const reply = await run.call(run.path, { method: 'POST', body: { ...(await run.sample()), [property]: broken } });
      assert.equal(reply.status, 400, reply.text);
      assert.deepEqual(reply.body.messages.map((m) => `${m.code} ${m.property}`).sort(), required.map((f) => `Input_Required ${property}[1].${f.name}`).sort());
      assert.equal(await run.count(), total);
    });
  }
}
