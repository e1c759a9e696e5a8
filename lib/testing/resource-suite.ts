import { suiteRoles, permissionTests, scopeTests } from './resource-suite-access.js';
import { actionTests } from './resource-suite-actions.js';
import { type ResourceSuiteOptions, SuiteRun } from './resource-suite-context.js';
import { childTests } from './resource-suite-children.js';
import { crudTests } from './resource-suite-crud.js';
import { historyTests } from './resource-suite-history.js';
import { listTests } from './resource-suite-list.js';
import { restoreTests } from './resource-suite-restore.js';
import { updateTests } from './resource-suite-updates.js';
import { validationTests } from './resource-suite-validation.js';
import { type JsonObject, startTestServer } from './test-server.js';

/**
 * The tests every declared resource passes, generated from its declaration: CRUD, validation of each field, unique
 * keys, list criteria of each filter field, sorts, paging, counts and cursors, history, restore of a soft-deletable
 * resource, child collections, actions, permissions and each declared record scope — over HTTP against a real server of the application on the run's store. Call it inside
 * `describeStores(title, () => { resourceSuite({ application, resource }); })` to run it on every store; the team's
 * own tests of its rules sit beside it.
 *
 * Valid records are generated from the field types unless the team gives `sample` (its rules may forbid generated
 * values): then the suite sends only those records, and varies them only into input the layer must refuse.
 */
export function resourceSuite(options: ResourceSuiteOptions): void {
  const run = new SuiteRun(options);
  describe(`resource ${run.model.name} (resourceSuite)`, function () {
    this.timeout(60_000);
    before(async () => {
      run.started(await startTestServer({
        application: options.application,
        config: withLineCap(withRoles(options.config ?? {}, suiteRoles(run))),
        logLevel: 'error',
      }));
    });
    after(() => run.server?.stop());

    describe('create, read and delete', () => crudTests(run));
    describe('update and patch', () => updateTests(run));
    describe('history', () => historyTests(run));
    if (run.model.softDelete) describe('soft delete and restore', () => restoreTests(run));
    describe('actions', () => actionTests(run));
    childTests(run);
    describe('validation from the field definitions', () => validationTests(run));
    describe('list: paging, counts, cursors, sorts and criteria', () => listTests(run));
    describe('permissions and record scopes', () => {
      permissionTests(run);
      scopeTests(run);
    });
  });
}

/** The team's settings with the suite's roles added to theirs. */
function withRoles(config: JsonObject, roles: Record<string, string[]>): JsonObject {
  const authorization = (config.Authorization ?? {}) as JsonObject;
  return { ...config, Authorization: { ...authorization, Roles: { ...((authorization.Roles ?? {}) as JsonObject), ...roles } } };
}

/**
 * The cap of children per record the suite's server holds to (Documents:MaxLines), unless the team's settings name
 * one: low, so that the cap's test fills a record to it in one small create. The suite's records hold fewer.
 */
const SUITE_MAX_LINES = 8;

/** The team's settings with Documents:MaxLines at the suite's cap when they do not set it. */
function withLineCap(config: JsonObject): JsonObject {
  const documents = (config.Documents ?? {}) as JsonObject;
  return documents.MaxLines === undefined ? { ...config, Documents: { ...documents, MaxLines: SUITE_MAX_LINES } } : config;
}
