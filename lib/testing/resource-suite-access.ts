import assert from 'node:assert/strict';
import { withErrorScope } from '../envelope/request-scope.js';
import { expectError, expectOk } from './assertions.js';
import { actionBody, actionPath } from './resource-suite-actions.js';
import { type ScopeFixture, type SuiteRun, UNKNOWN_ID } from './resource-suite-context.js';
import type { Input } from './resource-suite-samples.js';
import type { TestReply } from './test-server.js';

/** The roles the suite's server is configured with: one reading the resource, one per declared scope. */
export function suiteRoles(run: SuiteRun): Record<string, string[]> {
  const { permissions } = run.model;
  const roles: Record<string, string[]> = { ResourceSuiteReader: [permissions.read] };
  // A scoped caller's writes name referenced records: it reads them (else they answer as unknown, contract part 10).
  const referenced = [...new Set(run.model.fields.filter((f) => f.spec.reference).map((f) => `${f.spec.reference!.name}.read`))];
  const actions = Object.values(run.model.actions).map((action) => action.permission);
  for (const scope of Object.keys(run.model.scopes ?? {})) {
    roles[scopeRole(scope)] = [...[...Object.values(permissions), ...actions].map((p) => `${p}:${scope}`), ...referenced];
  }
  return roles;
}

const scopeRole = (scope: string) => `ResourceSuiteScope-${scope}`;

/** Permissions: without the route's permission every route is a 403 Security_Forbidden and nothing is written. */
export function permissionTests(run: SuiteRun): void {
  it('a caller whose roles grant nothing of the resource gets 403 Security_Forbidden on every route; a reader reads and may not write', async () => {
    const id = await run.create();
    const before = await run.read(id);
    const total = await run.count();
    const input = await run.sample();
    const writes = (token: string) => [
      run.call(run.path, { method: 'POST', body: input, token }), run.put(id, run.forUpdate(input), token),
      run.patch(id, {}, token), run.remove(id, token),
    ];
    const reads = (token: string) => ['', `/${id}`, `/${id}/history`, ...run.model.children.map((c) => `/${id}/${c.path}`)]
      .map((suffix) => run.call(`${run.path}${suffix}`, { token }));
    const nobody = run.server.token({ role: ['ResourceSuiteNoSuchRole'] });
    for (const reply of await Promise.all([...reads(nobody), ...writes(nobody)])) expectError(reply, 403, 'Security_Forbidden');
    const reader = run.server.token({ role: ['ResourceSuiteReader'] });
    for (const reply of await Promise.all(reads(reader))) expectOk(reply);
    for (const reply of await Promise.all(writes(reader))) expectError(reply, 403, 'Security_Forbidden');
    assert.deepEqual(await run.read(id), before);
    assert.equal(await run.count(), total);
  });
}

/** What a client sees of an answer, with `id` written as <id>: an id out of reach must answer as an unknown one. */
function seen(reply: TestReply, id: number) {
  return { status: reply.status, body: reply.text.replaceAll(String(id), '<id>') };
}

/**
 * A caller limited to each declared scope reaches only its records: out of scope a record does not exist (list,
 * count, cursor, read, history and writes answer as for an unknown id), and a create either lands in the scope or is
 * a 403 with nothing written (contract part 10).
 */
export function scopeTests(run: SuiteRun): void {
  for (const scope of Object.keys(run.model.scopes ?? {})) {
    const fixture: ScopeFixture | undefined = run.options.scopes?.[scope];
    if (!fixture) {
      it(`scope ${scope}: give resourceSuite scopes.${scope} (the caller's attributes, how a record enters the scope) to test it`);
      continue;
    }
    describe(`scope ${scope}`, () => {
      let token: string;
      let inside: number;
      let outside: number;
      const as = (init: { method?: string; body?: unknown; headers?: Record<string, string> } = {}) => ({ ...init, token });

      before(async () => {
        const userName = `suite-${scope}-${run.model.name}`.toLowerCase();
        const roles = [scopeRole(scope)];
        const added = await withErrorScope(() => run.server.services.users.add({ userName, password: `${userName}-password-1`, roles }, fixture.attributes));
        assert.ok(added.result, `user ${userName}: ${added.messages.map((m) => m.message).join(' ')}`);
        token = run.server.token({ sub: userName, name: userName, role: roles });
        inside = await run.create();
        await fixture.enter(run.server, inside);
        // A record outside: generated values may put a new record in the scope, so a few are tried.
        let found: number | undefined;
        for (let tries = 0; tries < 5 && found === undefined; tries++) {
          const id = await run.create();
          if ((await run.call(run.item(id), as())).status === 404) found = id;
        }
        assert.ok(found, `five new records were all in scope ${scope}: the suite found none outside it`);
        outside = found;
      });

      const routes = ['', '/history', ...run.model.children.map((c) => `/${c.path}`)];
      it(`reads a record in the scope; one outside answers byte for byte as an unknown id (${routes.map((r) => `{id}${r}`).join(', ')}, its children's)`, async () => {
        for (const suffix of routes) expectOk(await run.call(`${run.item(inside)}${suffix}`, as()));
        // Each child of the record outside, by its own route (the child id is the same in both requests).
        const record = await run.read(outside);
        const children = run.model.children.flatMap((c) => ((record[c.property] ?? []) as Input[]).slice(0, 1).map((item) => `/${c.path}/${item[c.key]}`));
        for (const suffix of [...routes, ...children]) {
          const unknown = seen(await run.call(`${run.item(UNKNOWN_ID)}${suffix}`, as()), UNKNOWN_ID);
          assert.equal(unknown.status, 404);
          assert.deepEqual(seen(await run.call(`${run.item(outside)}${suffix}`, as()), outside), unknown, suffix);
        }
      });

      it('lists, counts and walks by cursor exactly the records it may read', async () => {
        const every = run.idsOf(await run.listAll());
        const readable: number[] = [];
        for (const id of every) {
          const reply = await run.call(run.item(id), as());
          if (reply.status === 200) readable.push(id);
          else expectError(reply, 404, 'Entity_NotFound');
        }
        assert.ok(readable.includes(inside) && !readable.includes(outside), `${inside} in, ${outside} out: ${readable.join(', ')}`);
        assert.deepEqual(run.idsOf(await run.listAll(token)), readable);
        assert.equal(await run.count(token), readable.length);
        const page = expectOk(await run.call(`${run.path}?take=1&getTotalCount=true`, as()));
        assert.deepEqual([run.idsOf(page.result), page.totalCount], [readable.slice(0, 1), readable.length]);
      });

      it('PUT, PATCH, DELETE, each action and each child write on a record outside answer as for an unknown id, and write nothing', async () => {
        const before = await run.read(outside);
        const body = run.forUpdate(await run.sample());
        const writes: [string, (id: number) => Promise<TestReply>][] = [
          ['PUT', (id) => run.put(id, body, token)], ['PATCH', (id) => run.patch(id, body, token)], ['DELETE', (id) => run.remove(id, token)],
        ];
        for (const name of Object.keys(run.model.actions)) {
          const input = await actionBody(run, name);
          writes.push([name, (id) => run.call(actionPath(run, name, id), { method: 'POST', body: input, token })]);
        }
        // Each child's writes by its own routes, on a child of the record outside (the same child id in both requests);
        // a write the route files do not export answers 405 for both alike.
        const childWrites = new Set<string>();
        for (const c of run.model.children) {
          const [item] = await run.children(c.property, 1);
          const childId = ((before[c.property] ?? []) as Input[])[0]?.[c.key];
          const one = (id: number) => `${run.item(id)}/${c.path}/${String(childId)}`;
          const merge = { 'Content-Type': 'application/merge-patch+json' };
          const added: [string, (id: number) => Promise<TestReply>][] = [[`POST ${c.path}`, (id) => run.call(`${run.item(id)}/${c.path}`, { method: 'POST', body: item, token })]];
          if (childId !== undefined) {
            added.push(
              [`PUT ${c.path}`, (id) => run.call(one(id), { method: 'PUT', body: item, token })],
              [`PATCH ${c.path}`, (id) => run.call(one(id), { method: 'PATCH', body: item, headers: merge, token })],
              [`DELETE ${c.path}`, (id) => run.call(one(id), { method: 'DELETE', token })],
            );
          }
          for (const [verb] of added) childWrites.add(verb);
          writes.push(...added);
        }
        for (const [verb, write] of writes) {
          const unknown = seen(await write(UNKNOWN_ID), UNKNOWN_ID);
          if (!(childWrites.has(verb) && unknown.status === 405)) assert.equal(unknown.status, 404, verb);
          assert.deepEqual(seen(await write(outside), outside), unknown, verb);
        }
        assert.deepEqual(await run.read(outside), before);
      });

      it('a create lands in the scope (201, and the caller reads it) or is a 403 Security_Forbidden that writes nothing', async () => {
        const total = await run.count();
        const reply = await run.call(run.path, as({ method: 'POST', body: await run.sample() }));
        if (reply.status === 201) {
          expectOk(await run.call(reply.headers.get('Location')!, as()));
        } else {
          expectError(reply, 403, 'Security_Forbidden');
          assert.equal(await run.count(), total);
        }
      });
    });
  }
}
