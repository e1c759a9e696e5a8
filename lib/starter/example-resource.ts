import { documentSpec } from '../scaffold/child-spec.js';
import { firstMigration } from '../scaffold/declared-fields.js';
import { migrationIndexFile } from '../scaffold/migration-file.js';

/**
 * The started project's example: tasks, a resource declared as data (src/services/task/task.ts), served by the
 * layer at /task with its list criteria, history and concurrency check. Its table is the one the scaffold
 * (`restlayer new service`) makes for the same fields, so a project's first migration reads like its next services'.
 */
const FIELDS = ['title:text:required:max=200:sortable:filterable', 'done:boolean:sortable:filterable', 'dueDate:date:sortable:filterable'];

export function exampleResourceFiles(command: string): Record<string, string> {
  return {
    'src/services/task/task.ts': `import { field, resource } from 'restlayer';

/**
 * Tasks: served at /task (list, create) and /task/{taskId} (read, replace, patch, delete) with its history at
 * /task/{taskId}/history. Lists filter and sort by every field; \`title\` also by what it contains (title.operator=CN).
 * A field added here needs its column: the project's CLI writes the next migration (\`migration make\`; README.md, "Adding a field").
 */
export const task = resource({
  name: 'task',
  fields: {
    title: field.text({ max: 200 }).required().sortable().filter().contains(),
    done: field.boolean().default(false).sortable().filter(),
    dueDate: field.date().sortable().filter(),
  },
});
`,
    'src/services/task/module.ts': `import { serviceModule } from 'restlayer';
import { taskMigrations } from './migrations/index.js';
import { task } from './task.js';

/** The task module: its table's migrations and the resource the layer serves over it. */
export const taskModule = serviceModule({
  name: 'task',
  migrations: taskMigrations,
  resources: [task],
});
`,
    // What the scaffold and \`migration make\` write: one file per migration, listed by the folder's index.
    'src/services/task/migrations/0001-task.ts': firstMigration(documentSpec('task', FIELDS, command)),
    'src/services/task/migrations/index.ts': migrationIndexFile('taskMigrations', ['0001-task']),
    // One line each: the layer serves the declaration.
    'src/routes/task/index.ts': "import { task } from '../../services/task/task.js';\n\nexport const { GET, POST } = task.routes.collection;\n",
    'src/routes/task/[_taskId].ts': "import { task } from '../../services/task/task.js';\n\nexport const { GET, PUT, PATCH, DELETE } = task.routes.item;\n",
    'src/routes/task/[_taskId]/history.ts': "import { task } from '../../../services/task/task.js';\n\nexport const { GET } = task.routes.history;\n",
    'src/test/task/task.test.ts': `import { expect } from 'chai';
import { type TestServer, describeStores, expectError, expectOk, requireStoreDeclarations, startTestServer } from 'restlayer/testing';
import { type AppServices, application } from '../../app.js';

// Every suite says on which stores it runs: describeStores runs it on SQLite, and on PostgreSQL with
// mocha --store postgres (npm run test:postgres) or RESTLAYER_TEST_STORAGE=postgres.
requireStoreDeclarations();

describeStores('tasks', () => {
  let server: TestServer<AppServices>;
  // A server of its own on a free port, over a new database; its calls carry an Administrator's token unless told otherwise.
  before(async () => {
    server = await startTestServer<AppServices>({ application });
  });
  after(() => server.stop());

  it('creates a task, reads it, lists it, patches it and deletes it', async () => {
    const created = await server.call('/task', { method: 'POST', body: { title: 'Write the first test', dueDate: '2030-01-31' } });
    const { result } = expectOk(created, 201);
    const location = created.headers.get('Location')!;
    expect(location).to.equal(\`/task/\${result.taskId}\`);

    const read = expectOk(await server.call(location)).result;
    expect(read).to.include({ taskId: result.taskId, title: 'Write the first test', done: false, revisionNumber: 1 });

    const listed = expectOk(await server.call('/task?title=first&title.operator=CN&getTotalCount=true'));
    expect(listed.totalCount).to.equal(1);

    const patched = expectOk(await server.call(location, { method: 'PATCH', body: { done: true, revisionNumber: 1 } })).result;
    expect(patched.revisionNumber).to.equal(2);
    expect(expectOk(await server.call(location)).result.done).to.equal(true);

    expectOk(await server.call(location, { method: 'DELETE' }));
    expectError(await server.call(location), 404, 'Entity_NotFound');
  });

  it('refuses a task without a title, naming the field', async () => {
    expectError(await server.call('/task', { method: 'POST', body: { done: true } }), 400, 'Input_Required', 'title');
  });

  it('answers 401 to a call without a token', async () => {
    expect((await server.call('/task', { token: null })).status).to.equal(401);
  });
});
`,
  };
}
