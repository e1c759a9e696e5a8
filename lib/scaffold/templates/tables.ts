import { upperFirst } from '../names.js';
import type { ServiceSpec } from '../spec.js';
import { MONEY_COLUMN, header, importLine, lines, tableType } from './code.js';
import { aChild, anOf } from './child-models.js';

/** services/<name>/<name>-tables.ts: the Kysely type of the module's table. */
export function tablesFile(spec: ServiceSpec): string {
  const { pascal, table, idColumn } = spec;
  const { child } = spec;
  const types = new Set([...spec.fields, ...(child?.fields ?? [])].map((f) => f.type));
  return lines(
    header(spec).trimEnd(),
    importLine([types.has('boolean') && 'DbBool', 'DbDate', types.has('money') && 'DbMoney', 'Generated'], 'restlayer', true),
    '',
    `/** The ${spec.kebab} module's table, as both providers store it (DbDate and DbBool: the value types of each provider). */`,
    `export interface ${pascal}Table {`,
    `  ${idColumn}: Generated<number>;`,
    ...spec.fields.map((f) => `  ${f.column}: ${tableType(f)};`),
    ...(child?.totals ?? []).map((t) => `  ${t.column}: ${MONEY_COLUMN};`),
    '  revision_number: number;',
    '  modified_date: DbDate;',
    '}',
    '',
    ...(child
      ? [
        `/** ${upperFirst(aChild(child))} of ${anOf(spec.human.toLowerCase())}: it belongs to one, and is written with it. */`,
        `export interface ${child.pascal}Table {`,
        `  ${child.idColumn}: Generated<number>;`,
        `  ${idColumn}: number;`,
        ...child.fields.map((f) => `  ${f.column}: ${tableType(f)};`),
        '}',
        '',
      ]
      : []),
    `export type ${pascal}Tables = {`,
    `  ${table}: ${pascal}Table;`,
    child && `  ${child.table}: ${child.pascal}Table;`,
    '};',
    '',
  );
}
