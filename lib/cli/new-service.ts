import { LAYOUT_KEYS, type ProjectLayout } from '../scaffold/layout.js';
import { ScaffoldError } from '../scaffold/scaffold-error.js';
import { documentSpec } from '../scaffold/child-spec.js';
import { writeService } from '../scaffold/write-service.js';
import { ConfigError, loadConfig } from '../config/load.js';
import type { AppConfig } from '../config/schema.js';
import { appliedMigrations, storageName } from '../storage/reset.js';
import { CliError } from './cli-error.js';
import { line } from './terminal-text.js';
import { printJson } from './print-json.js';

interface NewServiceOptions extends Partial<ProjectLayout> {
  field: string[];
  child: string[];
  childField: string[];
  childTotal: string[];
  action: string[];
  force?: boolean;
  json?: boolean;
}

/**
 * A module whose migrations the configured (development) database has run must not get a new 0001: a migration never
 * runs twice, so the database would keep the old table and every route of the service would fail against it. The
 * check reads the database and changes nothing; a database it cannot read is said, and does not stop the scaffold.
 */
async function refuseWhatTheDatabaseRan(module: string): Promise<void> {
  let config: AppConfig;
  try {
    config = loadConfig({ writeNothing: true, secrets: false }).config;
  } catch (err) {
    if (err instanceof ConfigError) return;
    throw err;
  }
  let ran: string[];
  try {
    ran = await appliedMigrations(config, module);
  } catch (err) {
    process.stderr.write(line`warning: could not read ${storageName(config)} to see whether it ran the migrations of ${module}: ${(err as Error).message}`);
    return;
  }
  if (!ran.length) return;
  throw new CliError(`${storageName(config)} has run the migrations of ${module} (${ran.join(', ')}): writing the service again would `
    + 'give it a new 0001 that never runs, and its routes would fail against the table the old one made. Start the development database over '
    + 'first (restlayer db reset), or change the schema with a new migration instead');
}

/**
 * `restlayer new service NAME --field name:type[:option...]...` (declared in commands.ts): writes a header-only service as a
 * declaration the layer runs, or (with --child) a master-detail service the team then owns.
 */
export async function newService(name: string, opts: NewServiceOptions): Promise<void> {
  const command = [
    'restlayer new service', name, ...opts.field.map((f) => `--field ${f}`), ...(opts.child ?? []).map((c) => `--child ${c}`),
    ...opts.childField.map((f) => `--child-field ${f}`), ...opts.childTotal.map((t) => `--child-total ${t}`),
    ...(opts.action ?? []).map((a) => `--action ${a}`),
  ].join(' ');
  const flags: Partial<ProjectLayout> = {};
  for (const key of LAYOUT_KEYS) if (opts[key] !== undefined) flags[key] = opts[key];
  try {
    const spec = documentSpec(name, opts.field, command, { child: opts.child, childField: opts.childField, childTotal: opts.childTotal, action: opts.action });
    await refuseWhatTheDatabaseRan(spec.kebab);
    const written = await writeService(spec, { root: process.cwd(), force: opts.force, layout: flags });
    const { layout } = written;
    if (opts.json) return printJson({ service: `I${spec.pascal}Service`, path: `/${spec.kebab}`, files: written.files, registration: written.registration });
    const tests = `${layout.tests}/${spec.kebab}`.replace(/^src\//, '');
    const folder = `${layout.services}/${spec.kebab}`;
    const ownCode = [
      `  2. the declaration is yours: ${folder}/${spec.kebab}.ts (a field is one line; scopes, rules and actions go there too)`,
      '  3. after a change of it, your CLI\'s `migration make` writes the next migration into migrations/: read it, commit it',
    ];
    process.stdout.write([
      `created I${spec.pascal}Service, served at /${spec.kebab}:`,
      ...written.files.map((f) => `  ${f}`),
      ...written.registration.map((change) => `${layout.modules}: ${change}`),
      'next steps:',
      `  1. build and run its tests: npx tsc -p tsconfig.json && npx mocha 'dist/${tests}/**/*.test.js'`,
      '     (on PostgreSQL: RESTLAYER_TEST_STORAGE=postgres RESTLAYER_TEST_REDIS=true in front of mocha)',
      ...ownCode,
      "  4. the application's serve (its own CLI, runCli({ application }); in a dependent project not `npx restlayer serve`,",
      '     which serves restlayer\'s sample) creates the table on its next start',
      `  5. who may use it: its routes need ${spec.kebab}.read, .create, .update, .delete; Administrator and Viewer (*.read) reach`,
      `     them by default, other roles once Authorization:Roles grants them (e.g. "${spec.kebab}.*"); a record scope goes in`,
      "     the declaration's scopes (docs/access.md, docs/record-scopes.md)",
      '',
    ].join('\n'));
  } catch (err) {
    if (err instanceof ScaffoldError) throw new CliError(err.message, err.kind === 'usage' ? 2 : 1);
    throw err;
  }
}
