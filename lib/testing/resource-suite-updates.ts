import assert from 'node:assert/strict';
import { expectError, expectOk } from './assertions.js';
import type { SuiteRun } from './resource-suite-context.js';
import { type Input, assertHolds } from './resource-suite-samples.js';

/** PUT and PATCH (RFC 7396): what they change, the revision check, and the key rules of a body. */
export function updateTests(run: SuiteRun): void {
  if (!run.updateFields.length) return;

  /** A change of one update field to a value another record holds (a sample's), and that field's name. */
  const another = async () => {
    const change = await run.sampleChange();
    const [name] = Object.keys(change);
    assert.ok(name, 'the sample gives no field an update takes a value: give one, to test updates');
    return { change, name, value: change[name] };
  };

  it('PUT replaces the record and answers the next revisionNumber; PATCH changes only the fields it names', async () => {
    const id = await run.create();
    const replacement = run.forUpdate(await run.sample());
    const { result } = expectOk(await run.put(id, { ...replacement, revisionNumber: 1 }));
    assert.deepEqual(Object.keys(result).sort(), ['modifiedDate', 'revisionNumber']);
    assert.equal(result.revisionNumber, 2);
    const afterPut = await run.read(id);
    assertHolds(afterPut, replacement, 'after PUT');
    const { change, name } = await another();
    const patched = expectOk(await run.patch(id, change)).result;
    assert.equal(patched.revisionNumber, 3);
    const afterPatch = await run.read(id);
    assertHolds(afterPatch, change, 'after PATCH');
    // What follows from the field it named (a derived value, a total) may change with it; no other field may.
    const follows = new Set(run.model.fields.filter((f) => f.spec.derived || f.spec.sum || f.spec.via).map((f) => f.name));
    const kept = Object.fromEntries(Object.entries(afterPut).filter(([field]) => field !== name && !follows.has(field)));
    assertHolds(afterPatch, { ...kept, ...patched }, 'after PATCH, the fields it did not name');
  });

  it('a stale revisionNumber is a 409 Entity_Concurrency for PUT and PATCH, and nothing is written', async () => {
    const input = await run.sample();
    const id = await run.create(input);
    expectOk(await run.put(id, { ...run.forUpdate(input), revisionNumber: 1 }));
    const before = await run.read(id);
    const m = expectError(await run.put(id, { ...run.forUpdate(input), revisionNumber: 1 }), 409, 'Entity_Concurrency', 'revisionNumber');
    assert.equal(m.type, 'Concurrency');
    expectError(await run.patch(id, { ...(await another()).change, revisionNumber: 1 }), 409, 'Entity_Concurrency', 'revisionNumber');
    assert.deepEqual(await run.read(id), before);
  });

  it('concurrent updates at one revision: exactly one wins, the others are 409 and write nothing', async () => {
    const id = await run.create();
    const bodies: Input[] = [];
    for (let i = 0; i < 8; i++) bodies.push({ ...run.forUpdate(await run.sample()), revisionNumber: 1 });
    const replies = await Promise.all(bodies.map((body) => run.put(id, body)));
    const won = replies.filter((r) => r.status === 200);
    assert.equal(won.length, 1, replies.map((r) => r.text).join('\n'));
    for (const r of replies) if (r.status !== 200) expectError(r, 409, 'Entity_Concurrency', 'revisionNumber');
    const { revisionNumber: _, ...winner } = bodies[replies.indexOf(won[0])];
    assertHolds(await run.read(id), { ...winner, ...won[0].body.result }, 'the winner');
  });

  it('an empty PATCH writes nothing and keeps the revision; a stale revisionNumber alone is still a 409', async () => {
    const id = await run.create();
    const before = await run.read(id);
    assert.deepEqual(expectOk(await run.patch(id, {})).result, { revisionNumber: before.revisionNumber, modifiedDate: before.modifiedDate });
    expectOk(await run.patch(id, { revisionNumber: before.revisionNumber }));
    assert.deepEqual(await run.read(id), before);
    expectOk(await run.patch(id, (await another()).change));
    const current = await run.read(id);
    expectError(await run.patch(id, { revisionNumber: before.revisionNumber }), 409, 'Entity_Concurrency', 'revisionNumber');
    assert.deepEqual(await run.read(id), current);
  });

  it('PATCH refuses a property named twice (in any case) or a reserved name, on it, and writes nothing', async () => {
    const id = await run.create();
    const before = await run.read(id);
    const raw = (body: string) => run.call(run.item(id), { method: 'PATCH', body, headers: { 'Content-Type': 'application/merge-patch+json' } });
    const changed = await another();
    const value = JSON.stringify(changed.value);
    const { name } = changed;
    expectError(await raw(`{"${name}":${value},"${name.toUpperCase()}":${value}}`), 400, 'Input_Duplicate', name);
    expectError(await raw(`{"${name}":${value},"${name}":${value}}`), 400, 'Input_Duplicate', name);
    // A stale revision with a second spelling that asks for no check: ambiguous, never a write past the check.
    expectError(await raw(`{"revisionNumber":1,"${name}":${value},"REVISIONNUMBER":null}`), 400, 'Input_Duplicate', 'revisionNumber');
    for (const reserved of ['__proto__', 'constructor', 'prototype']) {
      expectError(await raw(`{"${reserved}":{"${name}":${value}}}`), 400, 'Input_ReservedName', reserved);
    }
    assert.deepEqual(await run.read(id), before);
  });

  // Money is a JSON number only (an amount sent as text is refused); these take their text too.
  const textual = run.updateFields.filter((f) => ['integer', 'decimal', 'boolean', 'reference'].includes(f.spec.type)
    || (f.spec.type === 'lookup' && f.spec.lookup?.id !== 'text'));
  if (textual.length) {
    it(`PUT and PATCH take ${textual.map((f) => f.name).join(', ')} sent as text`, async () => {
      const data = run.forUpdate(await run.sample());
      const given = textual.filter((f) => data[f.name] !== undefined && data[f.name] !== null);
      const asText = Object.fromEntries(given.map((f) => [f.name, f.spec.type === 'boolean' ? String(data[f.name]).toUpperCase() : String(data[f.name])]));
      const expected = Object.fromEntries(given.map((f) => [f.name, data[f.name]]));
      const byPut = await run.create();
      expectOk(await run.put(byPut, { ...data, ...asText }));
      assertHolds(await run.read(byPut), expected, 'PUT');
      const byPatch = await run.create();
      expectOk(await run.patch(byPatch, asText));
      assertHolds(await run.read(byPatch), expected, 'PATCH');
    });
  }

  // Leaving out or clearing optional fields makes records the team's rules may forbid: with generated values only.
  if (run.generated && run.clearable.length) {
    it('PUT clears the optional fields it leaves out and, without revisionNumber, checks no revision', async () => {
      const id = await run.create();
      const data = run.requiredOf(run.forUpdate(await run.sample()));
      const { result } = expectOk(await run.put(id, data));
      const record = await run.read(id);
      assertHolds(record, { ...data, ...result }, 'after PUT');
      for (const f of run.clearable) assert.ok(!(f.name in record), `${f.name} is cleared: ${JSON.stringify(record)}`);
    });

    it('PATCH with null clears optional fields; plain application/json is read as a merge patch too', async () => {
      const id = await run.create();
      const before = await run.read(id);
      const cleared = run.clearable.map((f) => f.name);
      const { result } = expectOk(await run.call(run.item(id), { method: 'PATCH', body: Object.fromEntries(cleared.map((name) => [name, null])) }));
      const record = await run.read(id);
      for (const name of cleared) assert.ok(!(name in record), `${name} is cleared: ${JSON.stringify(record)}`);
      const kept = run.updateFields.filter((f) => !cleared.includes(f.name)).map((f) => [f.name, before[f.name]]);
      assertHolds(record, { ...Object.fromEntries(kept), ...result }, 'the fields it did not clear');
    });
  }
}
