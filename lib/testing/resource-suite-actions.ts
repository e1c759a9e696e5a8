import assert from 'node:assert/strict';
import { expectError } from './assertions.js';
import { UNKNOWN_ID, type SuiteRun } from './resource-suite-context.js';
import type { Input } from './resource-suite-samples.js';

/** Where action `name` of a record is served: its path segment (`mark-paid` for `markPaid`). */
export const actionPath = (run: SuiteRun, name: string, record: number) => `${run.item(record)}/${run.model.actions[name].path}`;

/**
 * A body for action `name` with a value of each of its input fields, generated from their types. Sent only where the
 * action cannot run (an unknown id, a caller without the permission, a record out of reach), so it never needs to be
 * a body the team's rules accept.
 */
export async function actionBody(run: SuiteRun, name: string): Promise<Input> {
  const body: Input = {};
  for (const [field, declared] of Object.entries(run.model.actions[name].input ?? {})) {
    body[field] = await run.generator.value(field, declared.spec, 0);
  }
  return body;
}

/** Each declared action: its own permission (403 without it), a 404 for an unknown id, its body checked (400). */
export function actionTests(run: SuiteRun): void {
  for (const name of Object.keys(run.model.actions)) {
    const { permission } = run.model.actions[name];
    it(`action ${name}: a caller without ${permission} gets 403 Security_Forbidden and nothing is written; an unknown id is a 404; an unknown property a 400`, async () => {
      const id = await run.create();
      const before = await run.read(id);
      const body = await actionBody(run, name);
      const path = (record: number) => actionPath(run, name, record);
      const reader = run.server.token({ role: ['ResourceSuiteReader'] });
      expectError(await run.call(path(id), { method: 'POST', body, token: reader }), 403, 'Security_Forbidden');
      assert.deepEqual(await run.read(id), before);
      expectError(await run.call(path(UNKNOWN_ID), { method: 'POST', body }), 404, 'Entity_NotFound');
      expectError(await run.call(path(id), { method: 'POST', body: { ...body, notAField: 1 } }), 400, 'Input_UnknownProperty', 'notAField');
      assert.deepEqual(await run.read(id), before);
    });
  }
}
