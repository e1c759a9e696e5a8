import {
  foldedFields, foldedIndexName, fullTextFields, fullTextTableName, indexName, indexedFields, keyIndexName, type ServiceSpec, uniqueFields, uniqueIndexName,
} from '../spec.js';
import { childParentIndexName } from '../child-spec.js';
import { columnType, header, lines } from './code.js';
import { anOf } from './child-models.js';

/** services/<name>/migrations.ts: the module's schema history, starting with its table. */
export function migrationsFile(spec: ServiceSpec): string {
  const { camel, table, idColumn } = spec;
  const { child } = spec;
  const types = new Set([...spec.fields, ...(child?.fields ?? [])].map((f) => f.type));
  const indexed = indexedFields(spec);
  const folded = foldedFields(spec);
  const fullText = fullTextFields(spec);
  const unique = uniqueFields(spec);
  return lines(
    header(spec).trimEnd(),
    "import { type Kysely, type Migration, type StorageDialect, listIndexes, trackListChanges } from 'restlayer';",
    '',
    '/**',
    ` * The ${spec.kebab} schema. Column types differ by provider only where the providers differ (identity, dates,`,
    ' * booleans, floating point): the dialect names them. A released migration is never edited: change the schema with',
    ' * a new one (0002-…).',
    ' */',
    `export function ${camel}Migrations(dialect: StorageDialect): Record<string, Migration> {`,
    `  const { ${['date: dateType', types.has('boolean') && 'bool: boolType', types.has('decimal') && 'number: numberType', types.has('money') && 'money: moneyType'].filter(Boolean).join(', ')} } = dialect.types;`,
    '  return {',
    `    '0001-${spec.kebab}': {`,
    '      async up(db: Kysely<unknown>) {',
    `        await db.schema.createTable('${table}')`,
    `          .addColumn('${idColumn}', 'integer', (c) => dialect.identity(c))`,
    ...spec.fields.map((f) => `          .addColumn('${f.column}', ${columnType(f)}${f.required ? ', (c) => c.notNull()' : ''})`),
    ...(child?.totals ?? []).map((t) => `          .addColumn('${t.column}', moneyType, (c) => c.notNull().defaultTo(0))`),
    "          .addColumn('revision_number', 'integer', (c) => c.notNull().defaultTo(1))",
    "          .addColumn('modified_date', dateType, (c) => c.notNull())",
    '          .execute();',
    child && lines(
      `        // The ${child.plural} of ${anOf(spec.human.toLowerCase())}: deleted with it (the service deletes them in the same transaction too,`,
      '        // as SQLite enforces no foreign key unless asked). The index serves reading, summing and deleting them by parent.',
      `        await db.schema.createTable('${child.table}')`,
      `          .addColumn('${child.idColumn}', 'integer', (c) => dialect.identity(c))`,
      `          .addColumn('${idColumn}', 'integer', (c) => c.notNull().references('${table}.${idColumn}').onDelete('cascade'))`,
      ...child.fields.map((f) => `          .addColumn('${f.column}', ${columnType(f)}${f.required ? ', (c) => c.notNull()' : ''})`),
      '          .execute();',
      `        await db.schema.createIndex('${childParentIndexName(child)}').on('${child.table}').columns(['${idColumn}', '${child.idColumn}']).execute();`,
    ),
    unique.length > 0 && '        // One record per value: the store refuses a duplicate, so of concurrent creates of one value one wins.',
    ...unique.map((f) => `        await db.schema.createIndex('${uniqueIndexName(spec, f)}').on('${table}').column('${f.column}').unique().execute();`),
    indexed.length > 0 && `        // The fields lists sort or filter on: a page's keys come from the index instead of a scan of the whole table${folded.length ? ',' : '.'}`,
    folded.length > 0 && '        // and a text prefix (SW) from the folded one.',
    `        const { ${[folded.length > 0 && 'createFoldedIndex', fullText.length > 0 && 'createFullTextIndex', 'createKeyIndex', indexed.length > 0 && 'createListIndex'].filter(Boolean).join(', ')} } = listIndexes(db, dialect, '${table}', '${idColumn}');`,
    ...indexed.map((f) => `        await createListIndex('${indexName(spec, f)}', '${f.column}');`),
    ...folded.map((f) => `        await createFoldedIndex('${foldedIndexName(spec, f)}', '${f.column}');`),
    fullText.length > 0 && '        // A long text\'s contains (CN) reads a trigram index instead of every row.',
    ...fullText.map((f) => `        await createFullTextIndex('${f.column}');`),
    '        // SQLite: a deep page with no filter walks an index of the id alone instead of the rows (PostgreSQL\'s primary',
    '        // key is one already).',
    `        await createKeyIndex('${keyIndexName(spec)}');`,
    '        // Every write bumps the table\'s change generation: exact counts are kept while it stands.',
    `        await trackListChanges(db, dialect, '${table}');`,
    '      },',
    '      async down(db: Kysely<unknown>) {',
    child && `        await db.schema.dropTable('${child.table}').execute();`,
    `        await db.schema.dropTable('${table}').execute();`,
    fullText.length > 0 && '        // SQLite drops the triggers with the table, not the FTS tables.',
    ...fullText.map((f) => `        await db.schema.dropTable('${fullTextTableName(spec, f)}').ifExists().execute();`),
    '      },',
    '    },',
    '  };',
    '}',
    '',
  );
}
