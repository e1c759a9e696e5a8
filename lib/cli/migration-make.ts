import { allModules } from '../create-services.js';
import { writeDeclaredRoutes } from '../scaffold/declared-routes.js';
import { LAYOUT_KEYS, type ProjectLayout, projectLayout } from '../scaffold/layout.js';
import { makeMigrations } from '../scaffold/make-migration.js';
import { updateProxyFiles } from '../scaffold/proxy-address.js';
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
  // The route files of paths the declarations added (an action, restore, a child collection): one line each.
  const found = projectLayout(process.cwd(), layout);
  const routes = writeDeclaredRoutes(application.modules, process.cwd(), found, opts.check);
  // And the proxy's address: the actions and restore it calls (the compiler would ask for them).
  const proxies = await updateProxyFiles(application.modules, process.cwd(), found, opts.check);
  // --check: a migration, route file or proxy entry the declarations need is a failure (exit 1), for CI; nothing is written either way.
  if (opts.check && (result.made.length || routes.written.length || routes.byHand.length || proxies.length)) process.exitCode = 1;
  if (opts.json) return printJson({ migrations: result.made, withheld, routes: routes.written, routesByHand: routes.byHand, proxies, written: !opts.check });
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
  for (const file of routes.written) out.push(`${opts.check ? 'would write' : 'wrote'} ${file}: the route file of a path the declaration serves`);
  for (const line of routes.byHand) out.push(`write by hand: ${line}`);
  for (const p of proxies) out.push(p.skipped ?? `${opts.check ? 'would add' : 'added'} ${p.added.join(', ')} to the address in ${p.file}`);
  for (const w of withheld) out.push(`not changed without --allow-drop: ${w}`);
  process.stdout.write(`${out.join('\n')}\n`);
}
