import type { ListDefinition, ListJoin } from '../storage/list-query.js';
import type { ResourceField, ResourceModel } from './model.js';

/** Whether a field has a value on every record (its column, or the joined one, is NOT NULL). */
export function alwaysPresent(f: ResourceField): boolean {
  const s = f.spec.via?.field.spec ?? f.spec;
  return Boolean(s.required || s.default !== undefined || s.initially !== undefined || s.derived || s.sum);
}

/**
 * The list of a resource for the list engine (lib/storage/list-query.ts, `readListRows`): the table under its own name,
 * the wire fields' columns (a joined field's through its join, joined only when a filter or sort names it), the row a
 * page reads (the key and the listed fields, each in the slot the resource's reads use), the NOT NULL columns (cursor
 * seeks), the trigram-indexed ones (`contains`), text lengths and the record scopes. Built once per resource: the
 * engine keeps its compiled pages by this object.
 */
export function listDefinitionOf(model: ResourceModel): ListDefinition<string> {
  const alias = model.table;
  const columnOf = (f: ResourceField) => (f.join ? `${f.join.alias}.${f.join.column}` : `${alias}.${f.column}`);
  const named = model.fields.filter((f) => f.spec.filter || f.spec.sortable);
  const listed = model.fields.filter((f) => f.spec.listed);
  const joins = new Map<string, ListJoin>();
  for (const f of [...named, ...listed]) {
    if (f.join && !joins.has(f.join.alias)) {
      joins.set(f.join.alias, {
        table: f.join.table, alias: f.join.alias, key: `${f.join.alias}.${f.join.key}`, refers: `${alias}.${f.join.on}`,
        ...(f.join.tenant ? { tenant: f.join.tenant } : {}),
      });
    }
  }
  const maxLength = Object.fromEntries(named.filter((f) => f.value.max !== undefined && (f.value.type === 'text' || f.value.lookup?.id === 'text'))
    .map((f) => [f.name, f.value.max!]));
  return {
    table: model.table,
    alias,
    id: `${alias}.${model.keyColumn}`,
    columns: { [model.key]: `${alias}.${model.keyColumn}`, ...Object.fromEntries(named.map((f) => [f.name, columnOf(f)])) },
    joins: [...joins.values()],
    select: [`${alias}.${model.keyColumn}`, ...listed.map((f) => (f.join ? `${columnOf(f)} as ${f.join.alias}_${f.join.column}` : columnOf(f)))],
    notNull: [model.key, ...named.filter(alwaysPresent).map((f) => f.name)],
    fullText: model.fields.filter((f) => f.spec.contains).map((f) => f.name),
    maxLength,
    ...(model.scopes ? { scopes: model.scopes } : {}),
    ...(model.softDelete ? { softDelete: model.softDelete } : {}),
    ...(model.tenant ? { tenant: model.tenant } : {}),
  };
}
