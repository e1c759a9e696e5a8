import { allModules } from '../create-services.js';
import { LAYOUT_KEYS, type ProjectLayout } from '../scaffold/layout.js';
import { makeMigrations } from '../scaffold/make-migration.js';
import { ScaffoldError } from '../scaffold/scaffold-error.js';
import { cliApplication } from './application-context.js';
import { CliError } from './cli-error.js';
import { printJson } from './print-json.js';

interface MigrationMakeOptions extends Partial<ProjectLayout> {
  allowDrop?: boolean;
  check?: boolean;
  json?: boolean;
}

/**
 * `restlayer migration make` (declared in commands.ts): writes the next migration of each module whose declarations
 * ask for more than its migrations build, or says that none does. Drops and type changes only with --allow-drop.
 */
export async function makeMigration(opts: MigrationMakeOptions): Promise<void> {
  const application = await cliApplication();
  const layout: Partial<ProjectLayout> = {};
  for (const key of LAYOUT_KEYS) if (opts[key] !== undefined) layout[key] = opts[key];
  const made = `restlayer migration make${opts.allowDrop ? ' --allow-drop' : ''}`;
  let result;
  try {
    result = await makeMigrations(application.modules, allModules(application.modules), { root: process.cwd(), layout, allowDrop: opts.allowDrop, made, check: opts.check });
  } catch (err) {
    if (err instanceof ScaffoldError) throw new CliError(err.message, err.kind === 'usage' ? 2 : 1);
    throw err;
  }
  const { withheld } = result;
  // --check: a migration the declarations need is a failure (exit 1), for CI; nothing is written either way.
  if (opts.check && result.made.length) process.exitCode = 1;
  if (opts.json) return printJson({ migrations: result.made, withheld, written: !opts.check });
  const out: string[] = [];
  if (!result.made.length) {
    out.push(withheld.length
      ? 'nothing written: the schema the migrations build has everything the declarations need, but for the drops below'
      : 'nothing to do: the schema the migrations build has every table, column and index the declarations need');
  }
  for (const m of result.made) {
    out.push(`${opts.check ? 'would write' : 'wrote'} ${m.file} (module ${m.module}):`, ...m.steps.map((s) => `  ${s}`));
    if (!opts.check) out.push(m.index
      ? `  listed in ${m.index}; read it, build, and commit both`
      : `  module ${m.module} lists its migrations by hand: add '${m.file.replace(/^.*\//, '').replace(/\.ts$/, '')}': migration(dialect) to them`);
  }
  for (const w of withheld) out.push(`not changed without --allow-drop: ${w}`);
  process.stdout.write(`${out.join('\n')}\n`);
}
