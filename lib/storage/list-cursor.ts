import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { type RawBuilder, type SqlBool, sql } from 'kysely';
import type { StorageDialect } from './dialects/dialect.js';

/** One term of a list's order: a column and its direction. */
export interface OrderTerm {
  ref: string;
  descending: boolean;
  /** False for NOT NULL columns: their range is a plain comparison, which an index seeks to. */
  nullable: boolean;
}

/** A value of the row a cursor points after; dates are tagged, to be bound as dates again. */
export type CursorValue = string | number | boolean | null | { date: string };

/** Why a cursor that does not parse, or holds values of the wrong kinds, is refused. */
export const CURSOR_EDITED = 'cursor is not a cursor this service made: give the nextCursor of the previous page as it came.';

/** Why a cursor is refused, as the message of a 400 on `cursor`. */
export class CursorError extends Error {}

/**
 * What a cursor continues: the listed table, its filters and its sort. A cursor made for another list, filter or sort
 * names other rows, so it is refused rather than followed.
 */
export function listFingerprint(table: string, filters: readonly unknown[], sort: readonly unknown[]): string {
  return createHash('sha256').update(JSON.stringify([table, filters, sort])).digest('base64url').slice(0, 22);
}

/**
 * The keys that sign cursors, derived (HMAC-SHA256 with a label of their own) from the server's secrets, newest
 * first: the first signs, every one verifies, so a cursor made before a key rotation still pages. Every worker and
 * instance given the same secrets makes and accepts the same cursors, and the secrets themselves sign nothing else
 * this way.
 */
export type CursorKeys = readonly Buffer[];

const KEY_LABEL = 'restlayer list cursor v1';

export function cursorKeysOf(secrets: readonly string[]): CursorKeys {
  return secrets.filter(Boolean).map((secret) => createHmac('sha256', secret).update(KEY_LABEL).digest());
}

/**
 * For lists whose options name no keys (a service written before cursors were signed): a key of this process only.
 * Its cursors are still refused once edited, but not accepted by another worker or after a restart.
 */
const PROCESS_KEYS: CursorKeys = [randomBytes(32)];

const mac = (key: Buffer, payload: string) => createHmac('sha256', key).update(payload).digest();
const orProcessKeys = (keys: CursorKeys) => (keys.length ? keys : PROCESS_KEYS);

/** A row's values of the order's terms as a cursor holds them, and afterCursor binds them (dates tagged). */
export function cursorValues(values: readonly unknown[]): CursorValue[] {
  return values.map((v) => (v instanceof Date ? { date: v.toISOString() } : (v as CursorValue)));
}

/**
 * The cursor after a row: the list's fingerprint and the row's values of the order's terms, as base64url JSON, then
 * `.` and its HMAC (base64url), so that a cursor the client changed is refused rather than followed.
 */
export function encodeCursor(fingerprint: string, values: readonly unknown[], keys: CursorKeys = PROCESS_KEYS): string {
  const payload = Buffer.from(JSON.stringify({ list: fingerprint, after: cursorValues(values) })).toString('base64url');
  return `${payload}.${mac(orProcessKeys(keys)[0], payload).toString('base64url')}`;
}

/**
 * Whether `signature` is the HMAC of `payload` under one of `keys`, compared in constant time, as the text this
 * server wrote: base64url's last character carries two bits no byte holds, so decoding first accepted a signature with
 * that character changed (a changed cursor answered, one try in about a thousand).
 */
function signedBy(keys: CursorKeys, payload: string, signature: string): boolean {
  const given = Buffer.from(signature);
  return keys.some((key) => {
    const expected = Buffer.from(mac(key, payload).toString('base64url'));
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}

const isValue = (v: unknown): v is CursorValue => v === null || typeof v === 'string' || typeof v === 'boolean'
  || (typeof v === 'number' && Number.isFinite(v))
  || (typeof v === 'object' && Object.keys(v).length === 1 && typeof (v as { date?: unknown }).date === 'string'
    && !Number.isNaN(Date.parse((v as { date: string }).date)));

/**
 * The values a cursor holds, checked: its signature first (a cursor this server's secrets did not sign, or that was
 * changed since, is refused), then its shape and its list. They are only ever bound as parameters.
 */
export function decodeCursor(text: string, fingerprint: string, terms: number, keys: CursorKeys = PROCESS_KEYS): CursorValue[] {
  const dot = text.lastIndexOf('.');
  if (dot < 0 || !signedBy(orProcessKeys(keys), text.slice(0, dot), text.slice(dot + 1))) throw new CursorError(CURSOR_EDITED);
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(text.slice(0, dot), 'base64url').toString('utf8'));
  } catch {
    throw new CursorError(CURSOR_EDITED);
  }
  const { list, after } = (typeof parsed === 'object' && parsed !== null ? parsed : {}) as { list?: unknown; after?: unknown };
  if (typeof list !== 'string' || !Array.isArray(after) || after.length !== terms || !after.every(isValue)) {
    throw new CursorError(CURSOR_EDITED);
  }
  if (list !== fingerprint) {
    throw new CursorError('cursor belongs to a list with other filters or another sort: page with the criteria the cursor came with, or start again with cursor= (empty).');
  }
  return after;
}

/**
 * The rows after the cursor's row in the list's order (keyset paging): the first term's range, which an index on it
 * seeks to, then the exact "after" over every term. NULLs sort first in SQLite and last in PostgreSQL (ascending),
 * so where they fall in the walk depends on the dialect's `nullsFirst` and the direction.
 */
export function afterCursor(terms: readonly OrderTerm[], after: readonly CursorValue[], dialect: StorageDialect): RawBuilder<SqlBool> {
  const bind = (v: Exclude<CursorValue, null>) => (typeof v === 'object' ? dialect.date(new Date(v.date)) : typeof v === 'boolean' ? dialect.bool(v) : v);
  // A NOT NULL column has no NULLs to fall after the cursor's value: as if they came first.
  const nullsFirst = (t: OrderTerm) => !t.nullable || dialect.nullsFirst !== t.descending;
  const equal = (t: OrderTerm, v: CursorValue) => (v === null ? sql<SqlBool>`${sql.ref(t.ref)} is null` : sql<SqlBool>`${sql.ref(t.ref)} = ${bind(v)}`);
  const beyond = (t: OrderTerm, v: CursorValue, orEqual: boolean) => {
    const col = sql.ref(t.ref);
    if (v === null) return nullsFirst(t) ? (orEqual ? sql<SqlBool>`1 = 1` : sql<SqlBool>`${col} is not null`) : (orEqual ? sql<SqlBool>`${col} is null` : sql<SqlBool>`1 = 0`);
    const op = sql.raw(`${t.descending ? '<' : '>'}${orEqual ? '=' : ''}`);
    return nullsFirst(t) ? sql<SqlBool>`${col} ${op} ${bind(v)}` : sql<SqlBool>`(${col} ${op} ${bind(v)} or ${col} is null)`;
  };
  const steps = terms.map((t, i) => sql.join([...terms.slice(0, i).map((u, j) => equal(u, after[j])), beyond(t, after[i], false)], sql` and `));
  return sql<SqlBool>`${beyond(terms[0], after[0], true)} and (${sql.join(steps, sql` or `)})`;
}
