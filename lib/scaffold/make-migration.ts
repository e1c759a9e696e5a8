import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ServiceModule } from '../modules.js';
import { sqliteDialect } from '../storage/dialects/sqlite-dialect.js';
import type { SchemaModule } from '../storage/migrations.js';
import { type ProjectLayout, projectLayout, serviceFile } from './layout.js';
import { MIGRATION_FILE, describeStep, migrationFile, migrationIndexFile } from './migration-file.js';
import { serviceNames } from './names.js';
import { ScaffoldError } from './scaffold-error.js';
import { type Step, planSchema } from './schema-plan.js';
import { schemaOfMigrations } from './schema-snapshot.js';

export interface MakeOptions {
  /** The project folder: the one holding package.json. */
  readonly root: string;
  readonly layout?: Partial<ProjectLayout>;
  /** Drops columns no field is stored in, and changes a column's type by a drop and an add. */
  readonly allowDrop?: boolean;
  /** What made the files, for their first line. */
  readonly made: string;
  /** Write nothing: only say what would be written (a CI check that the migrations keep up with the declarations). */
  readonly check?: boolean;
}

/** One migration written. */
export interface MadeMigration {
  readonly module: string;
  /** Relative to the project folder. */
  readonly file: string;
  readonly steps: readonly string[];
  /** The module's migrations/index.ts that lists it, written again; undefined when the module lists its migrations by hand. */
  readonly index?: string;
}

export interface MakeResult {
  readonly made: MadeMigration[];
  /** Drops and type changes left out for want of --allow-drop. */
  readonly withheld: string[];
}

/** The name of the next migration: after every name the module has (`0007` after `0006-…`), then what it does. */
function nextName(existing: readonly string[], module: string, steps: readonly Step[]): string {
  const last = Math.max(0, ...existing.map((name) => Number(/^(\d+)/.exec(name)?.[1] ?? 0)));
  const columns = steps.flatMap((s) => (s.kind === 'add-column' ? [s.column.name] : []));
  const what = steps.some((s) => s.kind === 'create-table') ? module
    : columns.length ? `${module}-${columns.join('-')}`
      : steps.some((s) => s.kind === 'drop-column') ? `${module}-drop` : `${module}-indexes`;
  const name = `${String(last + 1).padStart(4, '0')}-${what.replace(/_/g, '-')}`.slice(0, 60).replace(/-+$/, '');
  // The migrator runs names in order and refuses one that sorts before a migration that ran.
  if (existing.some((e) => e >= name)) throw new ScaffoldError(`module ${module}: its migration names (${existing.join(', ')}) leave no next name after them`, 'conflict');
  return name;
}

/** The export name of a module's migrations/index.ts: the one it has, else `<camel>Migrations`. */
function indexExport(indexFile: string, module: string): string {
  const found = existsSync(indexFile) && /export const (\w+)\s*=/.exec(readFileSync(indexFile, 'utf8'));
  return found ? found[1] : `${serviceNames(module).camel}Migrations`;
}

/**
 * Writes a module's migration file into `<services>/<module>/migrations/` and, when the module's migrations are listed
 * by that folder's index.ts (or it has none yet), writes the index again with it.
 */
export function writeMigration(root: string, folder: string, module: string, name: string, text: string, listed: boolean): { file: string; index?: string } {
  const dir = join(root, folder);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `${name}.ts`), text);
  if (!listed) return { file: `${folder}/${name}.ts` };
  const names = readdirSync(dir).map((f) => f.replace(/\.ts$/, '')).filter((f) => MIGRATION_FILE.test(f));
  const indexFile = join(dir, 'index.ts');
  writeFileSync(indexFile, migrationIndexFile(indexExport(indexFile, module), names));
  return { file: `${folder}/${name}.ts`, index: `${folder}/index.ts` };
}

/**
 * `restlayer migration make`: runs every migration into a scratch SQLite database (lib/scaffold/schema-snapshot.ts),
 * compares what they built with each module's resources, and writes the next migration of each module whose
 * declarations ask for more. Nothing to do: nothing written.
 */
export async function makeMigrations(modules: readonly ServiceModule[], all: readonly SchemaModule[], options: MakeOptions): Promise<MakeResult> {
  const layout = projectLayout(options.root, options.layout);
  let schema;
  try {
    schema = await schemaOfMigrations(all);
  } catch (err) {
    throw new ScaffoldError(`the migrations do not run on a scratch SQLite database, so their schema cannot be read: ${(err as Error).message}`, 'conflict');
  }
  const made: MadeMigration[] = [];
  const withheld: string[] = [];
  for (const module of modules) {
    if (!module.resources?.length) continue;
    const plan = planSchema(module.resources.map((r) => r.model), schema, { allowDrop: options.allowDrop });
    withheld.push(...plan.withheld);
    if (!plan.steps.length) continue;
    // deriveStored imports the declaration from the module's folder, where the scaffold puts it; elsewhere the file says what to write.
    const steps = plan.steps.map((step) => (step.kind !== 'derive' || existsSync(join(options.root, serviceFile(layout, module.name, step.name)))
      ? step : { ...step, declaration: undefined }));
    const existing = Object.keys(module.migrations?.(sqliteDialect) ?? {});
    const name = nextName(existing, module.name, steps);
    const folder = `${layout.services}/${module.name}/migrations`;
    const listed = !existing.length || existsSync(join(options.root, folder, 'index.ts'));
    if (options.check) {
      made.push({ module: module.name, file: `${folder}/${name}.ts`, steps: steps.map(describeStep), ...(listed ? { index: `${folder}/index.ts` } : {}) });
      continue;
    }
    const written = writeMigration(options.root, folder, module.name, name, migrationFile(steps, options.made), listed);
    made.push({ module: module.name, ...written, steps: steps.map(describeStep) });
  }
  return { made, withheld };
}
