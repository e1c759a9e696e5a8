import type { ServiceSpec } from '../spec.js';
import { header, importLine, lines, tableType } from './code.js';

/** services/<name>/<name>-tables.ts: the Kysely type of the module's table. */
export function tablesFile(spec: ServiceSpec): string {
  const { pascal, table, idColumn } = spec;
  const types = new Set(spec.fields.map((f) => f.type));
  return lines(
    header(spec).trimEnd(),
    importLine([types.has('boolean') && 'DbBool', 'DbDate', 'Generated'], 'restlayer', true),
    '',
    `/** The ${spec.kebab} module's table, as both providers store it (DbDate and DbBool: the value types of each provider). */`,
    `export interface ${pascal}Table {`,
    `  ${idColumn}: Generated<number>;`,
    ...spec.fields.map((f) => `  ${f.column}: ${tableType(f)};`),
    '  revision_number: number;',
    '  modified_date: DbDate;',
    '}',
    '',
    `export type ${pascal}Tables = {`,
    `  ${table}: ${pascal}Table;`,
    '};',
    '',
  );
}
