import { type CompiledQuery, type Kysely, type RawBuilder, sql } from 'kysely';
import { keptQuery } from '../../storage/kept-query.js';
import type { ResourceModel } from '../model.js';
import { reachOf } from '../reach.js';
import type { TableIo } from './table-io.js';
import type { Row } from './values.js';

/** A statement that reads rows by one id: kept compiled (lib/storage/kept-query.ts), run with the id each time. */
export type ReadStatement = (db: Kysely<unknown>, params: { id: number; childId?: number }) => Promise<Row[]>;

/** A raw statement as keptQuery compiles it. */
const compilable = (db: Kysely<unknown>, statement: RawBuilder<Row>) => ({ compile: (): CompiledQuery<Row> => statement.compile(db) });

/**
 * The read of one record with everything its answer holds, in one statement so it is one snapshot: its columns, its
 * joined fields, the versions its ETag is made of (`versions`: ./version-tag.ts) and its children (one row per child,
 * left joined, ordered by the child's id; a parent holds at most Documents:MaxLines of them), through the caller's
 * reach. Kept compiled: the read of a record by id is the hottest statement there is (building and compiling it cost
 * about 40 µs a time).
 */
export function recordStatement(
  model: ResourceModel, table: TableIo, children: readonly TableIo[], maxLines: number, versions: readonly RawBuilder<unknown>[],
): ReadStatement {
  const alias = table.alias;
  return keptQuery((db: Kysely<unknown>, p: { id: number; childId?: number }) => {
    const reach = reachOf(model, alias);
    const childJoins = children.map((c) => sql`left join ${sql.table(c.shape.table)} as ${sql.id(c.alias)}
      on ${sql.ref(`${c.alias}.${model.keyColumn}`)} = ${sql.ref(`${alias}.${model.keyColumn}`)} ${c.joins('left')}`);
    const columns = [
      ...table.select,
      sql`${sql.ref(`${alias}.${model.revision}`)} as ${sql.id(model.revision)}`,
      sql`${sql.ref(`${alias}.${model.modified}`)} as ${sql.id(model.modified)}`,
      ...versions,
      ...children.flatMap((c) => c.select),
    ];
    // Capped, never unbounded: a record holds at most Documents:MaxLines children (rows written behind the API, or
    // before the cap was lowered, past it are not read).
    const order = children.length
      ? sql` order by ${sql.join(children.map((c) => sql.ref(`${c.alias}.${c.shape.keyColumn}`)))} limit ${sql.lit(maxLines)}` : sql``;
    return compilable(db, sql<Row>`select ${sql.join(columns)} from ${sql.table(model.table)} as ${sql.id(alias)} ${table.joins('inner')}
      ${sql.join(childJoins, sql` `)}
      where ${sql.ref(`${alias}.${model.keyColumn}`)} = ${p.id}${reach ? sql` and ${reach}` : sql``}${order}`);
  });
}

/**
 * The children of one record (a child collection's list, and one child by id), in one statement with their parent,
 * so an unknown parent (or one out of reach) is told apart from a parent without children: the parent's key comes
 * back alone. `childId`: only that child. At most `maxLines` (Documents:MaxLines), as the record's read.
 */
export function childrenStatement(model: ResourceModel, parent: string, child: TableIo, one: boolean, maxLines: number): ReadStatement {
  return keptQuery((db: Kysely<unknown>, p: { id: number; childId?: number }) => {
    const reach = reachOf(model, parent);
    const only = one ? sql` and ${sql.ref(`${child.alias}.${child.shape.keyColumn}`)} = ${p.childId}` : sql``;
    return compilable(db, sql<Row>`select ${sql.ref(`${parent}.${model.keyColumn}`)} as ${sql.id('parent_key')}, ${sql.join(child.select)}
      from ${sql.table(model.table)} as ${sql.id(parent)}
      left join ${sql.table(child.shape.table)} as ${sql.id(child.alias)} on ${sql.ref(`${child.alias}.${model.keyColumn}`)} = ${sql.ref(`${parent}.${model.keyColumn}`)}${only}
      ${child.joins('left')}
      where ${sql.ref(`${parent}.${model.keyColumn}`)} = ${p.id}${reach ? sql` and ${reach}` : sql``}
      order by ${sql.ref(`${child.alias}.${child.shape.keyColumn}`)} limit ${sql.lit(maxLines)}`);
  });
}
