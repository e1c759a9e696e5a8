import type { Command } from 'commander';
import { LAYOUT_KEYS, type ProjectLayout } from '../scaffold/layout.js';
import { ScaffoldError } from '../scaffold/scaffold-error.js';
import { documentSpec } from '../scaffold/child-spec.js';
import { writeService } from '../scaffold/write-service.js';
import { CliError } from './cli-error.js';
import { collect } from './options.js';
import { printJson } from './service-context.js';

interface NewServiceOptions extends Partial<ProjectLayout> {
  field: string[];
  child: string[];
  childField: string[];
  childTotal: string[];
  force?: boolean;
  json?: boolean;
}

/** `restlayer new service NAME --field name:type[:option...]...`: writes a CRUD service the team then owns. */
export function newCommand(program: Command) {
  // Usage errors are one line, like every other error (contract part 8): no help text or "Did you mean" line after them.
  const create = program.command('new').description('add code to the project').showSuggestionAfterError(false);

  create
    .command('service <name>')
    .showSuggestionAfterError(false)
    .description('write a CRUD service (module, routes, proxy, tests) into the project in the current folder, and register it in its modules list')
    .option('--field <spec>', 'a field: name:type[:option...]; type text, integer, decimal, money, date, boolean or lookup=<table>; options required, max=N (text), sortable, filterable, unique (repeatable)', collect, [])
    .option('--child <name>', 'a child collection (kebab-case, e.g. line): records written with the parent as one document, served at /<service>/{id}/<name>', collect, [])
    .option('--child-field <spec>', "a field of the child: <child>:name:type[:option...]; type text, integer, decimal, money or boolean; options required, max=N (repeatable)", collect, [])
    .option('--child-total <spec>', "a money total the parent keeps of a child's money field: <child>:<field> gives the parent <field>Total (repeatable)", collect, [])
    .option('--services <folder>', 'the folder of service modules (default: package.json "restlayer.services", else services or src/services)')
    .option('--routes <folder>', "the application's routes folder (default: \"restlayer.routes\", else routes or src/routes)")
    .option('--tests <folder>', 'the folder of tests (default: "restlayer.tests", else test or src/test)')
    .option('--modules <file>', 'the file exporting modules, route and application (default: "restlayer.modules", else services/index.ts or src/app.ts)')
    .option('--force', 'overwrite the generated files of an existing service of that name')
    .option('--json', 'machine-readable output')
    .action(async (name: string, opts: NewServiceOptions) => {
      const command = [
        'restlayer new service', name, ...opts.field.map((f) => `--field ${f}`), ...(opts.child ?? []).map((c) => `--child ${c}`),
        ...opts.childField.map((f) => `--child-field ${f}`), ...opts.childTotal.map((t) => `--child-total ${t}`),
      ].join(' ');
      const flags: Partial<ProjectLayout> = {};
      for (const key of LAYOUT_KEYS) if (opts[key] !== undefined) flags[key] = opts[key];
      try {
        const spec = documentSpec(name, opts.field, command, { child: opts.child, childField: opts.childField, childTotal: opts.childTotal });
        const written = await writeService(spec, { root: process.cwd(), force: opts.force, layout: flags });
        const { layout } = written;
        if (opts.json) return printJson({ service: `I${spec.pascal}Service`, path: `/${spec.kebab}`, files: written.files, registration: written.registration });
        const tests = `${layout.tests}/${spec.kebab}`.replace(/^src\//, '');
        process.stdout.write([
          `created I${spec.pascal}Service, served at /${spec.kebab}:`,
          ...written.files.map((f) => `  ${f}`),
          ...written.registration.map((change) => `${layout.modules}: ${change}`),
          'next steps:',
          `  1. build and run its tests: npx tsc -p tsconfig.json && npx mocha 'dist/${tests}/**/*.test.js'`,
          '     (on PostgreSQL: RESTLAYER_TEST_STORAGE=postgres RESTLAYER_TEST_REDIS=true in front of mocha)',
          `  2. make the code yours: business rules in ${layout.services}/${spec.kebab}/sql-${spec.kebab}-service.ts, wire models in ${spec.kebab}-models.ts`,
          `  3. change the schema with a new migration in ${layout.services}/${spec.kebab}/migrations.ts (0002-...), never by editing 0001`,
          "  4. the application's serve (its own CLI, runCli({ application }); in a dependent project not `npx restlayer serve`,",
          '     which serves restlayer\'s sample) creates the table on its next start',
          `  5. who may use it: its routes need ${spec.kebab}.read, .create, .update, .delete; Administrator and Viewer (*.read) reach`,
          `     them by default, other roles once Authorization:Roles grants them (e.g. "${spec.kebab}.*"); a record scope goes in`,
          `     ${spec.kebab}-scopes.ts (docs/access.md, docs/record-scopes.md)`,
          '',
        ].join('\n'));
      } catch (err) {
        if (err instanceof ScaffoldError) throw new CliError(err.message, err.kind === 'usage' ? 2 : 1);
        throw err;
      }
    });
}
