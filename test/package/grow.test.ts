import { expect } from 'chai';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { childEnv, killChildren, runCli, startServe } from '../support/processes.js';
import { type Ran, failure, initProject, npmEnv, npmIn, packedCli, requireRegistry, run, stepTimer, withNewDatabase } from '../support/packed-project.js';
import { requireServices } from '../support/hooks.js';
import { makeTempDir, removeTempDirs } from '../support/temp.js';
import { WHY_ONE_STORE, describeOneStore } from '../support/stores.js';

/**
 * Issue 39, "Done when": a dependent project (restlayer init, installed from the packed tarball) scaffolds a header +
 * lines service (an invoice with lines), then grows it in its declaration: a new field, a derived field (lineTotal =
 * quantity × price, exact, and the invoice's sum of them), a lookup with string ids (currencyCode), a rule (a paid
 * invoice cannot change), an action (POST /invoice/{id}/pay, permission invoice.pay, audit operation pay), soft delete
 * and tenancy (a line each: `softDelete: true`, `tenant: true`); one `migration make` writes the migration. Its own tests then pass on SQLite and PostgreSQL, and its server answers each
 * addition over HTTP on both, the SQLite database being the one that ran the first migration.
 *
 * What the additions need besides the declaration, each checked here so that a change of it shows (the lookup table's
 * entries and the rule that keeps a paid invoice's lines are the declaration's own; the one-line route files of the
 * action and of soft delete's restore, and their entries in the proxy's address, are written by the same
 * `migration make`): the role granting invoice.pay, which is configuration. Tenancy needs nothing more.
 * Needs the npm registry: without it the suite is skipped, except under CI=true.
 */

const PASSWORD = 'correct horse battery staple';
const SCAFFOLD = ['new', 'service', 'invoice', '--field', 'reference:text:required:max=20:filterable', '--child', 'line',
  '--child-field', 'line:description:text:required:max=40', '--child-field', 'line:quantity:integer:required', '--child-field', 'line:price:money:required'];

/** The declaration's edits, each the text a team writes into the scaffolded file (before → after). */
const ADDITIONS: [string, string, string][] = [
  ['a new field', "    reference: field.text({ max: 20 }).required().filter(),\n",
    "    reference: field.text({ max: 20 }).required().filter(),\n    note: field.text({ max: 200 }),\n"],
  ['a derived field and its sum', "    price: field.money().required(),\n",
    "    price: field.money().required(),\n    lineTotal: field.money().derived(['quantity', 'price'], (v) => new Decimal(v.quantity).times(v.price)),\n"],
  ['the sum of the derived field', "    note: field.text({ max: 200 }),\n",
    "    note: field.text({ max: 200 }),\n    linesTotal: field.money().sum('lines', 'lineTotal'),\n"],
  ['a lookup with string ids', "    linesTotal:", "    currencyCode: field.lookup('currency', { id: 'text', max: 3 }).filter(),\n    linesTotal:"],
  ['its lookup table, in the declaration too', '  children: { lines },\n', `  children: { lines },
  // The currencies currencyCode may name (string ids), served at GET /lookup-table/currency.
  lookups: {
    currency: {
      caseSensitive: true,
      entries: [{ id: 'EUR', text: 'Euro' }, { id: 'USD', text: 'US dollar' }, { id: 'FRF', text: 'French franc', isActive: false }],
    },
  },
`],
  ['the paid flag the rule and the action use', "    linesTotal:", '    paid: field.boolean().readOnly().initially(false).filter(),\n    linesTotal:'],
  ['a rule on the invoice', '  children: { lines },\n', `  children: { lines },
  rules: [({ operation, before, fail }) => {
    if (before?.paid && operation !== 'pay') fail('Invoice_Paid', 'A paid invoice cannot change.');
  }],
`],
  ['an action', '  children: { lines },\n', `  children: { lines },
  actions: {
    pay: action({
      summary: 'Record that an invoice is paid; a paid one cannot change after.',
      run({ before, after, fail }) {
        if (before?.paid) fail('Invoice_AlreadyPaid', 'The invoice is paid already.');
        after.paid = true;
      },
    }),
  },
`],
  // Contract parts 13 and 12: each one line of the declaration (and the columns migration make writes).
  ['soft delete', '  children: { lines },\n', '  children: { lines },\n  softDelete: true,\n'],
  ['tenancy', '  children: { lines },\n', '  children: { lines },\n  tenant: true,\n'],
  ['the imports', "import { child, field, resource } from 'restlayer';", "import { Decimal, action, child, field, resource } from 'restlayer';"],
];

/** Replaces `before` once in the file, failing when the scaffold no longer writes it. */
function edit(file: string, what: string, before: string, after: string): void {
  const text = readFileSync(file, 'utf8');
  if (!text.includes(before)) throw new Error(`${what}: ${file} no longer holds ${JSON.stringify(before)}`);
  writeFileSync(file, text.replace(before, after));
}

type Json = Record<string, unknown>;

describeOneStore('a scaffolded service grown by its declaration, in a project from the packed package', WHY_ONE_STORE.packed, function () {
  // npm install, compilations and servers on a small machine shared with other work.
  this.timeout(20 * 60_000);

  let work: string;
  let app: string;
  let main: string;
  let grown: Ran;
  let made: Ran;
  const took: string[] = [];
  const timed = stepTimer(took);
  const npm = (args: string[]) => npmIn(app)(args);
  const serveEnv = (extra: Record<string, string> = {}) => childEnv({ NODE_ENV: undefined, Metrics__Port: '0', Authentication__PasswordHashCost: '10', ...extra });

  /** Serves the project's build with `env`, logs `user` in and runs `fn` with a fetch of the API as that user. */
  async function served(env: NodeJS.ProcessEnv, fn: (as: (user: string) => Promise<(path: string, init?: { method?: string; body?: unknown }) => Promise<{ status: number; body: Json }>>) => Promise<void>): Promise<void> {
    const server = await startServe(['--port', '0'], { cli: main, env, cwd: app, timeoutMs: 60_000 });
    try {
      await fn(async (user) => {
        const login = await fetch(`${server.url}/auth/jwt`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ userName: user, password: PASSWORD }) });
        expect(login.status, user).to.equal(200);
        const { accessToken } = ((await login.json()) as { result: { accessToken: string } }).result;
        return async (path, init = {}) => {
          const contentType = init.method === 'PATCH' ? 'application/merge-patch+json' : 'application/json';
          const reply = await fetch(`${server.url}${path}`, {
            method: init.method ?? 'GET', headers: { Authorization: `Bearer ${accessToken}`, 'Content-Type': contentType },
            ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
          });
          return { status: reply.status, body: (await reply.json()) as Json };
        };
      });
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
  }

  /** The project's CLI adds its users: an administrator, and a clerk who writes invoices but may not pay them. */
  async function addUsers(env: NodeJS.ProcessEnv): Promise<void> {
    for (const [user, role] of [['alice', 'Administrator'], ['carl', 'Clerk']]) {
      const added = await runCli(['user', 'add', user, '--role', role, '--password-stdin'], { cli: main, env, cwd: app, input: PASSWORD, timeoutMs: 60_000 });
      expect([added.code, added.stdout], added.stderr).to.deep.equal([0, `user ${user} created with roles ${role}\n`]);
    }
  }

  /** Each addition over HTTP: the field, the exact derived values, the lookup, the action with its permission and audit, the rule. */
  async function checkAdditions(env: NodeJS.ProcessEnv): Promise<void> {
    await served(env, async (as) => {
      const alice = await as('alice');
      const carl = await as('carl');
      const lines = [{ description: 'Pen', quantity: 3, price: 1.1 }, { description: 'Ink', quantity: 1, price: 2.35 }];
      const created = await carl('/invoice', { method: 'POST', body: { reference: 'INV-1', note: 'First of the month', currencyCode: 'EUR', lines } });
      expect(created.status, JSON.stringify(created.body)).to.equal(201);
      const id = (created.body.result as { invoiceId: number }).invoiceId;
      const read = async () => (await alice(`/invoice/${id}`)).body.result as Json & { lines: Json[] };
      const first = await read();
      // 3 × 1.1 is 3.3 in decimal arithmetic (3.3000000000000003 in binary floating point); the sum 5.65.
      expect([first.note, first.currencyCode, first.paid, first.lines.map((l) => l.lineTotal), first.linesTotal])
        .to.deep.equal(['First of the month', 'EUR', false, [3.3, 2.35], 5.65]);

      // The lookup: an inactive or unknown code is a 400 on its property; a list filters on it.
      for (const code of ['FRF', 'XYZ']) {
        const refused = await carl('/invoice', { method: 'POST', body: { reference: 'INV-2', currencyCode: code } });
        expect([refused.status, (refused.body.messages as { property?: string }[]).map((m) => m.property)], code).to.deep.equal([400, ['currencyCode']]);
      }
      const usd = await carl('/invoice', { method: 'POST', body: { reference: 'INV-3', currencyCode: 'USD' } });
      expect(usd.status).to.equal(201);
      const listed = (await alice('/invoice?currencyCode=USD')).body.result as Json[];
      expect(listed.map((i) => i.reference)).to.deep.equal(['INV-3']);

      // The action: its own permission (the clerk may update, not pay), then paid, recorded as `pay` in the history.
      const denied = await carl(`/invoice/${id}/pay`, { method: 'POST', body: { revisionNumber: first.revisionNumber } });
      expect([denied.status, (denied.body.messages as { code: string }[])[0].code]).to.deep.equal([403, 'Security_Forbidden']);
      const paid = await alice(`/invoice/${id}/pay`, { method: 'POST', body: { revisionNumber: first.revisionNumber } });
      expect(paid.status, JSON.stringify(paid.body)).to.equal(200);
      const history = (await alice(`/invoice/${id}/history`)).body.result as { operation: string; changes: Json[] }[];
      expect(history.map((e) => e.operation)).to.deep.equal(['pay', 'create']);
      expect(history[0].changes).to.deep.include({ field: 'paid', old: false, new: true });
      const paidRecord = await read();
      expect([paidRecord.paid, paidRecord.revisionNumber]).to.deep.equal([true, (first.revisionNumber as number) + 1]);

      // The rule: a paid invoice, its lines included, cannot change: a 400 with the message, nothing written.
      const patched = await alice(`/invoice/${id}`, { method: 'PATCH', body: { note: 'Changed' } });
      expect([patched.status, (patched.body.messages as { code: string; message: string }[]).map((m) => [m.code, m.message])])
        .to.deep.equal([400, [['Invoice_Paid', 'A paid invoice cannot change.']]]);
      const line = await alice(`/invoice/${id}/line`, { method: 'POST', body: { description: 'Pad', quantity: 2, price: 4 } });
      expect([line.status, (line.body.messages as { code: string }[]).map((m) => m.code)]).to.deep.equal([400, ['Invoice_Paid']]);
      const again = await alice(`/invoice/${id}/pay`, { method: 'POST', body: {} });
      expect([again.status, (again.body.messages as { code: string }[]).map((m) => m.code)]).to.deep.equal([400, ['Invoice_AlreadyPaid']]);
      expect(await read()).to.deep.equal(paidRecord);
      expect((await alice(`/invoice/${id}/history`)).body.result).to.have.length(2);
    });
  }

  before(async function () {
    work = makeTempDir('restlayer-grow-');
    await requireRegistry('growing a scaffolded service', work, () => this.skip());
    ({ app } = await initProject(work, 'grow-api', await packedCli(work, timed), timed));
    main = join(app, 'dist', 'main.js');

    // The scaffold, as its docs run it (the project's own restlayer), then a build and a first invoice served.
    const scaffolded = await timed('new service', () => run('npx', ['restlayer', ...SCAFFOLD], { cwd: app, env: npmEnv(), timeoutMs: 120_000 }));
    if (scaffolded.code !== 0) throw new Error(failure('restlayer new service invoice', scaffolded));
    // Who may do what is configuration: a clerk writes invoices, paying one is invoice.pay (the Administrator's).
    const settingsFile = join(app, 'config', 'settings.json');
    const settings = JSON.parse(readFileSync(settingsFile, 'utf8')) as Json;
    writeFileSync(settingsFile, JSON.stringify({ ...settings, Authorization: { Roles: { Clerk: ['invoice.read', 'invoice.create', 'invoice.update'] } } }, null, 2));
    const built = await timed('build', () => npm(['run', 'build']));
    if (built.code !== 0) throw new Error(failure('npm run build of the scaffolded service', built));
    await addUsers(serveEnv());
    await served(serveEnv(), async (as) => {
      // With lines, before lineTotal and its sum exist: the migration that adds them computes them for it.
      const created = await (await as('alice'))('/invoice', { method: 'POST', body: { reference: 'BEFORE', lines: [
        { description: 'Old', quantity: 3, price: 1.1 }, { description: 'Older', quantity: 1, price: 2.35 }] } });
      expect(created.status, JSON.stringify(created.body)).to.equal(201);
    });

    // The additions: the declaration, the action's route file and proxy entry.
    const declaration = join(app, 'src', 'services', 'invoice', 'invoice.ts');
    for (const [what, before, after] of ADDITIONS) edit(declaration, what, before, after);
    // The action's and restore's route files and the proxy's entries for them are migration make's (below).
    grown = await timed('build with the additions', () => npm(['run', 'build']));
    if (grown.code !== 0) return;
    made = await timed('migration make', () => runCli(['migration', 'make'], { cli: main, cwd: app, env: childEnv({ NODE_ENV: undefined }) }));
    if (made.code === 0) grown = await timed('build with the migration', () => npm(['run', 'build']));
  });

  after(async () => {
    if (took.length) console.log(`      (${took.join(', ')})`);
    await killChildren();
    removeTempDirs();
  });

  it('the additions build, and one migration make writes their columns and index, the route files of the action and restore and their proxy entries', () => {
    expect(grown.code, failure('npm run build', grown)).to.equal(0);
    expect(made.code, made.stderr).to.equal(0);
    for (const path of ['pay', 'restore']) {
      const file = `src/routes/invoice/[_invoiceId]/${path}.ts`;
      expect(made.stdout).to.include(`wrote ${file}: the route file of a path the declaration serves`);
      expect(readFileSync(join(app, file), 'utf8')).to.include(`export const { POST } = invoice.routes.${path === 'pay' ? 'pay' : 'restore!'};`);
    }
    expect(made.stdout).to.include('added actions.pay, softDelete to the address in src/services/invoice/invoice-proxy.ts');
    expect(readFileSync(join(app, 'src', 'services', 'invoice', 'invoice-proxy.ts'), 'utf8')).to.include("key: 'invoiceLineId' } }, actions: { pay: true }, softDelete: true });");
    const migrations = join(app, 'src', 'services', 'invoice', 'migrations');
    const next = readdirSync(migrations).filter((f) => f.startsWith('0002-'));
    expect(next).to.have.length(1);
    const text = readFileSync(join(migrations, next[0]), 'utf8');
    for (const column of ["addColumn('note'", "addColumn('currency_code'", "addColumn('paid'", "addColumn('lines_total'", "addColumn('line_total'",
      "addColumn('deleted_at'", "addColumn('tenant_id'"]) expect(text).to.include(column);
    // The records made before get the new derived values and totals, from the declaration.
    expect(text).to.include("import { invoice } from '../invoice.js';").and.include("await deriveStored(db, dialect, invoice, ['invoice.lines_total', 'invoice_line.line_total']);");
  });

  it("the project's tests pass on SQLite (npm test), its shared suite and drift test covering the additions", async () => {
    expect(grown.code).to.equal(0);
    const tested = await timed('npm test', () => npm(['test']));
    expect(tested.code, failure('npm test', tested)).to.equal(0);
    expect(tested.stdout).to.include('invoice (sqlite)').and.include('currencyCode').and.not.match(/failing|pending/);
  });

  it("the project's tests pass on PostgreSQL (npm run test:postgres)", async function () {
    await requireServices(this, ['postgres'], 'the grown project\'s tests on PostgreSQL');
    expect(grown.code).to.equal(0);
    const tested = await timed('npm run test:postgres', () => npm(['run', 'test:postgres']));
    expect(tested.code, failure('npm run test:postgres', tested)).to.equal(0);
    expect(tested.stdout).to.include('invoice (postgres)').and.not.match(/failing|pending/);
  });

  it('serves each addition on SQLite, on the database that ran the first migration (its invoice still read)', async () => {
    expect(grown.code).to.equal(0);
    await served(serveEnv(), async (as) => {
      const alice = await as('alice');
      const old = await alice('/invoice?reference=BEFORE');
      expect((old.body.result as Json[]).map((i) => i.reference)).to.deep.equal(['BEFORE']);
      // Its lines' lineTotal and its linesTotal, which the migration computed, exactly; its revision as it was.
      const before = (await alice(`/invoice/${(old.body.result as Json[])[0].invoiceId as number}`)).body.result as Json & { lines: Json[] };
      expect([before.lines.map((l) => l.lineTotal), before.linesTotal, before.revisionNumber]).to.deep.equal([[3.3, 2.35], 5.65, 1]);
    });
    await checkAdditions(serveEnv());
  });

  it('soft delete and tenancy, each turned on by its line of the declaration: delete, deleted=true, restore; tenants apart', async () => {
    expect(grown.code).to.equal(0);
    await served(serveEnv(), async (as) => {
      const alice = await as('alice');
      const made = await alice('/invoice', { method: 'POST', body: { reference: 'SOFT-1' } });
      const id = (made.body.result as { invoiceId: number }).invoiceId;
      expect((await alice(`/invoice/${id}`, { method: 'DELETE' })).status).to.equal(200);
      expect((await alice(`/invoice/${id}`)).status).to.equal(404);
      expect(((await alice('/invoice?deleted=true')).body.result as Json[]).map((i) => i.reference)).to.deep.equal(['SOFT-1']);
      expect((await alice(`/invoice/${id}/restore`, { method: 'POST', body: {} })).status).to.equal(200);
      expect((await alice(`/invoice/${id}`)).status).to.equal(200);
    });
    // Tenancy on: the invoices there are join the default tenant; carl, in tenant globex, sees none and makes his own.
    const cli = (args: string[]) => runCli(args, { cli: main, env: serveEnv(), cwd: app, timeoutMs: 60_000 });
    expect((await cli(['user', 'set-attribute', 'alice', 'tenantId', 'default'])).code).to.equal(0);
    await served(serveEnv({ Tenancy__Enabled: 'true' }), async (as) => {
      const carl = await as('carl');
      expect((await carl('/invoice')).status).to.equal(403);
      expect((await cli(['user', 'set-attribute', 'carl', 'tenantId', 'globex'])).code).to.equal(0);
      const globex = await as('carl');
      expect((await globex('/invoice')).body.result).to.deep.equal([]);
      expect((await globex('/invoice', { method: 'POST', body: { reference: 'GLOBEX-1' } })).status).to.equal(201);
      const references = ((await (await as('alice'))('/invoice?take=100')).body.result as Json[]).map((i) => i.reference);
      expect(references).to.include('BEFORE').and.include('SOFT-1').and.not.include('GLOBEX-1');
    });
  });

  it('serves each addition on PostgreSQL (a new database)', async function () {
    await requireServices(this, ['postgres'], 'the grown project on PostgreSQL');
    expect(grown.code).to.equal(0);
    await withNewDatabase('grow', async (url) => {
      const env = serveEnv({ Storage__Provider: 'postgres', Storage__Postgres__Url: url.href });
      await addUsers(env);
      await checkAdditions(env);
    });
  });
});
