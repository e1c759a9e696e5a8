/*
 * Where deep offset pages start (skip ≥ 1,000 in lib/storage/list-query.ts): the values of the list's order terms of
 * the row before an offset, kept per list (its filters, sort and the caller's scope and tenant) with the tables'
 * generation they were read at (lib/storage/list-changes.ts), so that a repeated deep page, or the next one, seeks to
 * its place through the list's index and walks one page instead of the whole offset. Any committed write to a table
 * the list reads moves the generation on and the list's positions are dropped, as kept counts are.
 */
import { BoundedMap } from '../bounded-map.js';
import type { CursorValue } from './list-cursor.js';

/** The order terms' values of one row, as afterCursor binds them. */
export type OrderValues = readonly CursorValue[];

interface KeptPositions {
  /** The generation of the list's tables they were read at: a decimal integer (PostgreSQL's sum comes as text). */
  generation: string;
  /** Offset → the order values of the row just before it (offset 5,000: the 5,000th row's). */
  readonly at: BoundedMap<number, OrderValues>;
}

/** Lists kept per list definition and database, and positions per list: a grid paging deep keeps a few. */
const LISTS_KEPT = 500;
const POSITIONS_KEPT = 32;
/** A position of long texts (a sort on an unbounded text field) is not worth its memory: its page walks instead. */
const POSITION_BYTES = 1_024;

const kept = new WeakMap<object, WeakMap<object, BoundedMap<string, KeptPositions>>>();

function listsOf(db: object, def: object): BoundedMap<string, KeptPositions> {
  const byDef = kept.get(db) ?? kept.set(db, new WeakMap()).get(db)!;
  return byDef.get(def) ?? byDef.set(def, new BoundedMap(LISTS_KEPT)).get(def)!;
}

/** A kept position: the offset it starts at and the order values of the row before it. */
export interface Position {
  offset: number;
  after: OrderValues;
}

/** The kept position nearest before `skip` (or at it) of the list `key`, at `generation`; none from another generation. */
export function positionBefore(db: object, def: object, key: string, generation: string, skip: number): Position | undefined {
  const list = listsOf(db, def).get(key);
  if (!list || list.generation !== generation) return undefined;
  let best: Position | undefined;
  for (const [offset, after] of list.at) if (offset <= skip && (!best || offset > best.offset)) best = { offset, after };
  return best;
}

/**
 * Keeps positions of the list `key` read at `generation`. A newer generation replaces the list's positions; an older
 * one (a slow request that began before a write) keeps nothing. The list becomes the newest of its definition's.
 */
export function keepPositions(db: object, def: object, key: string, generation: string, positions: readonly Position[]): void {
  const small = positions.filter((p) => JSON.stringify(p.after).length <= POSITION_BYTES);
  if (!small.length) return;
  const lists = listsOf(db, def);
  let list = lists.get(key);
  if (list && list.generation !== generation && BigInt(list.generation) > BigInt(generation)) return;
  if (!list || list.generation !== generation) list = { generation, at: new BoundedMap(POSITIONS_KEPT) };
  lists.delete(key);
  lists.set(key, list);
  for (const { offset, after } of small) {
    list.at.delete(offset);
    list.at.set(offset, after);
  }
}
