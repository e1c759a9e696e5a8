/**
 * A record's ETag made from the versions of what its answer shows (contract part 14), instead of a digest of the
 * answer itself: its own revision and modified instant (every write of the record or of one of its children moves
 * them), the revision of each record it shows fields of (an order's customer), and the change generation
 * (lib/storage/list-changes.ts) of the other tables it reads (the products its lines name). Two reads see the same
 * versions only if they see the same rows, so the tag changes whenever the body would; and it can be had without the
 * body: a write selects the versions with its read of the record and answers its new tag from them and what it wrote,
 * where it used to read the whole record again after the write and digest it (a third of a PUT's CPU on SQLite);
 * If-Match reads them with the record's row, as a write's read does. A table it reads whose writes are not counted (no
 * trackListChanges) leaves the record's tag to the digest of its body, as before.
 */
import { createHash } from 'node:crypto';
import { type RawBuilder, sql } from 'kysely';
import { strongETag } from '../../etag.js';
import { generationOf } from '../../storage/list-changes.js';
import type { SqlValues } from '../../storage/sql-values.js';
import type { ResourceModel } from '../model.js';
import type { AlsoRead } from './write-record.js';
import type { TableIo } from './table-io.js';
import { type Row, sameValue } from './values.js';

/**
 * Raised whenever the layer changes how a record is written on the wire with the same rows: a client keeping a
 * record by its tag (If-None-Match) must not be told that an answer in the old form is still current.
 */
const WIRE_FORM = 1;

/** The slot of the change generation in a read row. */
const GENERATION = 'v__generation';

/** What a record's version tag is read from, and how. */
export interface RecordVersions {
  /** The select-list terms a record's read adds: the joined records' revisions and the generation. */
  readonly columns: readonly RawBuilder<unknown>[];
  /** The tag of a read row (a GET's, or a write's read with `also`); undefined where the body must be digested. */
  tagOf(row: Row): string | undefined;
  /** What a write's read of the record selects besides its row, so that the write can answer its new tag itself. */
  readonly also: AlsoRead;
  /**
   * The tag of the record as a write left it, from the row it read (with `also`) and the revision and modified date it
   * wrote; undefined when the write changed which record a join shows (that record's revision was not read).
   */
  writtenTag(before: Row, after: Row): string | undefined;
  /**
   * The resource's `service` replaced `read`: its records' tags are what that read answers (lib/resources/routes.ts
   * reads through it), so a write answers no tag of its own (writtenTag: none) and the route reads the record again.
   */
  readReplaced(): void;
}

/**
 * The versions of `model`'s records as read through `table` (with its joins, `inner`) and `children` (their joins'
 * tables counted by generation). `fingerprint` tells apart two answers of the same rows (the read's shape: fields,
 * the children's cap). The record's modified date is a version too: a key SQLite hands out again (the highest, after
 * a purge) starts at revision 1 again, but not at the same instant.
 */
export function recordVersions(model: ResourceModel, table: TableIo, children: readonly TableIo[], values: SqlValues, fingerprint: string): RecordVersions {
  const alias = table.alias;
  const joins = table.fields.flatMap(({ field }) => (field.join ? [field.join] : []));
  const revisions = new Map(joins.filter((j) => j.revision).map((j) => [`v__${j.alias}`, j]));
  const counted = [...new Set([
    ...joins.filter((j) => !j.revision).map((j) => j.table),
    ...children.flatMap((c) => c.fields.flatMap(({ field }) => (field.join ? [field.join.table] : []))),
  ])].sort();
  const generation = counted.length ? [sql`${generationOf(counted)} as ${sql.id(GENERATION)}`] : [];
  // The GET reads the shown records' revisions through its joins.
  const columns = [...[...revisions].map(([slot, j]) => sql`${sql.ref(`${j.alias}.${j.revision!}`)} as ${sql.id(slot)}`), ...generation];
  // A write's read (and If-Match's, the same statement unlocked) by subqueries instead: a row PostgreSQL locks is
  // checked again against the row a concurrent write committed, and a join to the record shown before that write
  // would then drop it (a 404).
  const alone = [
    ...[...revisions].map(([slot, j]) => sql`(select ${sql.ref(`v__shown.${j.revision!}`)} from ${sql.table(j.table)} as v__shown
      where ${sql.ref(`v__shown.${j.key}`)} = ${sql.ref(`${alias}.${j.on}`)}) as ${sql.id(slot)}`),
    ...generation,
  ];
  // Every slot must hold a value: a generation is null while one of its tables is not tracked.
  const slots = [model.revision, ...revisions.keys(), ...(counted.length ? [GENERATION] : [])];
  const prefix = createHash('sha256').update(`${WIRE_FORM}|${model.name}|${fingerprint}|${counted.join(',')}`).digest('base64url').slice(0, 12);
  const tagOf = (row: Row): string | undefined => {
    if (slots.some((slot) => row[slot] == null)) return undefined;
    const modified = values.toDate(row[model.modified] as string | Date).getTime();
    return strongETag(`${prefix}|${modified}|${slots.map((slot) => String(row[slot])).join('|')}`);
  };
  // A record shown through a via is known by its revision, read for the one the row named before the write.
  const references = [...new Set([...revisions.values()].map((j) => j.on))];
  let ownRead = false;
  return {
    columns,
    tagOf,
    also: { columns: alone },
    writtenTag: (before, after) => (!ownRead && references.every((column) => sameValue(before[column], after[column])) ? tagOf(after) : undefined),
    readReplaced() {
      ownRead = true;
    },
  };
}
