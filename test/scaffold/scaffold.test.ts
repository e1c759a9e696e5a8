import { execFileSync, spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { expect } from 'chai';
import { CompiledQuery, type Migration, sql } from 'kysely';
import pLimit from 'p-limit';
import { type ListDefinition, type StorageDialect, listSql, loadConfig, openStorage } from 'restlayer';
import { expectCliFailure, lines, stackLine } from '../support/cli-env.js';
import { requireServices } from '../support/hooks.js';
import { type CliResult, childEnv, projectRoot, runCli } from '../support/processes.js';
import { makeTempDir, removeTempDirs, writeFiles } from '../support/temp.js';
import { WHY_ONE_STORE, describeOneStore } from '../support/stores.js';

/** A copy of the project as git sees it (tracked and new files, not ignored ones), sharing its node_modules. */
function copyProject(): string {
  const dir = makeTempDir('restlayer-scaffold-');
  const listed = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: projectRoot, encoding: 'utf8' });
  for (const file of listed.split('\0').filter((f) => f && existsSync(join(projectRoot, f)))) {
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    copyFileSync(join(projectRoot, file), join(dir, file));
  }
  symlinkSync(join(projectRoot, 'node_modules'), join(dir, 'node_modules'), 'dir');
  return dir;
}

/** Runs a Node script of the project's tools (tsc, mocha) in `cwd` to completion; the child is killed after `timeoutMs`. */
function runNode(cwd: string, args: string[], env: NodeJS.ProcessEnv, timeoutMs: number): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('error', reject);
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/** Every file below `dir`, relative to it, with its content. */
function snapshot(dir: string, base = dir, out = new Map<string, string>()): Map<string, string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name === 'dist') continue;
    const full = join(dir, entry.name);
    if (entry.isDirectory()) snapshot(full, base, out);
    else out.set(full.slice(base.length + 1), readFileSync(full, 'utf8'));
  }
  return out;
}

/** The representative service: every type, every option. */
const fullService = [
  'new', 'service', 'purchase-order',
  '--field', 'title:text:required:max=60:sortable:filterable',
  '--field', 'quantity:integer:required:sortable:filterable',
  '--field', 'unitPrice:decimal:sortable:filterable',
  '--field', 'dueDate:date:sortable:filterable',
  '--field', 'urgent:boolean:required:filterable:sortable',
  '--field', 'territoryId:lookup=sales-territory:filterable:sortable',
  '--field', 'note:text:max=200',
  '--field', 'approved:boolean',
  '--field', 'shippedDate:date:required',
  '--field', 'lineCount:integer',
  '--action', 'approve',
  // A multi-word action, given as its path: the key markPaid, the route file mark-paid.ts (the shared suite runs it).
  '--action', 'mark-paid',
];
/**
 * A master-detail document (issue 23): money fields on the parent (sorted, filtered) and on its child collection, whose
 * amounts the parent totals (a child's lineTotal as the parent's linesTotal); a declaration with its child collection,
 * the child's routes and the shared suite (issue 39).
 */
const documentService = [
  'new', 'service', 'sales-invoice',
  '--field', 'invoiceNumber:text:required:max=20:unique:filterable',
  '--field', 'freight:money:required:sortable:filterable',
  '--field', 'deposit:money',
  '--child', 'line',
  '--child-field', 'line:description:text:required:max=40',
  '--child-field', 'line:amount:money:required',
  '--child-field', 'line:quantity:integer',
  '--child-field', 'line:discount:decimal',
  '--child-field', 'line:gift:boolean',
  '--child-field', 'line:tip:money',
  '--child-field', 'line:lineTotal:money:derived=quantity*amount',
  '--child-total', 'line:amount',
  '--child-total', 'line:tip',
  '--child-total', 'line:lineTotal',
];
/** A child collection without money or totals (an entry's array is `entries`). */
const plainDocument = ['new', 'service', 'checklist', '--field', 'name:text:required', '--child', 'entry', '--child-field', 'entry:done:boolean:required', '--child-field', 'entry:label:text'];
/** The other branches of the templates: nothing required, sorted or filtered; and nothing optional. */
const optionalOnly = ['new', 'service', 'memo', '--field', 'body:text'];
const requiredOnly = ['new', 'service', 'stock-level', '--field', 'code:text:required:max=3:sortable:filterable', '--field', 'onHand:integer:required:filterable'];

/** What the scaffold writes for a header-only service: a declaration the layer runs, and the thin files around it. */
const generatedFiles = (name: string, id: string) => [
  `services/${name}/${name}.ts`, `services/${name}/migrations/0001-${name}.ts`, `services/${name}/migrations/index.ts`, `services/${name}/module.ts`,
  `services/${name}/${name}-proxy.ts`, `routes/${name}/index.ts`, `routes/${name}/[_${id}].ts`, `routes/${name}/[_${id}]/history.ts`, `test/${name}/${name}.test.ts`,
  `test/${name}/${name}.drift.ts`,
];

/** What it writes besides for a child collection (--child): its route files below the record's. */
const childRouteFiles = (name: string, id: string, segment: string, childId: string) => [
  `routes/${name}/[_${id}]/${segment}/index.ts`, `routes/${name}/[_${id}]/${segment}/[_${childId}].ts`,
];

/**
 * A scope added to stock-level's declaration where its comment says (a column and a user attribute), and a test of
 * what it must then do over HTTP: the routes name it, and the layer applies it in every query of the list, reads,
 * writes, deletes and history, refusing a write that would leave the caller's scope.
 */
const stockLevelOwn = [
  '  scopes: {',
  '    own: {',
  "      description: \"stock levels whose code is the caller's user attribute code\",",
  '      where(alias, attributes) {',
  '        const code = attributes.code?.trim();',
  '        if (!code) return NOTHING;',
  '        return sql<boolean>`${sql.ref(`${alias}.code`)} = ${code}`;',
  '      },',
  '    },',
  '  },',
].join('\n');
/** The same for a document: checklist's declaration gets a scope on its name, and a test of the record and its entries under it. */
const checklistOwn = [
  '  scopes: {',
  '    own: {',
  "      description: \"checklists whose name is the caller's user attribute list\",",
  '      where: (alias, attributes) => (attributes.list ? sql<boolean>`${sql.ref(`${alias}.name`)} = ${attributes.list}` : NOTHING),',
  '    },',
  '  },',
].join('\n');
const checklistScopeTest = `import { expect } from 'chai';
import { withErrorScope } from 'restlayer';
import { type TestServer, expectError, expectOk, startTestServer } from 'restlayer/testing';
import { application } from '../../services/index.js';
import { WHY_ONE_STORE, describeOneStore } from '../support/stores.js';

describeOneStore('checklist with a scope added to its declaration', WHY_ONE_STORE.scaffold, function () {
  this.timeout(120_000);
  let server: TestServer;
  let keeper: string;
  before(async () => {
    server = await startTestServer({
      application, config: { Authentication: { PasswordHashCost: 10 }, Authorization: { Roles: { Keeper: ['checklist.*:own'] } } },
    });
    const added = await withErrorScope(() => server.services.users.add({ userName: 'keeper', password: 'keeper-password-1', roles: ['Keeper'] }, { list: 'Mine' }));
    expect(added.messages).to.deep.equal([]);
    keeper = server.token({ sub: 'keeper', name: 'keeper', role: ['Keeper'] });
  });
  after(() => server?.stop());

  const create = async (name: string, token?: string) =>
    expectOk(await server.call('/checklist', { method: 'POST', body: { name, entries: [{ done: true, label: name }] }, token }), 201).result.checklistId as number;
  const entryOf = async (id: number) => (expectOk(await server.call(\`/checklist/\${id}/entry\`)).result as { checklistEntryId: number }[])[0].checklistEntryId;

  it('limits the record, its entries and their writes, and its history; a create or write leaving the scope is a 403 with nothing written', async () => {
    const mine = await create('Mine');
    const theirs = await create('Theirs');
    const [myEntry, theirEntry] = [await entryOf(mine), await entryOf(theirs)];
    const list = expectOk(await server.call('/checklist?getTotalCount=true', { token: keeper }));
    expect([(list.result as { checklistId: number }[]).map((r) => r.checklistId), list.totalCount]).to.deep.equal([[mine], 1]);
    const at = \`/checklist/\${theirs}/entry/\${theirEntry}\`;
    const outside = [
      await server.call(\`/checklist/\${theirs}\`, { token: keeper }),
      await server.call(\`/checklist/\${theirs}/entry\`, { token: keeper }),
      await server.call(at, { token: keeper }),
      await server.call(\`/checklist/\${theirs}/entry\`, { method: 'POST', body: { done: false }, token: keeper }),
      await server.call(at, { method: 'PUT', body: { done: false }, token: keeper }),
      await server.call(at, { method: 'PATCH', body: { label: 'x' }, token: keeper }),
      await server.call(at, { method: 'DELETE', token: keeper }),
      await server.call(\`/checklist/\${theirs}/history\`, { token: keeper }),
      await server.call(\`/checklist/\${theirs}\`, { method: 'PATCH', body: { name: 'Mine' }, token: keeper }),
      await server.call(\`/checklist/\${theirs}\`, { method: 'DELETE', token: keeper }),
    ];
    for (const reply of outside) expectError(reply, 404, 'Entity_NotFound');
    expect(expectOk(await server.call(\`/checklist/\${theirs}\`)).result).to.include({ name: 'Theirs', revisionNumber: 1 });
    expect(expectOk(await server.call(\`/checklist/\${mine}/entry\`, { token: keeper })).result).to.have.length(1);
    expectOk(await server.call(\`/checklist/\${mine}/entry/\${myEntry}\`, { token: keeper }));
    expectOk(await server.call(\`/checklist/\${mine}/entry\`, { method: 'POST', body: { done: false, label: 'new' }, token: keeper }), 201);
    expectOk(await server.call(\`/checklist/\${mine}/entry/\${myEntry}\`, { method: 'PATCH', body: { label: 'changed' }, token: keeper }));
    expectError(await server.call(\`/checklist/\${mine}\`, { method: 'PATCH', body: { name: 'Other' }, token: keeper }), 403, 'Security_Forbidden');
    expectError(await server.call('/checklist', { method: 'POST', body: { name: 'Other', entries: [{ done: true }] }, token: keeper }), 403, 'Security_Forbidden');
    expect(expectOk(await server.call('/checklist?take=0&getTotalCount=true')).totalCount).to.equal(2);
    expect(expectOk(await server.call(\`/checklist/\${mine}\`)).result).to.include({ name: 'Mine', revisionNumber: 3 });
    const history = expectOk(await server.call(\`/checklist/\${mine}/history\`, { token: keeper })).result as { user: string; operation: string }[];
    expect(history.map((e) => \`\${e.operation} by \${e.user}\`)).to.deep.equal(['entry-patch by keeper', 'entry-create by keeper', 'create by tester']);
    await create('Mine', keeper);
    expectOk(await server.call(\`/checklist/\${mine}\`, { method: 'DELETE', token: keeper }));
  });
});
`;
const stockLevelScopeTest = `import { expect } from 'chai';
import { withErrorScope } from 'restlayer';
import { type TestServer, expectError, expectOk, startTestServer } from 'restlayer/testing';
import { application } from '../../services/index.js';
import { WHY_ONE_STORE, describeOneStore } from '../support/stores.js';

describeOneStore('stock level with a scope added to its declaration', WHY_ONE_STORE.scaffold, function () {
  this.timeout(120_000);
  let server: TestServer;
  let keeper: string;
  before(async () => {
    server = await startTestServer({
      application, config: { Authentication: { PasswordHashCost: 10 }, Authorization: { Roles: { Keeper: ['stock-level.*:own'] } } },
    });
    const added = await withErrorScope(() => server.services.users.add({ userName: 'keeper', password: 'keeper-password-1', roles: ['Keeper'] }, { code: 'AAA' }));
    expect(added.messages).to.deep.equal([]);
    keeper = server.token({ sub: 'keeper', name: 'keeper', role: ['Keeper'] });
  });
  after(() => server?.stop());

  const create = async (code: string, onHand: number, token?: string) =>
    expectOk(await server.call('/stock-level', { method: 'POST', body: { code, onHand }, token }), 201).result.stockLevelId as number;

  it('limits the list and its count, reads, writes, deletes and history; a write leaving the scope is a 403 with nothing written', async () => {
    const mine = [await create('AAA', 1), await create('AAA', 2)];
    const theirs = await create('BBB', 3);
    const list = expectOk(await server.call('/stock-level?getTotalCount=true', { token: keeper }));
    expect((list.result as { stockLevelId: number }[]).map((r) => r.stockLevelId)).to.deep.equal(mine);
    expect(list.totalCount).to.equal(2);
    expectOk(await server.call(\`/stock-level/\${mine[0]}\`, { token: keeper }));
    const outside = [
      await server.call(\`/stock-level/\${theirs}\`, { token: keeper }),
      await server.call(\`/stock-level/\${theirs}\`, { method: 'PUT', body: { code: 'BBB', onHand: 9 }, token: keeper }),
      await server.call(\`/stock-level/\${theirs}\`, { method: 'PATCH', body: { onHand: 9 }, token: keeper }),
      await server.call(\`/stock-level/\${theirs}/history\`, { token: keeper }),
      await server.call(\`/stock-level/\${theirs}\`, { method: 'DELETE', token: keeper }),
    ];
    for (const reply of outside) expectError(reply, 404, 'Entity_NotFound');
    expectError(await server.call(\`/stock-level/\${mine[0]}\`, { method: 'PATCH', body: { code: 'BBB' }, token: keeper }), 403, 'Security_Forbidden');
    expectError(await server.call('/stock-level', { method: 'POST', body: { code: 'BBB', onHand: 4 }, token: keeper }), 403, 'Security_Forbidden');
    expect(expectOk(await server.call('/stock-level?take=0&getTotalCount=true')).totalCount).to.equal(3);
    expect(expectOk(await server.call(\`/stock-level/\${mine[0]}\`)).result).to.include({ code: 'AAA', revisionNumber: 1 });
    expect(expectOk(await server.call(\`/stock-level/\${theirs}\`)).result).to.include({ code: 'BBB', onHand: 3, revisionNumber: 1 });
    expectOk(await server.call(\`/stock-level/\${mine[0]}\`, { method: 'PATCH', body: { onHand: 7 }, token: keeper }));
    const history = expectOk(await server.call(\`/stock-level/\${mine[0]}/history\`, { token: keeper })).result as { user: string; operation: string }[];
    expect(history.map((e) => \`\${e.operation} by \${e.user}\`)).to.deep.equal(['patch by keeper', 'create by tester']);
    await create('AAA', 5, keeper);
    expectOk(await server.call(\`/stock-level/\${mine[1]}\`, { method: 'DELETE', token: keeper }));
    expect(expectOk(await server.call('/stock-level?take=0&getTotalCount=true', { token: keeper })).totalCount).to.equal(2);
  });
});
`;

/** The tests of the generated services plus the drift test, which must find their proxies by itself. */
const generatedTests = [
  'dist/test/purchase-order/*.test.js', 'dist/test/memo/*.test.js', 'dist/test/stock-level/*.test.js', 'dist/test/sales-invoice/*.test.js', 'dist/test/checklist/*.test.js',
  'dist/test/client/drift.test.js',
];

/** The counts mocha printed: passing, failing, pending. */
function mochaCounts(run: CliResult) {
  const count = (word: string) => Number(new RegExp(`(\\d+) ${word}`).exec(run.stdout)?.[1] ?? 0);
  return { passing: count('passing'), failing: count('failing'), pending: count('pending') };
}

interface Generated {
  full: CliResult;
  document: CliResult;
  others: CliResult[];
  build: CliResult;
}

describeOneStore('restlayer new service: the scaffold', WHY_ONE_STORE.scaffold, function () {
  this.timeout(120_000);
  /** The copy the error cases run in (it must stay as it is). */
  let project: string;
  /** The copy that gets the generated services and is built; the build runs while the other tests do. */
  let built: string;
  let generated: Promise<Generated>;
  // A CLI process takes a second or two to start, far longer while tsc runs beside it on a busy machine.
  const newService = (args: string[], cwd = project) => runCli(args, { cwd, env: childEnv(), timeoutMs: 120_000 });

  before(() => {
    project = copyProject();
    built = copyProject();
    generated = (async () => {
      const full = await newService(fullService, built);
      const others = [await newService(optionalOnly, built), await newService(requiredOnly, built)];
      // stock-level gets a scope in its declaration, and a test of it beside its generated ones.
      const declaration = join(built, 'services/stock-level/stock-level.ts');
      writeFileSync(declaration, readFileSync(declaration, 'utf8').replace("import { field, resource } from 'restlayer';", "import { NOTHING, field, resource, sql } from 'restlayer';")
        .replace(/^ {2}\/\/ Record scopes, rules and actions are declared here too.*$/m, stockLevelOwn));
      writeFileSync(join(built, 'test/stock-level/stock-level-scope.test.ts'), stockLevelScopeTest);
      const document = await newService(documentService, built);
      others.push(await newService(plainDocument, built));
      const checklist = join(built, 'services/checklist/checklist.ts');
      writeFileSync(checklist, readFileSync(checklist, 'utf8').replace("import { child, field, resource } from 'restlayer';", "import { NOTHING, child, field, resource, sql } from 'restlayer';")
        .replace(/^ {2}\/\/ Record scopes, rules and actions are declared here too.*$/m, checklistOwn));
      writeFileSync(join(built, 'test/checklist/checklist-scope.test.ts'), checklistScopeTest);
      const build = await runNode(built, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.json'], childEnv(), 540_000);
      return { full, document, others, build };
    })();
    // Awaited by the last suite; a failure meanwhile must not count as an unhandled rejection.
    generated.catch(() => {});
  });
  after(async () => {
    await generated.catch(() => {});
    removeTempDirs();
  });

  describe('refuses bad arguments with one line and exit 2, writing nothing', () => {
    const cases: [string, string[], string][] = [
      ['a name that is not kebab-case', ['new', 'service', 'PurchaseOrder', '--field', 'title:text'], "service name 'PurchaseOrder' must be kebab-case"],
      ['a name the layer uses', ['new', 'service', 'lookup', '--field', 'title:text'], "service name 'lookup' would take the key lookup of one of the layer's own services"],
      // Issue 20, defect 5: names taken today, then failing at startup, migration or in the tests.
      ['a module name of the layer (idempotency)', ['new', 'service', 'idempotency', '--field', 'title:text'], "service name 'idempotency' is taken by the layer's Idempotency-Key module"],
      ['a service key of the layer (access)', ['new', 'service', 'access', '--field', 'title:text'], "service name 'access' would take the key access of one of the layer's own services"],
      ...['constructor', 'to-string', 'value-of', 'has-own-property'].map((name): [string, string[], string] => [
        `a key every object has (${name})`, ['new', 'service', name, '--field', 'title:text'], 'which every JavaScript object has (Object.prototype.']),
      ['the migration history table of a module', ['new', 'service', 'restlayer-migration-customer', '--field', 'title:text'],
        "would make the table restlayer_migration_customer, a name kept for the layer's migration history of a module"],
      ["the layer's list change table", ['new', 'service', 'restlayer-list-change', '--field', 'title:text'],
        "would make the table restlayer_list_change, a name kept for the layer's list change generations"],
      ["a table name of SQLite's", ['new', 'service', 'sqlite-sequence', '--field', 'title:text'], "would make the table sqlite_sequence, a name kept for SQLite's own tables"],
      // Issue 37 finding 6: each exited 0, then `restlayer routes` failed, or the table was PostgreSQL's catalog.
      ["a route folder of the layer's (login-throttle)", ['new', 'service', 'login-throttle', '--field', 'title:text'],
        "service name 'login-throttle' is taken by the layer's routes under /login-throttle (/login-throttle/:userName, /login-throttle/address/:address); choose another"],
      ["a table name of PostgreSQL's catalog (pg_class)", ['new', 'service', 'pg-class', '--field', 'title:text'],
        "would make the table pg_class, a name kept for PostgreSQL's system catalogs"],
      ['the information schema', ['new', 'service', 'information-schema', '--field', 'title:text'],
        "would make the table information_schema, a name kept for the SQL standard's information schema of PostgreSQL"],
      ["a child whose table is a catalog's (pg + class)", ['new', 'service', 'pg', '--field', 'title:text', '--child', 'class', '--child-field', 'class:note:text'],
        "--child 'class' would make the table pg_class, a name kept for PostgreSQL's system catalogs"],
      ...['xmin', 'ctid', 'tableoid', 'oid'].map((name): [string, string[], string] => [
        `a PostgreSQL system column (${name})`, ['new', 'service', 'widget', '--field', `${name}:integer`], `its column ${name} is a system column of every PostgreSQL table`]),
      ['cursor as a field', ['new', 'service', 'widget', '--field', 'cursor:text'], 'cursor is reserved (a list option)'],
      ['no name', ['new', 'service', '--field', 'title:text'], "missing required argument 'name'"],
      ['no field', ['new', 'service', 'widget'], 'give the fields of the service'],
      ['a field without a type', ['new', 'service', 'widget', '--field', 'title'], "--field 'title': give a type after the name"],
      ['an unknown type', ['new', 'service', 'widget', '--field', 'price:currency'], "--field 'price:currency': unknown type 'currency'"],
      ['a unique money field', ['new', 'service', 'widget', '--field', 'price:money:unique'], 'unique applies to text, integer, decimal and date fields'],
      ['a child field without --child', ['new', 'service', 'widget', '--field', 'title:text', '--child-field', 'line:amount:money'],
        '--child-field and --child-total need a --child <name> to belong to'],
      ['a child without fields', ['new', 'service', 'widget', '--field', 'title:text', '--child', 'line'], 'give the fields of child line: --child-field line:name:type'],
      ['a child named as the history route', ['new', 'service', 'widget', '--field', 'title:text', '--child', 'history', '--child-field', 'history:note:text'],
        "--child 'history': /<name>/{id}/history is the record's change history; name the child otherwise"],
      ['two child collections', ['new', 'service', 'widget', '--field', 'title:text', '--child', 'line', '--child', 'note', '--child-field', 'line:amount:money'],
        "--child is given twice ('line', 'note'): a service has one child collection"],
      ['a child field of another child', ['new', 'service', 'widget', '--field', 'title:text', '--child', 'line', '--child-field', 'item:amount:money'],
        "--child-field 'item:amount:money': start with the child collection's name, as in line:amount:money:required"],
      ['a sortable child field', ['new', 'service', 'widget', '--field', 'title:text', '--child', 'line', '--child-field', 'line:amount:money:sortable'],
        "--child-field 'line:amount:money:sortable': a child field takes the options required and max=N only"],
      ['a date child field', ['new', 'service', 'widget', '--field', 'title:text', '--child', 'line', '--child-field', 'line:due:date'],
        "--child-field 'line:due:date': a child field is text, integer, decimal, money or boolean"],
      ['a total of a field that is not money', ['new', 'service', 'widget', '--field', 'title:text', '--child', 'line', '--child-field', 'line:count:integer', '--child-total', 'line:count'],
        "--child-total 'line:count': name a money field of child line (it has none)"],
      ["a total named as a parent's field", ['new', 'service', 'widget', '--field', 'amountTotal:money', '--child', 'line', '--child-field', 'line:amount:money', '--child-total', 'line:amount'],
        "--child-total 'line:amount': the parent has the field amountTotal already, which the total would be"],
      ["a child whose array is a parent's field", ['new', 'service', 'widget', '--field', 'lines:text', '--child', 'line', '--child-field', 'line:amount:money'],
        "--child 'line': the parent's field lines is named as its array of lines"],
      ['the child id as a child field', ['new', 'service', 'widget', '--field', 'title:text', '--child', 'line', '--child-field', 'line:widgetLineId:integer'],
        "--child-field 'line:widgetLineId:integer': widgetLineId is reserved (the id of every child record)"],
      ['a lookup without its table', ['new', 'service', 'widget', '--field', 'territoryId:lookup'], "--field 'territoryId:lookup': write lookup=<table>"],
      ['an unknown option', ['new', 'service', 'widget', '--field', 'title:text:big'], "--field 'title:text:big': unknown option 'big'"],
      ['max on a field that is not text', ['new', 'service', 'widget', '--field', 'count:integer:max=5'], 'max=N applies to text fields (and lookups with ids=text) only'],
      ['a max that is no length', ['new', 'service', 'widget', '--field', 'title:text:max=0'], 'max must be a whole number of characters'],
      ['an option given twice', ['new', 'service', 'widget', '--field', 'title:text:sortable:sortable'], "option 'sortable' is given twice"],
      ['a derivation from a field not given before', ['new', 'service', 'widget', '--field', 'total:money:derived=price*quantity', '--field', 'price:money'],
        'price is no integer, decimal or money field given before total'],
      ['an action named as the history', ['new', 'service', 'widget', '--field', 'title:text', '--action', 'history'], "the record's history already"],
      ['an action in snake_case', ['new', 'service', 'widget', '--field', 'title:text', '--action', 'mark_paid'],
        "--action 'mark_paid': an action's name is camelCase or kebab-case, letters and digits with a lower-case letter first (e.g. approve, markPaid or mark-paid)"],
      ['a field name that is not camelCase', ['new', 'service', 'widget', '--field', 'unit_price:decimal'], 'the field name must be camelCase'],
      ['two fields of one name (names match case-insensitively)', ['new', 'service', 'widget', '--field', 'unitPrice:decimal', '--field', 'unitprice:integer'],
        "--field 'unitprice:integer' and --field 'unitPrice:decimal' name the same field"],
      ['the id as a field', ['new', 'service', 'widget', '--field', 'widgetId:integer'], 'widgetId is reserved (the id of every record)'],
      ['revisionNumber as a field', ['new', 'service', 'widget', '--field', 'revisionNumber:integer'], 'revisionNumber is reserved'],
      ['a list option as a field', ['new', 'service', 'widget', '--field', 'sort:text'], 'sort is reserved (a list option)'],
      ['a field whose index is named as the index of the id', ['new', 'service', 'widget', '--field', 'listKey:integer:sortable'],
        "--field 'listKey:integer:sortable': its index would be ix_widget_list_key, the service's index of the id alone"],
      ["a field whose index is named as another field's trigram index", ['new', 'service', 'widget', '--field', 'title:text:filterable', '--field', 'titleTrigram:integer:sortable'],
        "two of the service's tables or indexes would be named ix_widget_title_trigram: choose another field name"],
      ['an unknown command option', ['new', 'service', 'widget', '--field', 'title:text', '--forc'], "unknown option '--forc'"],
    ];
    // The processes run a few at a time: each spends a second or more starting the CLI.
    const runs = new Map<string, Promise<CliResult>>();
    let untouched: Map<string, string>;
    before(() => {
      untouched = snapshot(project);
      const limit = pLimit(4);
      for (const [name, args] of cases) runs.set(name, limit(() => newService(args)));
    });

    for (const [name, args, text] of cases) {
      it(`${name}: ${args.slice(2).join(' ')}`, async () => {
        expectCliFailure(await runs.get(name)!, 2, text);
      });
    }

    it('wrote nothing for any of them', async () => {
      await Promise.all(runs.values());
      expect(snapshot(project)).to.deep.equal(untouched);
    });
  });

  describe('refuses, with exit 1, what the project is in the way of', () => {
    it('a table another module creates already (sales-order creates sales_person)', async () => {
      const before = snapshot(project);
      expectCliFailure(await newService(['new', 'service', 'sales-person', '--field', 'name:text']), 1,
        'services/sales-order/migrations.ts already creates the table or index sales_person');
      expect(snapshot(project)).to.deep.equal(before);
    });

    it("a table of the layer's own (app_user), or an index another module builds by name (ix_sales_order_status)", async () => {
      const before = snapshot(project);
      expectCliFailure(await newService(['new', 'service', 'app-user', '--field', 'name:text']), 1,
        'the layer (lib/auth/migrations) already creates the table or index app_user');
      expectCliFailure(await newService(['new', 'service', 'sales', '--field', 'orderStatus:integer:sortable']), 1,
        'services/sales-order/migrations.ts already creates the table or index ix_sales_order_status: choose another service or field name');
      expect(snapshot(project)).to.deep.equal(before);
    });

    it("a table another module's trigram index makes (customer's 0005 creates customer_name_fts)", async () => {
      const before = snapshot(project);
      expectCliFailure(await newService(['new', 'service', 'customer-name-fts', '--field', 'note:text']), 1,
        'services/customer/migrations.ts already creates the table or index customer_name_fts: choose another service name');
      expect(snapshot(project)).to.deep.equal(before);
    });

    it('a folder that is not a project', async () => {
      const elsewhere = makeTempDir('restlayer-not-a-project-');
      expectCliFailure(await newService(['new', 'service', 'widget', '--field', 'title:text'], elsewhere), 1, 'has no services/index.ts');
      expect(readdirSync(elsewhere)).to.deep.equal([]);
    });
  });

  describe("finds the project's layout: flags, then package.json's restlayer section, then the conventions", () => {
    const invoice = ['new', 'service', 'invoice', '--field', 'code:text:required:max=12:unique:filterable', '--field', 'amount:decimal'];
    const srcProject = (pkg: object = {}) => {
      const dir = makeTempDir('restlayer-layout-');
      writeFiles(dir, { 'package.json': { name: 'team-app', type: 'module', ...pkg }, 'src/app.ts': 'export const modules = [] as const;\n' });
      return dir;
    };
    const read = (dir: string, file: string) => readFileSync(join(dir, file), 'utf8');

    it('src/app.ts: services, routes and tests under src/, imports relative to the module list, only public entry points of the layer', async () => {
      const dir = srcProject();
      const made = await newService([...invoice, '--json'], dir);
      expect(made.code, made.stderr).to.equal(0);
      const { files, registration } = JSON.parse(made.stdout) as { files: string[]; registration: string[] };
      expect(files).to.include.members(['src/services/invoice/module.ts', 'src/routes/invoice/index.ts', 'src/test/invoice/invoice.test.ts']);
      expect(registration).to.deep.equal(["added import { invoiceModule } from './services/invoice/module.js';", 'added invoiceModule to modules']);
      expect(read(dir, 'src/app.ts')).to.equal("import { invoiceModule } from './services/invoice/module.js';\nexport const modules = [invoiceModule] as const;\n");
      expect(read(dir, 'src/routes/invoice/index.ts')).to.include("import { invoice } from '../../services/invoice/invoice.js';")
        .and.include('export const { GET, POST } = invoice.routes.collection;');
      expect(read(dir, 'src/test/invoice/invoice.test.ts')).to.include("import { application } from '../../app.js';");
      for (const file of files) {
        const text = read(dir, file);
        const from = [...text.matchAll(/ from '([^']+)'/g)].map((m) => m[1]);
        expect(from.filter((f) => !/^(restlayer(\/client|\/testing)?|chai|\.{1,2}\/.*)$/.test(f)), file).to.deep.equal([]);
        expect(text, file).to.not.match(/\blib\/|support\//);
      }
      expect(read(dir, 'src/services/invoice/invoice.ts')).to.include('    code: field.text({ max: 12 }).required().filter().unique(),');
      expect(read(dir, 'src/services/invoice/module.ts')).to.include("migrations: invoiceMigrations, resources: [invoice] });");
      expect(read(dir, 'src/services/invoice/migrations/0001-invoice.ts')).to.include("await db.schema.createIndex('ux_invoice_code').on('invoice').column('code').unique().execute();");
    });

    it('package.json "restlayer" places each folder; a flag overrides it', async () => {
      const dir = srcProject({ restlayer: { services: 'src/domain', routes: 'src/http', tests: 'spec', modules: 'src/app.ts' } });
      const made = await newService([...invoice, '--tests', 'src/checks'], dir);
      expect(made.code, made.stderr).to.equal(0);
      expect(made.stdout).to.include('  src/domain/invoice/module.ts\n').and.include('  src/checks/invoice/invoice.test.ts\n')
        .and.include("src/app.ts: added import { invoiceModule } from './domain/invoice/module.js';");
      expect(read(dir, 'src/http/invoice/[_invoiceId].ts')).to.include("from '../../domain/invoice/invoice.js';");
      expect(read(dir, 'src/checks/invoice/invoice.test.ts')).to.include("from '../../domain/invoice/invoice.js';");
    });

    it('refuses a section with an unknown key, a path outside the project, and a missing module list, writing nothing', async () => {
      const cases = [
        [{ restlayer: { service: 'src' } }, [], 1, '"restlayer" has no setting "service"'],
        [{}, ['--routes', '../elsewhere'], 2, "--routes: '../elsewhere' must be a folder or file inside the project"],
        [{ restlayer: { modules: 'src/index.ts' } }, [], 1, 'has no src/index.ts, the file exporting'],
      ] as const;
      await Promise.all(cases.map(async ([pkg, flags, code, problem]) => {
        const dir = srcProject(pkg);
        const before = snapshot(dir);
        expectCliFailure(await newService([...invoice, ...flags], dir), code, problem);
        expect(snapshot(dir)).to.deep.equal(before);
      }));
    });
  });

  describe('the one edit outside the new folders: services/index.ts', () => {
    const miniProject = (index: string) => writeFiles(makeTempDir('restlayer-scaffold-index-'), { 'services/index.ts': index });

    it('adds the import and the module to a list written over several lines, keeping its trailing comma', async () => {
      const dir = miniProject([
        "import { salesOrderModule } from './sales-order/module.js';",
        '',
        '// Order is migration order.',
        'export const modules = [',
        '  salesOrderModule, // the sample',
        '];',
        '',
      ].join('\n'));
      const memo = await newService([...optionalOnly, '--json'], dir);
      expect(memo.code, memo.stderr).to.equal(0);
      const printed = JSON.parse(memo.stdout) as { service: string; path: string; files: string[]; registration: string[] };
      expect(printed).to.deep.equal({
        service: 'IMemoService',
        path: '/memo',
        files: generatedFiles('memo', 'memoId'),
        registration: ["added import { memoModule } from './memo/module.js';", 'added memoModule to modules'],
      });
      expect((await newService(requiredOnly, dir)).code).to.equal(0);
      expect(readFileSync(join(dir, 'services/index.ts'), 'utf8')).to.equal([
        "import { salesOrderModule } from './sales-order/module.js';",
        "import { memoModule } from './memo/module.js';",
        "import { stockLevelModule } from './stock-level/module.js';",
        '',
        '// Order is migration order.',
        'export const modules = [',
        '  salesOrderModule, // the sample',
        '  memoModule,',
        '  stockLevelModule,',
        '];',
        '',
      ].join('\n'));
    });

    it('puts the module before a block comment after the last element, never inside it (issue 20, defect 5: it was refused)', async () => {
      const dir = miniProject([
        "import { salesOrderModule } from './sales-order/module.js';",
        '',
        'export const modules = [',
        '  salesOrderModule, /* retired:',
        '  oldModule, */',
        '];',
        '',
      ].join('\n'));
      const memo = await newService(optionalOnly, dir);
      expect(memo.code, memo.stderr).to.equal(0);
      expect(readFileSync(join(dir, 'services/index.ts'), 'utf8')).to.equal([
        "import { salesOrderModule } from './sales-order/module.js';",
        "import { memoModule } from './memo/module.js';",
        '',
        'export const modules = [',
        '  salesOrderModule,',
        '  memoModule, /* retired:',
        '  oldModule, */',
        '];',
        '',
      ].join('\n'));
    });

    it('refuses, exit 2, an edit that would land inside a comment, and writes nothing (a comma in a comment before the trailing one)', async () => {
      const dir = miniProject([
        "import { salesOrderModule } from './sales-order/module.js';",
        '',
        'export const modules = [salesOrderModule /* first, */ ,];',
        '',
      ].join('\n'));
      const before = snapshot(dir);
      expectCliFailure(await newService(optionalOnly, dir), 2, 'services/index.ts: the edit would leave memoModule out of the modules list');
      expect(snapshot(dir)).to.deep.equal(before);
    });

    it('leaves a file without a modules array literal alone: exit 1, with what to add by hand, and nothing written', async () => {
      const dir = miniProject("import { plugins } from './plugins.js';\n\nexport const modules = plugins.map((p) => p.module);\n");
      const before = snapshot(dir);
      expectCliFailure(await newService(optionalOnly, dir), 1,
        "services/index.ts: `modules` is not an array literal; add `import { memoModule } from './memo/module.js';` and memoModule to its modules list by hand");
      expect(snapshot(dir)).to.deep.equal(before);
    });
  });

  describe('a generated service, built and tested in a copy of the project', function () {
    // tsc over the whole project takes most of this; the machine may be busy with other builds.
    this.timeout(600_000);
    let full: CliResult;
    let document: CliResult;
    let build: CliResult;
    before(async () => {
      let others: CliResult[];
      ({ full, document, others, build } = await generated);
      for (const other of others) expect(other.code, other.stderr).to.equal(0);
    });

    it('writes the module, routes and tests, registers the module, and says what to do next', () => {
      expect(full.code, full.stderr).to.equal(0);
      expect(full.stderr).to.equal('');
      const files = generatedFiles('purchase-order', 'purchaseOrderId');
      for (const file of files) expect(full.stdout).to.include(`  ${file}\n`);
      expect(full.stdout).to.include("services/index.ts: added import { purchaseOrderModule } from './purchase-order/module.js';");
      expect(full.stdout).to.include('next steps:');
      // --action mark-paid: the declaration's key markPaid (routes group, proxy method), served by mark-paid.ts.
      expect(full.stdout).to.include('  routes/purchase-order/[_purchaseOrderId]/mark-paid.ts\n');
      expect(readFileSync(join(built, 'routes/purchase-order/[_purchaseOrderId]/mark-paid.ts'), 'utf8')).to.include('export const { POST } = purchaseOrder.routes.markPaid;');
      expect(readFileSync(join(built, 'services/purchase-order/purchase-order.ts'), 'utf8')).to.include("    markPaid: action({\n      summary: 'Mark paid a purchase order.',");
      expect(readFileSync(join(built, 'services/purchase-order/purchase-order-proxy.ts'), 'utf8')).to.include(', actions: { approve: true, markPaid: true } });');
      const index = readFileSync(join(built, 'services/index.ts'), 'utf8');
      expect(index).to.match(/^export const modules = \[salesOrderModule, customerModule, purchaseOrderModule, memoModule, stockLevelModule, salesInvoiceModule, checklistModule\] as const;$/m);
      for (const file of files) {
        const text = readFileSync(join(built, file), 'utf8');
        // One header line says how the file was made (the migrations' list: that migration make writes it); no other marker, and no `any`.
        if (file.endsWith('migrations/index.ts')) {
          expect(lines(text)[0], file).to.match(/^\/\/ Listed by `restlayer migration make`/);
          continue;
        }
        expect(lines(text)[0], file).to.match(/^\/\/ Made by `restlayer new service purchase-order --field title:text:required:max=60:sortable:filterable .*`/);
        expect(text.match(/restlayer new service/g), file).to.have.length(1);
        expect(text, file).to.not.match(/:\s*any\b|\bas any\b|<any>|@ts-|eslint-disable|GENERATED|DO NOT EDIT/);
      }
    });

    it('writes a master-detail service: a declaration with its child collection and totals, the child routes below the record, the child table with its key, index and totals', () => {
      expect(document.code, document.stderr).to.equal(0);
      const files = [...generatedFiles('sales-invoice', 'salesInvoiceId'), ...childRouteFiles('sales-invoice', 'salesInvoiceId', 'line', 'salesInvoiceLineId')];
      for (const file of files) expect(document.stdout).to.include(`  ${file}\n`);
      expect(document.stdout.split('\n').filter((line) => line.startsWith('  services/') || line.startsWith('  routes/') || line.startsWith('  test/'))).to.have.length(files.length);
      const migration = readFileSync(join(built, 'services/sales-invoice/migrations/0001-sales-invoice.ts'), 'utf8');
      expect(migration).to.include("references('sales_invoice.sales_invoice_id').onDelete('cascade')")
        .and.include("createIndex('ix_sales_invoice_line_parent').on('sales_invoice_line').columns(['sales_invoice_id', 'sales_invoice_line_id'])")
        .and.include("addColumn('amount_total', moneyType, (c) => c.notNull().defaultTo(0))")
        .and.include("addColumn('lines_total', moneyType, (c) => c.notNull().defaultTo(0))");
      const declaration = readFileSync(join(built, 'services/sales-invoice/sales-invoice.ts'), 'utf8');
      expect(declaration).to.include("const lines = child({\n  item: 'line',\n").and.include('  children: { lines },\n')
        .and.include("    lineTotal: field.money().derived(['quantity', 'amount'], (v) => new Decimal(v.quantity).times(v.amount)),\n")
        .and.include("    linesTotal: field.money().sum('lines', 'lineTotal'),\n").and.not.include('lineTotalTotal');
      expect(readFileSync(join(built, 'routes/sales-invoice/[_salesInvoiceId]/line/[_salesInvoiceLineId].ts'), 'utf8'))
        .to.include('export const { GET, PUT, PATCH, DELETE } = salesInvoice.routes.lines.item;');
      for (const file of files) {
        const text = readFileSync(join(built, file), 'utf8');
        expect(text, file).to.not.match(/:\s*any\b|\bas any\b|<any>|@ts-|eslint-disable/);
      }
    });

    it("names a permission on every route (<service>.read, .create, .update, .delete; a child's writes update) and the declaration's scopes, none while it has none", async function () {
      if (build.code !== 0) this.skip();
      const listed = await runCli(['routes', '--json'], { cli: join(built, 'dist/bin/restlayer.js'), cwd: built, env: childEnv(), timeoutMs: 60_000 });
      expect(listed.code, listed.stderr).to.equal(0);
      const routes = (JSON.parse(listed.stdout) as { verb: string; path: string; permission: string; scopes: string[] }[])
        .map((r) => `${r.verb} ${r.path} ${r.permission}${r.scopes.length ? `:${r.scopes.join(',')}` : ''}`);
      const of = (prefix: string) => routes.filter((r) => r.split(' ')[1].startsWith(prefix)).sort();
      expect(of('/purchase-order')).to.deep.equal([
        'DELETE /purchase-order/{purchaseOrderId} purchase-order.delete', 'GET /purchase-order purchase-order.read',
        'GET /purchase-order/{purchaseOrderId} purchase-order.read', 'GET /purchase-order/{purchaseOrderId}/history purchase-order.read',
        'PATCH /purchase-order/{purchaseOrderId} purchase-order.update', 'POST /purchase-order purchase-order.create',
        'POST /purchase-order/{purchaseOrderId}/approve purchase-order.approve', 'POST /purchase-order/{purchaseOrderId}/mark-paid purchase-order.mark-paid',
        'PUT /purchase-order/{purchaseOrderId} purchase-order.update',
      ]);
      expect(of('/sales-invoice/{salesInvoiceId}/line')).to.deep.equal([
        'DELETE /sales-invoice/{salesInvoiceId}/line/{salesInvoiceLineId} sales-invoice.update', 'GET /sales-invoice/{salesInvoiceId}/line sales-invoice.read',
        'GET /sales-invoice/{salesInvoiceId}/line/{salesInvoiceLineId} sales-invoice.read', 'PATCH /sales-invoice/{salesInvoiceId}/line/{salesInvoiceLineId} sales-invoice.update',
        'POST /sales-invoice/{salesInvoiceId}/line sales-invoice.update', 'PUT /sales-invoice/{salesInvoiceId}/line/{salesInvoiceLineId} sales-invoice.update',
      ]);
      // stock-level's declaration got a scope (above): every one of its routes names it.
      expect(of('/stock-level')).to.have.length(7).and.satisfy((all: string[]) => all.every((r) => r.endsWith(':own')));
      for (const file of ['services/purchase-order/purchase-order.ts', 'services/purchase-order/migrations/0001-purchase-order.ts', 'routes/purchase-order/[_purchaseOrderId]/history.ts']) {
        expect(lines(readFileSync(join(built, file), 'utf8'))[0], file).to.match(/^\/\/ Made by `restlayer new service purchase-order /);
      }
    });

    it('keeps lib/ free of imports from services/ and routes/ (the templates build those paths)', () => {
      const layer = [...snapshot(join(built, 'lib'))];
      expect(layer.filter(([file]) => file.startsWith('scaffold/'))).to.not.be.empty;
      // The starter writes a new project's files as text, its route files' imports of its services included.
      const importing = layer.filter(([file, text]) => !file.startsWith('starter/') && /from '(\.\.\/)+(services|routes)\//.test(text)).map(([file]) => file);
      expect(importing).to.deep.equal([]);
    });

    it('refuses to overwrite the module (exit 1) unless --force, which writes the same files and lists the module once', async () => {
      const before = snapshot(built);
      expectCliFailure(await newService(fullService, built), 1, 'services/purchase-order, routes/purchase-order, test/purchase-order already exist');
      const forced = await newService([...fullService, '--force'], built);
      expect(forced.code, forced.stderr).to.equal(0);
      expect(forced.stdout).to.not.include('services/index.ts:');
      expect(snapshot(built)).to.deep.equal(before);
    });

    it('compiles under the project\'s strict tsconfig', () => {
      expect(build.code, build.stdout + build.stderr).to.equal(0);
    });

    it('gives every table an index of the id alone on SQLite, which a deep page with no filter walks instead of the rows; a CN count on a long text reads its FTS table', async function () {
      if (build.code !== 0) this.skip();
      for (const [kebab, camel, table] of [['purchase-order', 'purchaseOrder', 'purchase_order'], ['memo', 'memo', 'memo']]) {
        const file = pathToFileURL(join(built, 'dist/services', kebab, 'migrations/index.js')).href;
        const migrations = (await import(file) as Record<string, (dialect: StorageDialect) => Record<string, Migration>>)[`${camel}Migrations`];
        const memory = { Storage: { Provider: 'sqlite', Sqlite: { Path: ':memory:', ReadWorkers: 0 }, SampleData: false } };
        const storage = await openStorage(loadConfig({ env: { NODE_ENV: 'test' }, overrides: memory }).config, [], { prepare: false });
        try {
          for (const migration of Object.values(migrations(storage.dialect))) await migration.up(storage.db);
          // The keys of a page past the middle, as lib/storage/list-query.ts reads them: from the end.
          const keys = sql.raw(`explain query plan select t.${table}_id as list_key from ${table} as t order by t.${table}_id desc limit 51 offset 1000`);
          const plan = (await keys.execute(storage.db)).rows.map((row) => (row as { detail: string }).detail);
          expect(plan, kebab).to.deep.equal([`SCAN t USING COVERING INDEX ix_${table}_list_key`]);
          if (kebab !== 'purchase-order') continue;
          // The declaration's list definition as the layer runs it: title (max=60) is in its fullText.
          const declaration = pathToFileURL(join(built, 'dist/services', kebab, `${kebab}.js`)).href;
          const list = (await import(declaration) as Record<string, { list: ListDefinition<'title'> }>)[camel].list;
          const { count } = listSql(list, { title: { operator: 'CN', values: ['001'] }, getTotalCount: true }, storage.dialect, 50);
          const compiled = count!.compile(storage.db);
          const counting = await storage.db.executeQuery<{ detail: string }>(CompiledQuery.raw(`explain query plan ${compiled.sql}`, [...compiled.parameters]));
          const steps = counting.rows.map((row) => row.detail);
          expect(steps.some((step) => /^SCAN purchase_order_title_fts VIRTUAL TABLE INDEX/.test(step)), steps.join('\n')).to.equal(true);
        } finally {
          await storage.close();
        }
      }
    });

    it("refuses a new service whose field index is another generated service's index of the id (exit 1)", async () => {
      const before = snapshot(built);
      expectCliFailure(await newService(['new', 'service', 'memo-list', '--field', 'key:integer:sortable'], built), 1,
        'services/memo/migrations/0001-memo.ts already creates the table or index ix_memo_list_key: choose another service or field name');
      expect(snapshot(built)).to.deep.equal(before);
    });

    it("passes its own tests and the drift test on SQLite", async function () {
      if (build.code !== 0) this.skip();
      const run = await runNode(built, ['node_modules/mocha/bin/mocha.js', ...generatedTests], childEnv(), 300_000);
      const counts = mochaCounts(run);
      expect(run.code, run.stdout + run.stderr).to.equal(0);
      expect(counts.failing).to.equal(0);
      expect(counts.passing).to.be.at.least(150);
      expect(run.stdout).to.include('no drift between proxies and routes');
      expect(run.stdout).to.include('stock level with a scope added to its declaration').and.include('checklist with a scope added to its declaration')
        // The shared suite over the declarations, their child collection's part and its totals among it.
        .and.include('linesTotal is the exact sum of the lines\' lineTotal, and 0 without lines').and.include('entries: the read holds them in the order sent');
      expect(run.stderr).to.not.match(stackLine);
    });

    it('passes its own tests and the drift test on PostgreSQL (with Redis)', async function () {
      if (build.code !== 0) this.skip();
      await requireServices(this, ['postgres', 'redis'], 'the generated tests on PostgreSQL');
      const env = childEnv({
        RESTLAYER_TEST_STORAGE: 'postgres', RESTLAYER_TEST_REDIS: 'true', CI: process.env.CI,
        RESTLAYER_TEST_PG_URL: process.env.RESTLAYER_TEST_PG_URL, RESTLAYER_TEST_REDIS_URL: process.env.RESTLAYER_TEST_REDIS_URL,
      });
      const run = await runNode(built, ['node_modules/mocha/bin/mocha.js', ...generatedTests], env, 300_000);
      const counts = mochaCounts(run);
      expect(run.code, run.stdout + run.stderr).to.equal(0);
      expect(counts.failing).to.equal(0);
      // The pending tests: the shared suite lists stock-level's and checklist's scopes, which their own scope tests cover instead.
      expect(counts.pending).to.equal(2);
      expect(run.stdout).to.include('scope own: give resourceSuite scopes.own');
      expect(run.stdout).to.include('stock level with a scope added to its declaration').and.include('checklist with a scope added to its declaration');
      expect(counts.passing).to.be.at.least(150);
    });
  });
});
