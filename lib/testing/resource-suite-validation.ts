import assert from 'node:assert/strict';
import { textOf } from '../envelope/message-catalogue.js';
import { invalidLookup } from '../resources/messages.js';
import { upperFirst } from '../resources/names.js';
import { expectError, expectErrors } from './assertions.js';
import type { SuiteRun } from './resource-suite-context.js';
import { wrongValue } from './resource-suite-samples.js';

/**
 * Input the layer refuses, from the field definitions: each case a 400 (or 409) naming the property, and nothing
 * written. Valid records come from `run.sample()`; only the refused values are made up here.
 */
export function validationTests(run: SuiteRun): void {
  const { model } = run;
  const inputs = model.fields.filter((f) => f.spec.input !== 'none');
  const required = inputs.filter((f) => f.spec.required);
  const texts = inputs.filter((f) => f.spec.type === 'text' && f.spec.max !== undefined);
  const uniques = inputs.filter((f) => f.spec.unique);
  const lookups = inputs.filter((f) => f.spec.type === 'lookup');
  const references = inputs.filter((f) => f.spec.type === 'reference');

  if (required.length) {
    it(`POST without the required fields is a 400 Input_Required on each (${required.map((f) => f.name).join(', ')}), and creates nothing`, async () => {
      const total = await run.count();
      const messages = expectErrors(await run.call(run.path, { method: 'POST', body: {} }), 400, required.map(() => 'Input_Required'));
      assert.deepEqual(messages.map((m) => [m.property, m.message, m.type]).sort(), required.map((f) => [f.name, said(f.name, textOf('Input_Required', {})), 'Validation']).sort());
      assert.equal(await run.count(), total);
    });
  }

  const requiredTexts = required.filter((f) => f.spec.type === 'text');
  if (requiredTexts.length) {
    it(`a required text refuses the empty string: a 400 Input_Required (${requiredTexts.map((f) => f.name).join(', ')})`, async () => {
      const total = await run.count();
      for (const f of requiredTexts) {
        expectError(await run.call(run.path, { method: 'POST', body: { ...(await run.sample()), [f.name]: '' } }), 400, 'Input_Required', f.name);
      }
      assert.equal(await run.count(), total);
    });
  }

  const requiredUpdates = required.filter((f) => f.spec.input === 'write');
  if (requiredUpdates.length) {
    it('PATCH with null on a required field is a 400 Input_Required on it, and nothing is written', async () => {
      const id = await run.create();
      const before = await run.read(id);
      for (const f of requiredUpdates) expectError(await run.patch(id, { [f.name]: null }), 400, 'Input_Required', f.name);
      assert.deepEqual(await run.read(id), before);
    });
  }

  for (const f of texts) {
    it(`${f.name} takes at most ${f.spec.max} characters: longer is a 400 Input_TooLong on create, PUT and PATCH`, async () => {
      const input = await run.sample();
      if (run.generated) input[f.name] = 'x'.repeat(f.spec.max!);
      const id = await run.create(input);
      const before = await run.read(id);
      const long = 'y'.repeat(f.spec.max! + 1);
      const m = expectError(await run.call(run.path, { method: 'POST', body: { ...(await run.sample()), [f.name]: long } }), 400, 'Input_TooLong', f.name);
      assert.equal(m.message, said(f.name, textOf('Input_TooLong', { max: f.spec.max! })));
      if (f.spec.input === 'write') {
        expectError(await run.put(id, { ...run.forUpdate(input), [f.name]: long }), 400, 'Input_TooLong', f.name);
        expectError(await run.patch(id, { [f.name]: long }), 400, 'Input_TooLong', f.name);
      }
      assert.deepEqual(await run.read(id), before);
    });
  }

  it('a value of the wrong type is a 400 Input_InvalidType on its property, every one of them, and nothing is written', async () => {
    const id = await run.create();
    const before = await run.read(id);
    const total = await run.count();
    const wrong = (fields: typeof inputs) => Object.fromEntries(fields.map((f) => [f.name, wrongValue(f.spec)]));
    const updates = run.updateFields;
    const replies: [typeof inputs, Awaited<ReturnType<typeof run.call>>][] = [[inputs, await run.call(run.path, { method: 'POST', body: wrong(inputs) })]];
    if (updates.length) replies.push([updates, await run.put(id, wrong(updates))], [updates, await run.patch(id, wrong(updates))]);
    for (const [fields, reply] of replies) {
      const messages = expectErrors(reply, 400, fields.map(() => 'Input_InvalidType'));
      assert.deepEqual(messages.map((m) => m.property).sort(), fields.map((f) => f.name).sort());
    }
    assert.deepEqual(await run.read(id), before);
    assert.equal(await run.count(), total);
  });

  it('an unknown property is a 400 Input_UnknownProperty on its name', async () => {
    const m = expectError(await run.call(run.path, { method: 'POST', body: { ...(await run.sample()), notAField: 1 } }), 400, 'Input_UnknownProperty', 'notAField');
    assert.equal(m.message, said('notAField', textOf('Input_UnknownProperty', {})));
  });

  for (const f of uniques) {
    it(`${f.name} is unique${f.spec.unique!.ignoreCase ? ' ignoring case' : ''}: of concurrent creates of one value one is 201, the others 409 Entity_Duplicate on it; so is a PUT to it`, async () => {
      const samples = await Promise.all(Array.from({ length: 8 }, () => run.sample()));
      const taken = samples[0][f.name];
      assert.notEqual(taken, undefined, `the sample gives ${f.name}`);
      const replies = await Promise.all(samples.map((s) => run.call(run.path, { method: 'POST', body: { ...s, [f.name]: taken } })));
      assert.equal(replies.filter((r) => r.status === 201).length, 1, replies.map((r) => r.text).join('\n'));
      for (const r of replies) if (r.status !== 201) assert.equal(expectError(r, 409, 'Entity_Duplicate', f.name).type, 'Concurrency');
      const other = await run.sample();
      const id = await run.create(other);
      const before = await run.read(id);
      const again = typeof taken === 'string' && f.spec.unique!.ignoreCase ? swapCase(taken) : taken;
      if (f.spec.input === 'write') expectError(await run.put(id, { ...run.forUpdate(other), [f.name]: again }), 409, 'Entity_Duplicate', f.name);
      expectError(await run.call(run.path, { method: 'POST', body: { ...(await run.sample()), [f.name]: again } }), 409, 'Entity_Duplicate', f.name);
      assert.deepEqual(await run.read(id), before);
    });
  }

  for (const f of lookups) {
    const { table, code: own, text: wording } = f.spec.lookup!;
    const code = own ?? `${model.pascal}_Invalid${upperFirst(f.name)}`;
    // Worded as the runtime words it: the lookup's own text when the declaration gives one (`field.lookup(…, { text })`).
    const text = (absent: unknown) => invalidLookup(model.pascal, f.name, table, absent, f.name, code, wording).message;
    it(`${f.name} must name an active entry of lookup table ${table}: otherwise a 400 ${code} on it (create, PUT, PATCH), and nothing is written`, async () => {
      const absent = await run.generator.absentLookup(f.spec);
      const total = await run.count();
      const m = expectError(await run.call(run.path, { method: 'POST', body: { ...(await run.sample()), [f.name]: absent } }), 400, code, f.name);
      assert.equal(m.message, text(absent));
      assert.equal(await run.count(), total);
      if (f.spec.input !== 'write') return;
      const input = await run.sample();
      const id = await run.create(input);
      const before = await run.read(id);
      expectError(await run.put(id, { ...run.forUpdate(input), [f.name]: absent }), 400, code, f.name);
      expectError(await run.patch(id, { [f.name]: absent }), 400, code, f.name);
      assert.deepEqual(await run.read(id), before);
    });
  }

  for (const f of references) {
    const target = f.spec.reference!.name;
    it(`${f.name} must name a ${target} the caller may read: an unknown one is a 400 on it, and nothing is written`, async () => {
      const total = await run.count();
      const reply = await run.call(run.path, { method: 'POST', body: { ...(await run.sample()), [f.name]: 2_147_483_647 } });
      assert.equal(reply.status, 400, reply.text);
      assert.deepEqual(reply.body.messages.map((m) => [m.property, m.code.startsWith(`${model.pascal}_Unknown`)]), [[f.name, true]], reply.text);
      assert.equal(await run.count(), total);
    });
  }
}

/** The text of an input message as the catalogue words it: the property, then the code's predicate. */
const said = (property: string, predicate: string) => `${property} ${predicate}`;

/** The text with each letter's case swapped (a value that differs from it only in case). */
function swapCase(text: string): string {
  return [...text].map((c) => (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase())).join('');
}
