import type { PlannedColumn, Step } from './schema-plan.js';

/**
 * The text of one migration file made by `restlayer migration make` (and the scaffold's first): Kysely's schema
 * builder and the layer's index makers, given the dialect, so one file serves SQLite and PostgreSQL as the
 * hand-written migrations do. The team reads it and commits it; once it has run somewhere it is never edited.
 */

const literal = (value: string | number | boolean) => (typeof value === 'string' ? `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'` : String(value));

function columnLine(c: PlannedColumn, key?: string): string[] {
  if (c.name === key) return [`      .addColumn('${c.name}', 'integer', (c) => dialect.identity(c))`];
  const constraints = [
    c.notNull && '.notNull()', c.defaultTo !== undefined && `.defaultTo(${literal(c.defaultTo)})`, c.parent && `.references('${c.parent}').onDelete('cascade')`,
  ].filter(Boolean).join('');
  return [
    ...(c.note ? [`      // ${c.note}.`] : []),
    `      .addColumn('${c.name}', ${c.type.code}${constraints ? `, (c) => c${constraints}` : ''})`,
  ];
}

/** The variable holding the index makers of `table` (`listIndexes`, declared once per table at the top of `up`). */
const listsOf = (table: string) => `${table.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase())}Lists`;

/** The code of one step, inside `up`. */
function stepLines(step: Step): string[] {
  switch (step.kind) {
    case 'create-table': return [
      `    await db.schema.createTable('${step.table}')`,
      ...columnLine({ name: step.key, type: { code: "'integer'", sqlite: 'integer' }, notNull: true }, step.key),
      ...step.columns.flatMap((c) => columnLine(c)),
      '      .execute();',
    ];
    case 'add-column': return [
      ...(step.column.note ? [`    // ${step.column.note}.`] : []),
      `    await db.schema.alterTable('${step.table}')`,
      ...columnLine({ ...step.column, note: undefined }),
      '      .execute();',
    ];
    case 'drop-column': return [
      `    // Dropped (--allow-drop): ${step.table}.${step.column}, ${step.why}.`,
      ...step.indexes.map((name) => `    await db.schema.dropIndex('${name}').ifExists().execute();`),
      ...(step.fullText ? [
        '    // Its trigram index: on SQLite an FTS table and its triggers (PostgreSQL drops its GIN index with the column).',
        '    if (!dialect.altersColumnsInPlace) {',
        ...['insert', 'delete', 'update'].map((e) => `      await sql\`drop trigger if exists ${step.table}_${step.column}_fts_${e}\`.execute(db);`),
        `      await db.schema.dropTable('${step.table}_${step.column}_fts').ifExists().execute();`,
        '    }',
      ] : []),
      `    await db.schema.alterTable('${step.table}').dropColumn('${step.column}').execute();`,
    ];
    case 'list-index': return [`    await ${listsOf(step.table)}.createListIndex('${step.name}', '${step.column}');`];
    case 'folded-index': return [`    await ${listsOf(step.table)}.createFoldedIndex('${step.name}', '${step.column}');`];
    case 'full-text': return [`    await ${listsOf(step.table)}.createFullTextIndex('${step.column}');`];
    case 'key-index': return [`    await ${listsOf(step.table)}.createKeyIndex('${step.name}');`];
    case 'unique': return [
      ...(step.replaces ? [`    await db.schema.dropIndex('${step.name}').execute();`] : []),
      step.ignoreCase || step.tenant || step.live
        ? `    await sql\`create unique index ${step.name} on ${step.table} (${step.tenant ? `${step.tenant}, ` : ''}${step.ignoreCase ? `lower(${step.column})` : step.column})${step.live ? ` where ${step.live} is null` : ''}\`.execute(db);`
        : `    await db.schema.createIndex('${step.name}').on('${step.table}').column('${step.column}').unique().execute();`,
    ];
    case 'track-changes': return [`    await trackListChanges(db, dialect, '${step.table}');`];
    case 'parent-index': return [`    await db.schema.createIndex('${step.name}').on('${step.table}').columns(['${step.column}', '${step.key}']).execute();`];
    case 'derive': {
      const call = `await deriveStored(db, dialect, ${step.resource}, [${step.columns.map((c) => `'${c}'`).join(', ')}]);`;
      return step.declaration === undefined
        ? [`    // The declaration of ${step.name} is not where the scaffold puts it: import it and call ${call}`]
        : [`    ${call}`];
    }
  }
}

/** One line per step, for the file's comment and the command's output. */
export function describeStep(step: Step): string {
  switch (step.kind) {
    case 'create-table': return `table ${step.table}`;
    case 'add-column': return `column ${step.table}.${step.column.name}`;
    case 'drop-column': return `drops ${step.table}.${step.column} (${step.why})`;
    case 'list-index': return `index ${step.name} (lists sort or filter on ${step.column})`;
    case 'folded-index': return `index ${step.name} (prefix filters on ${step.column})`;
    case 'full-text': return `trigram index of ${step.table}.${step.column} (contains)`;
    case 'key-index': return `index ${step.name} (SQLite: deep pages in key order)`;
    case 'unique': return `unique index ${step.name}${step.ignoreCase ? ' (ignoring case)' : ''}${step.tenant ? ' within a tenant' : ''}${step.replaces ? ', replacing the one there' : ''}`;
    case 'track-changes': return `change tracking of ${step.table} (exact counts)`;
    case 'parent-index': return `index ${step.name} (the children of one record: read, summed and deleted by parent)`;
    case 'derive': return `the values of ${step.columns.join(', ')} for the ${step.name} records made before, as a write computes them`;
  }
}

/** Why a step is there, said once above the steps it groups (the first of a kind). */
const why: Partial<Record<Step['kind'], string>> = {
  'list-index': 'A page\'s keys come from an index instead of a scan of the whole table.',
  'folded-index': 'A text prefix (SW) reads the folded index.',
  'full-text': 'Contains (CN) reads a trigram index instead of every row.',
  unique: 'One record per value: the store refuses a duplicate, so of concurrent writes of one value one wins.',
  'key-index': 'SQLite: a deep page with no filter walks an index of the id alone (PostgreSQL\'s primary key is one).',
  'track-changes': 'Every write bumps the table\'s change generation: exact counts are kept while it stands.',
  derive: 'The records made before get the derived values and totals a write computes (from the declaration as it is now).',
};

/**
 * The migration file of `steps`: `export function migration(dialect)`, listed by the module's migrations/index.ts.
 * `made`: what made it, for the first line (the command, or the scaffold's command line).
 */
export function migrationFile(steps: readonly Step[], made: string): string {
  const listed = new Map<string, string>();
  for (const s of steps) if (s.kind === 'list-index' || s.kind === 'folded-index' || s.kind === 'full-text' || s.kind === 'key-index') listed.set(s.table, s.key);
  const code = steps.flatMap((step, i) => {
    const comment = why[step.kind];
    const first = steps.findIndex((s) => s.kind === step.kind) === i;
    const lists = step.kind === 'create-table' || step.kind === 'derive' || !listed.has(step.table) ? [] : [`    const ${listsOf(step.table)} = listIndexes(db, dialect, '${step.table}', '${listed.get(step.table)}');`];
    if (lists.length && 'table' in step) listed.delete(step.table);
    return [...lists, ...(comment && first ? [`    // ${comment}`] : []), ...stepLines(step)];
  });
  const body = code.join('\n');
  const types = [['date', 'dateType'], ['bool', 'boolType'], ['number', 'numberType'], ['money', 'moneyType']].filter(([, name]) => body.includes(`, ${name}`));
  const values = [
    body.includes('deriveStored(') && 'deriveStored', body.includes('listIndexes(') && 'listIndexes', body.includes('sql`') && 'sql',
    body.includes('trackListChanges(') && 'trackListChanges',
  ].filter(Boolean);
  // deriveStored takes the declaration, imported from its file (the scaffold's place: services/<module>/<name>.ts).
  const declared = steps.flatMap((s) => (s.kind === 'derive' && s.declaration !== undefined ? [`import { ${s.resource} } from '${s.declaration}';`] : []));
  const imports = values.length ? `{ type Kysely, type Migration, type StorageDialect, ${values.join(', ')} }` : 'type { Kysely, Migration, StorageDialect }';
  const drops = steps.filter((s) => s.kind === 'drop-column');
  return [
    `// Made by \`${made}\` from the declarations: read it, then commit it. Once it has run anywhere, never edit it: the`,
    '// next change of a declaration gets the next migration.',
    ...(drops.length ? [
      '// It DROPS data (made with --allow-drop): ' + drops.map((s) => `${s.table}.${s.column}`).join(', ') + '. Copy what is to be kept before the drop.',
    ] : []),
    `import ${imports} from 'restlayer';`,
    ...declared,
    '',
    '/**',
    ...steps.map((s) => ` * - ${describeStep(s)}`),
    ' */',
    'export function migration(dialect: StorageDialect): Migration {',
    ...(types.length ? [`  const { ${types.map(([k, v]) => `${k}: ${v}`).join(', ')} } = dialect.types;`] : []),
    '  return {',
    '    async up(db: Kysely<unknown>) {',
    ...code.map((l) => `  ${l}`),
    '    },',
    '  };',
    '}',
    '',
  ].join('\n');
}

/** The file name of a migration (without `.ts`): the module's migrations run in this order. */
export const MIGRATION_FILE = /^(\d{4})-[a-z0-9][a-z0-9-]*$/;

/**
 * The module's migrations/index.ts: every migration file of the folder, in order. `restlayer migration make` writes it
 * again with each new file, so nobody edits it.
 */
export function migrationIndexFile(exportName: string, names: readonly string[]): string {
  const sorted = [...names].sort();
  const id = (name: string) => `m${name.slice(0, 4)}`;
  return [
    '// Listed by `restlayer migration make`, which writes this file again with each new migration: edit the migrations,',
    '// never this list.',
    "import type { Migration, StorageDialect } from 'restlayer';",
    ...sorted.map((name) => `import { migration as ${id(name)} } from './${name}.js';`),
    '',
    '/** The schema history of the module, one file each, in name order. */',
    `export const ${exportName} = (dialect: StorageDialect): Record<string, Migration> => ({`,
    ...sorted.map((name) => `  '${name}': ${id(name)}(dialect),`),
    '});',
    '',
  ].join('\n');
}
