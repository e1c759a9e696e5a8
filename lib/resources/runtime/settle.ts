import Big from 'big.js';
import { MESSAGES } from '../../envelope/message-catalogue.js';
import { type ErrorMessage, message } from '../../envelope/error-message.js';
import { type RequestAccess, currentErrors } from '../../envelope/request-scope.js';
import type { LookupItem, LookupTable } from '../../lookup/lookup-table.js';
import { MONEY_LIMIT, fitsMoney } from '../../validation/money.js';
import type { Change, Rule } from '../declaration.js';
import type { ValueContext, ValueSource, WireRecord, WireValue } from '../field.js';
import { invalidLookup } from '../messages.js';
import type { ResourceField } from '../model.js';
import type { Draft } from './values.js';

/** The part of a resource or child a write settles: its fields and rules, and the prefix of its message codes. */
export interface Settled {
  readonly fields: readonly ResourceField[];
  readonly rules: readonly Rule[];
  /** `SalesOrder`: the codes of its messages (`SalesOrder_InvalidStatus`), a child's those of its resource. */
  readonly codes: string;
  /** The key's wire name: a derivation from it is made once the create knows it. */
  readonly key: string;
}

/** What a write knows besides the record: loaded before it, so settling needs no query. */
export interface WriteContext {
  readonly operation: string;
  /** `create` takes the fields given on create only too; `update` those updates take; `none` (an action) none. */
  readonly takes: 'create' | 'update' | 'none';
  readonly now: Date;
  readonly caller: RequestAccess | undefined;
  /** The lookup tables of the lookup fields, by table name. */
  readonly lookups: ReadonlyMap<string, LookupTable | undefined>;
  /** The referenced records, by reference field (resolved as the caller may read them). */
  readonly references: ReadonlyMap<string, WireRecord | undefined>;
  /** For a child: its parent as stored. */
  readonly parent?: WireRecord;
  /** The path its messages' properties start with: `lines[2].` for a child of a document being created. */
  readonly prefix?: string;
}

/** Whether a field is an input of this write. */
const taken = (f: ResourceField, takes: WriteContext['takes']) =>
  f.spec.input === 'write' ? takes !== 'none' : f.spec.input === 'create' && takes === 'create';

/** The entry of a lookup table an id names (text ids match ignoring case unless the table is case-sensitive). */
export function entryOf(table: LookupTable | undefined, value: unknown): LookupItem | undefined {
  if (!table || value == null) return undefined;
  if (typeof value !== 'string' || table.caseSensitive) return table.data.find((e) => e.id === value);
  const lower = value.toLowerCase();
  return table.data.find((e) => typeof e.id === 'string' && e.id.toLowerCase() === lower);
}

function valueFrom(source: ValueSource<WireValue>, record: WireRecord, context: ValueContext): WireValue | undefined {
  return typeof source === 'function' ? source(record, context) : source;
}

/** A derived value as it is stored: money rounded half away from zero to 4 digits (undefined when out of range, reported). */
function derivedValue(f: ResourceField, record: Draft, key: number | undefined, keyName: string, property: string): WireValue | undefined {
  const { from, compute, reportOn } = f.spec.derived!;
  const inputs: Record<string, number> = {};
  for (const name of from) {
    const value = name === keyName ? key : record[name];
    if (value == null) return name === keyName ? record[f.name] : undefined;
    inputs[name] = Number(value);
  }
  const result = compute(inputs);
  switch (f.value.type) {
    case 'money': {
      const amount = new Big(result).round(4, Big.roundHalfUp);
      if (!fitsMoney(amount)) {
        currentErrors().add(MESSAGES.Amount_TooLarge({ amount: amount.toFixed(), limit: MONEY_LIMIT.toFixed(), property: property + (reportOn ?? f.name) }));
        return undefined;
      }
      return amount.toNumber();
    }
    case 'text':
      return String(result);
    default:
      return Number(result);
  }
}

/**
 * Computes the derived fields of `record` in declared order (a later one may use an earlier one): those from the key
 * only once `key` is known (the create's insert gave it).
 */
export function derive(table: Settled, record: Draft, key: number | undefined, prefix = ''): void {
  // A total past the money range was refused on its own property: what derives from it is not refused again.
  const unkept = new Set(table.fields.filter((f) => f.spec.sum && record[f.name] != null && !fitsMoney(new Big(Number(record[f.name])))).map((f) => f.name));
  for (const f of table.fields) {
    if (!f.spec.derived) continue;
    record[f.name] = f.spec.derived.from.some((from) => unkept.has(from)) ? undefined : derivedValue(f, record, key, table.key, prefix);
  }
}

/** The lookup entry each lookup field of `record` names, as rules and defaults ask for it (`change.entry('status')`). */
export function entriesOf(fields: readonly ResourceField[], lookups: WriteContext['lookups'], record: Draft): (name: string) => LookupItem | undefined {
  return (name) => {
    const f = fields.find((field) => field.name === name);
    return f?.spec.lookup ? entryOf(lookups.get(f.spec.lookup.table), record[name]) : undefined;
  };
}

/**
 * Runs `rules` over one write, each with the record `before` and `after` it: a rule may set fields of `after` or
 * refuse the write (recorded on `currentErrors()`, on `context.prefix` + its property). Every rule runs, so the
 * answer lists every problem.
 */
export function runRules(
  rules: readonly Rule[], context: WriteContext, before: WireRecord | undefined, after: Draft, entry: (name: string) => LookupItem | undefined,
): void {
  if (!rules.length) return;
  const errors = currentErrors();
  const prefix = context.prefix ?? '';
  const change: Change = {
    operation: context.operation,
    before,
    after: after as WireRecord,
    parent: context.parent,
    caller: context.caller,
    now: context.now,
    fail: (first: string | ErrorMessage, text: string = '', options: { property?: string; status?: number } = {}) => {
      if (typeof first !== 'string') {
        // A child's rule names its own property; the answer names it within the document (lines[2].orderQty).
        if (first.property !== undefined) first.property = prefix + first.property;
        errors.add(first);
        return;
      }
      errors.add(message('Validation', first, text, {
        ...(options.property !== undefined ? { property: prefix + options.property } : {}),
        ...(options.status !== undefined ? { status: options.status } : {}),
      }));
    },
    entry,
    reference: (name) => context.references.get(name),
  };
  for (const rule of rules) rule(change);
}

/**
 * The record a write stores, from its input and the record as stored (`before`, none on create): the inputs it
 * takes (an optional one left out is cleared: PUT replaces), the others kept; defaults and initial values; lookup
 * ids checked (an active entry, or the one the record holds already); the rules; the derived values. `sums` are the
 * totals of the children a create stores with it. Problems are recorded on `currentErrors()` on their property.
 */
export function settle(table: Settled, input: Draft, before: WireRecord | undefined, context: WriteContext, sums: Readonly<Record<string, number>> = {}): Draft {
  const errors = currentErrors();
  const prefix = context.prefix ?? '';
  const after: Draft = {};
  const values: ValueContext = { now: context.now, entry: entriesOf(table.fields, context.lookups, after) };
  for (const f of table.fields) {
    if (!f.stored) continue;
    if (taken(f, context.takes)) after[f.name] = input[f.name] ?? undefined;
    else if (before) after[f.name] = before[f.name];
    else after[f.name] = f.spec.sum ? sums[f.name] ?? 0 : undefined;
  }
  for (const f of table.fields) {
    if (!f.stored || f.spec.lookup === undefined || !taken(f, context.takes) || after[f.name] == null) continue;
    const entry = entryOf(context.lookups.get(f.spec.lookup.table), after[f.name]);
    const kept = before !== undefined && entry !== undefined && before[f.name] === entry.id && f.spec.lookup.keepsInactive !== false;
    if (!entry || !(entry.isActive || kept)) {
      const { lookup } = f.spec;
      errors.add(invalidLookup(table.codes, f.name, lookup.table, after[f.name], prefix + f.name, lookup.code, lookup.text));
    } else after[f.name] = entry.id;
  }
  for (const f of table.fields) {
    if (!f.stored || after[f.name] != null) continue;
    if (f.spec.default !== undefined && (taken(f, context.takes) || !before)) after[f.name] = valueFrom(f.spec.default, after as WireRecord, values);
    else if (f.spec.initially !== undefined) after[f.name] = before ? before[f.name] : valueFrom(f.spec.initially, after as WireRecord, values);
  }
  runRules(table.rules, context, before, after, values.entry);
  derive(table, after, undefined, prefix);
  return after;
}
