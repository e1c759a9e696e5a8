import assert from 'node:assert/strict';
import Big from 'big.js';
import type { ChildModel } from '../resources/model.js';
import { expectError, expectOk } from './assertions.js';
import { UNKNOWN_ID, type SuiteRun } from './resource-suite-context.js';
import { type Input, assertHolds } from './resource-suite-samples.js';
import type { TestReply } from './test-server.js';

/** The verbs that write one child, and where each is served: the collection (POST) or one child (the others). */
const WRITES = ['POST', 'PUT', 'PATCH', 'DELETE'] as const;
type ChildVerb = (typeof WRITES)[number];

/** The headers a PATCH sends (a JSON merge patch). */
const MERGE_PATCH = { 'Content-Type': 'application/merge-patch+json' };

/**
 * The writes of one child by its own routes (POST to the collection; PUT, PATCH and DELETE of one child), each in one
 * transaction with its record: the record's totals and revision move with it, a stale revision is a 409, the cap of
 * Documents:MaxLines holds, and a child is reached only through its own record. A verb the application's route files
 * do not export is a pending test (a team may serve its children read-only).
 */
export function childWriteTests(run: SuiteRun, child: ChildModel): void {
  const { model } = run;
  const { property, key } = child;
  const listPath = (id: number | string) => `${run.item(id)}/${child.path}`;
  const itemPath = (id: number | string, childId: unknown) => `${listPath(id)}/${String(childId)}`;
  const totals = model.fields.filter((f) => f.spec.sum?.children === property);
  const served = new Set<ChildVerb>();

  before(async () => {
    for (const verb of WRITES) {
      const path = verb === 'POST' ? listPath(UNKNOWN_ID) : itemPath(UNKNOWN_ID, UNKNOWN_ID);
      const reply = await run.call(path, { method: verb, body: {}, ...(verb === 'PATCH' ? { headers: MERGE_PATCH } : {}) });
      const code = reply.body?.messages?.[0]?.code;
      if (code !== 'Route_MethodNotAllowed' && code !== 'Route_NotFound') served.add(verb);
    }
  });

  /** Marks the running test pending when a verb it needs is not served. */
  function needs(test: Mocha.Context, ...verbs: ChildVerb[]): void {
    if (verbs.some((v) => !served.has(v))) test.skip();
  }

  /** A record created with `items`: its id and its read. */
  async function withItems(items: Input[]): Promise<[number, Input]> {
    const id = await run.create({ ...(await run.sample()), [property]: items });
    return [id, await run.read(id)];
  }

  const itemsOf = (record: Input) => (record[property] ?? []) as Input[];

  /** The record's totals over the collection are the exact sums of its children as read. */
  function assertTotals(record: Input, what: string): void {
    for (const total of totals) {
      const summed = total.spec.sum!.field;
      const sum = itemsOf(record).reduce((s, item) => s.plus(Number(item[summed] ?? 0)), new Big(0));
      assert.equal(record[total.name], sum.toNumber(), `${what}: ${total.name} of ${JSON.stringify(record)}`);
    }
  }

  /** What a child write answers of the record, as its read after the write holds it: the totals and the revision. */
  function assertAnswered(result: Input, record: Input, what: string): void {
    for (const total of totals) assert.equal(result[total.name], record[total.name], `${what}: ${total.name} answered`);
    assert.equal(result.revisionNumber, record.revisionNumber, `${what}: revisionNumber answered`);
  }

  it(`POST of a ${child.item} adds it: 201 with its Location and ${key}, the ${model.entity.toLowerCase()}'s totals and next revisionNumber; the read holds it last`, async function () {
    needs(this, 'POST');
    const [id, before] = await withItems(await run.children(property, 1));
    const [item] = await run.children(property, 1);
    const reply = await run.call(listPath(id), { method: 'POST', body: { ...item, revisionNumber: before.revisionNumber } });
    const { result } = expectOk(reply, 201);
    assert.ok(Number.isInteger(result[key]), `the answer names the new ${key}: ${reply.text}`);
    assert.equal(reply.headers.get('Location'), itemPath(id, result[key]));
    const after = await run.read(id);
    assert.equal(after.revisionNumber, (before.revisionNumber as number) + 1);
    assert.deepEqual(itemsOf(after).slice(0, -1), itemsOf(before));
    const added = itemsOf(after).at(-1)!;
    assert.equal(added[key], result[key]);
    assertHolds(added, item, `the added ${child.item}`);
    assert.deepEqual(expectOk(await run.call(itemPath(id, result[key]))).result, added);
    assertTotals(after, `after the POST`);
    assertAnswered(result, after, 'POST');
  });

  it(`PUT of a ${child.item} replaces it and PATCH changes only the fields it names; the others stay, the totals and revisionNumber move`, async function () {
    needs(this, 'PUT', 'PATCH');
    const [id, before] = await withItems(await run.children(property, 2));
    const [first, second] = itemsOf(before);
    // Another child's values, to write over the first one.
    const [other] = await run.children(property, 1);
    const put = expectOk(await run.call(itemPath(id, first[key]), { method: 'PUT', body: { ...other, revisionNumber: before.revisionNumber } })).result;
    const replaced = await run.read(id);
    assert.equal(replaced.revisionNumber, (before.revisionNumber as number) + 1);
    assert.equal(itemsOf(replaced)[0][key], first[key], `the ${child.item} keeps its ${key}`);
    assertHolds(itemsOf(replaced)[0], other, `the replaced ${child.item}`);
    assert.deepEqual(itemsOf(replaced).slice(1), itemsOf(before).slice(1));
    assertTotals(replaced, 'after the PUT');
    assertAnswered(put, replaced, 'PUT');

    // A field whose value the second child does not hold yet: the patch names it alone.
    const writable = child.fields.filter((f) => f.spec.input === 'write');
    const named = writable.find((f) => other[f.name] !== undefined && other[f.name] !== second[f.name]);
    assert.ok(named, `the samples' ${property} differ in some field a PATCH can name`);
    const patch = { [named.name]: other[named.name], revisionNumber: replaced.revisionNumber };
    const patched = expectOk(await run.call(itemPath(id, second[key]), { method: 'PATCH', body: patch, headers: MERGE_PATCH })).result;
    const after = await run.read(id);
    assert.equal(after.revisionNumber, (replaced.revisionNumber as number) + 1);
    const changed = itemsOf(after)[1];
    assertHolds(changed, { [named.name]: other[named.name] }, `the patched ${child.item}`);
    // The other fields sent stay as they were; what the layer computes may follow the one named.
    for (const f of writable) if (f !== named) assert.deepEqual(changed[f.name], second[f.name], `${f.name} of the patched ${child.item}`);
    assert.deepEqual(itemsOf(after)[0], itemsOf(replaced)[0]);
    assertTotals(after, 'after the PATCH');
    assertAnswered(patched, after, 'PATCH');
  });

  it(`DELETE of a ${child.item} removes it: the read no longer holds it, its route is a 404, the totals and revisionNumber move`, async function () {
    needs(this, 'DELETE');
    const [id, before] = await withItems(await run.children(property, 2));
    const [gone, kept] = itemsOf(before);
    const { result } = expectOk(await run.call(`${itemPath(id, gone[key])}?revisionNumber=${String(before.revisionNumber)}`, { method: 'DELETE' }));
    const after = await run.read(id);
    assert.equal(after.revisionNumber, (before.revisionNumber as number) + 1);
    assert.deepEqual(itemsOf(after), [kept, ...itemsOf(before).slice(2)]);
    assert.equal(result[key], undefined, `a delete answers no ${key}`);
    expectError(await run.call(itemPath(id, gone[key])), 404, 'Entity_NotFound');
    expectError(await run.call(itemPath(id, gone[key]), { method: 'DELETE' }), 404, 'Entity_NotFound');
    assertTotals(after, 'after the DELETE');
    assertAnswered(result, after, 'DELETE');
  });

  const required = child.fields.filter((f) => f.spec.required && f.spec.input === 'write');
  if (required.length) {
    it(`a POST or PUT of a ${child.item} without its required fields is a 400 Input_Required on each (${required.map((f) => f.name).join(', ')}), and nothing is written`, async function () {
      needs(this, 'POST', 'PUT');
      const [id, before] = await withItems(await run.children(property, 1));
      const codes = (reply: TestReply) => reply.body.messages.map((m) => `${m.code} ${m.property}`).sort();
      const expected = required.map((f) => `Input_Required ${f.name}`).sort();
      const posted = await run.call(listPath(id), { method: 'POST', body: {} });
      assert.equal(posted.status, 400, posted.text);
      assert.deepEqual(codes(posted), expected);
      const put = await run.call(itemPath(id, itemsOf(before)[0][key]), { method: 'PUT', body: {} });
      assert.equal(put.status, 400, put.text);
      assert.deepEqual(codes(put), expected);
      assert.deepEqual(await run.read(id), before);
    });
  }

  it(`a stale revisionNumber on a ${child.item}'s POST, PUT, PATCH or DELETE is a 409 Entity_Concurrency, and nothing is written`, async function () {
    needs(this, 'POST');
    const [id, first] = await withItems(await run.children(property, 1));
    const [item] = await run.children(property, 1);
    // One write moves the record past its first revision, which is then stale.
    expectOk(await run.call(listPath(id), { method: 'POST', body: { ...item, revisionNumber: first.revisionNumber } }), 201);
    const before = await run.read(id);
    const stale = first.revisionNumber as number;
    const target = itemPath(id, itemsOf(before)[0][key]);
    // A patch naming a field: one naming none writes nothing and checks nothing.
    const named = child.fields.find((f) => f.spec.input === 'write' && item[f.name] !== undefined)!;
    const writes: [ChildVerb, () => Promise<TestReply>][] = [
      ['POST', () => run.call(listPath(id), { method: 'POST', body: { ...item, revisionNumber: stale } })],
      ['PUT', () => run.call(target, { method: 'PUT', body: { ...item, revisionNumber: stale } })],
      ['PATCH', () => run.call(target, { method: 'PATCH', body: { [named.name]: item[named.name], revisionNumber: stale }, headers: MERGE_PATCH })],
      ['DELETE', () => run.call(`${target}?revisionNumber=${stale}`, { method: 'DELETE' })],
    ];
    for (const [verb, write] of writes) {
      if (served.has(verb)) assert.equal(expectError(await write(), 409, 'Entity_Concurrency', 'revisionNumber').type, 'Concurrency', verb);
    }
    assert.deepEqual(await run.read(id), before);
  });

  it(`a POST of a ${child.item} past Documents:MaxLines is a 400 Document_TooManyLines on ${property}, and nothing is written`, async function () {
    needs(this, 'POST');
    const cap = run.server.config.Documents.MaxLines;
    // The record filled to the cap in its create, from the samples' children (repeated when the team gives them).
    const items: Input[] = [];
    while (items.length < cap) items.push(...(await run.children(property, cap - items.length)));
    const [id, before] = await withItems(items.slice(0, cap));
    assert.equal(itemsOf(before).length, cap);
    const [item] = await run.children(property, 1);
    const m = expectError(await run.call(listPath(id), { method: 'POST', body: item }), 400, 'Document_TooManyLines', property);
    assert.equal(m.type, 'Validation');
    assert.deepEqual(await run.read(id), before);
  });

  it(`a ${child.item} is written only through its own ${model.entity.toLowerCase()}: through another one, or an unknown one, each write is a 404 Entity_NotFound, and nothing is written`, async function () {
    if (!served.size) this.skip();
    const [id, record] = await withItems(await run.children(property, 1));
    const [other, otherBefore] = await withItems(await run.children(property, 1));
    const childId = itemsOf(record)[0][key];
    const [item] = await run.children(property, 1);
    const writes: [ChildVerb, (parent: number) => Promise<TestReply>][] = [
      ['POST', (parent) => run.call(listPath(parent), { method: 'POST', body: item })],
      ['PUT', (parent) => run.call(itemPath(parent, childId), { method: 'PUT', body: item })],
      ['PATCH', (parent) => run.call(itemPath(parent, childId), { method: 'PATCH', body: item, headers: MERGE_PATCH })],
      ['DELETE', (parent) => run.call(itemPath(parent, childId), { method: 'DELETE' })],
    ];
    for (const [verb, write] of writes) {
      if (!served.has(verb)) continue;
      expectError(await write(UNKNOWN_ID), 404, 'Entity_NotFound');
      if (verb !== 'POST') expectError(await write(other), 404, 'Entity_NotFound');
    }
    assert.deepEqual(await run.read(id), record);
    assert.deepEqual(await run.read(other), otherBefore);
  });
}
