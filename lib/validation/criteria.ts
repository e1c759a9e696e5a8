import { type Struct, array } from 'superstruct';
import type { ErrorMessage } from '../envelope/error-message.js';
import { CODES, MESSAGES, inputMessage } from '../envelope/message-catalogue.js';
import { INT32, boolean, date, decimal, integer, text, oneOf } from './fields.js';
import { type MoneyOptions, moneyFromText } from './money.js';
import { type ValidationResult, validateInput } from './validate.js';

export const OPERATORS = ['EQ', 'NEQ', 'In', 'NIn', 'LT', 'LE', 'GT', 'GE', 'BW', 'NBW', 'CN', 'NCN', 'SW', 'NSW', 'NL', 'NNL'] as const;
export type Operator = (typeof OPERATORS)[number];

/** A filter on one field: the operator and its values (none for NL/NNL, two for BW/NBW). */
export interface FieldCriterion<T> {
  operator: Operator;
  values: T[];
  /**
   * The values are amounts (`field.moneyRange()`): the store binds them as it keeps money (`dialect.money`: SQLite
   * holds ten-thousandths), so `totalDue=0.6` compares with the stored 0.6 exactly. The criteria parser sets it; a
   * criterion a service builds itself on a money column sets it too.
   */
  money?: boolean;
}

export type SortDirection = 'Ascending' | 'Descending';
export interface SortField<F extends string = string> {
  fieldName: F;
  sortDirection: SortDirection;
}

export interface ListOptions<F extends string = string> {
  skip?: number;
  take?: number;
  getTotalCount?: boolean;
  sort?: SortField<F>[];
  /**
   * Keyset paging (lib/storage/list-cursor.ts): the `nextCursor` of the previous page, or '' to start paging this way.
   * The answer then carries the cursor of the next page while there is one.
   */
  cursor?: string;
}

/** The names of ListOptions, at run time: no criteria field may bear one (the compiler checks the list is whole). */
export const LIST_OPTIONS = Object.keys({
  skip: true, take: true, getTotalCount: true, sort: true, cursor: true,
} satisfies Record<keyof ListOptions, true>) as readonly (keyof ListOptions)[];

/** How a field filters: a list field takes several values (In), a range field two (BW). */
export type FieldKind = 'text' | 'list' | 'range' | 'boolean';

export interface FieldSpec<T> {
  kind: FieldKind;
  type: 'string' | 'integer' | 'number' | 'money' | 'date' | 'boolean';
  value: Struct<T, unknown>;
}

/** Any of the field kinds below; superstruct's structs are invariant, so a union stands for "any field". */
export type AnyFieldSpec = FieldSpec<string> | FieldSpec<number> | FieldSpec<Date> | FieldSpec<boolean>;

export const field = {
  text: (): FieldSpec<string> => ({ kind: 'text', type: 'string', value: text() }),
  // List fields hold ids: SQL `integer` columns, so their values are 32-bit.
  list: (): FieldSpec<number> => ({ kind: 'list', type: 'integer', value: integer(INT32) }),
  // Whole numbers stored in SQL `integer` columns: a fraction would not even bind to such a column (PostgreSQL).
  integerRange: (): FieldSpec<number> => ({ kind: 'range', type: 'integer', value: integer(INT32) }),
  dateRange: (): FieldSpec<Date> => ({ kind: 'range', type: 'date', value: date() }),
  // Plain numbers (a `real` or `double precision` column): compared as binary floating point.
  numberRange: (): FieldSpec<number> => ({ kind: 'range', type: 'number', value: decimal() }),
  // Amounts in a money column (`dialect.types.money`): every comparison and the sort exact on every store.
  moneyRange: (options?: MoneyOptions): FieldSpec<number> => ({ kind: 'range', type: 'money', value: moneyFromText(options) }),
  flag: (): FieldSpec<boolean> => ({ kind: 'boolean', type: 'boolean', value: boolean() }),
};

const comparisons: Operator[] = ['EQ', 'NEQ', 'In', 'NIn', 'LT', 'LE', 'GT', 'GE', 'BW', 'NBW', 'NL', 'NNL'];
const operatorsOf: Record<FieldKind, ReadonlySet<Operator>> = {
  text: new Set(OPERATORS),
  list: new Set(comparisons),
  range: new Set(comparisons),
  boolean: new Set<Operator>(['EQ', 'NEQ', 'NL', 'NNL']),
};

/** How many values an operator takes: [min, max]. */
export function arityOf(op: Operator): [number, number] {
  switch (op) {
    case 'NL': case 'NNL': return [0, 0];
    case 'BW': case 'NBW': return [2, 2];
    case 'In': case 'NIn': return [1, MAX_VALUES];
    default: return [1, 1];
  }
}

const MAX_VALUES = 500;
const operatorByName = new Map(OPERATORS.map((op) => [op.toLowerCase(), op]));

type CriteriaOf<S extends Record<string, AnyFieldSpec>> = {
  [K in keyof S]?: S[K] extends FieldSpec<infer T> ? FieldCriterion<T> : never;
};

export type Criteria<S extends Record<string, AnyFieldSpec>, F extends string> = CriteriaOf<S> & ListOptions<F>;

/**
 * The query-string form of list criteria (contract part 3): `field=v` (repeatable), `field.operator=OP`,
 * `skip`, `take`, `getTotalCount`, `cursor`, `sort[i].fieldName`, `sort[i].sortDirection`, all names case-insensitive.
 */
export class CriteriaSchema<S extends Record<string, AnyFieldSpec>, F extends string> {
  private readonly names: Map<string, string>;
  private readonly sortNames: Map<string, F>;
  private readonly sortField: Struct<SortDirection, unknown> = oneOf(['Ascending', 'Descending'] as const);
  private readonly paging = {
    skip: integer({ min: 0 }),
    take: integer({ min: 0 }),
    getTotalCount: boolean(),
    // Opaque to the client; checked against the list it continues when the list is read.
    cursor: text({ max: 4096 }),
  } as const;

  constructor(readonly fields: S, readonly sortable: readonly F[]) {
    this.names = new Map(Object.keys(fields).map((k) => [k.toLowerCase(), k]));
    this.sortNames = new Map(sortable.map((k) => [k.toLowerCase(), k]));
  }

  parse(search: URLSearchParams): ValidationResult<Criteria<S, F>> {
    const values = new Map<string, string[]>();
    const operators = new Map<string, string[]>();
    const paging = new Map<keyof typeof this.paging, string[]>();
    const sorts = new Map<number, { fieldName?: string[]; sortDirection?: string[] }>();
    const messages: ErrorMessage[] = [];
    const push = <K>(map: Map<K, string[]>, key: K, v: string) => (map.get(key) ?? map.set(key, []).get(key)!).push(v);

    for (const [key, v] of search) {
      const lower = key.toLowerCase();
      const sort = /^sort\[(\d{1,2})\]\.(fieldname|sortdirection)$/.exec(lower);
      if (sort) {
        const entry = sorts.get(Number(sort[1])) ?? sorts.set(Number(sort[1]), {}).get(Number(sort[1]))!;
        const prop = sort[2] === 'fieldname' ? 'fieldName' : 'sortDirection';
        (entry[prop] ??= []).push(v);
      } else if (lower.endsWith('.operator') && this.names.has(lower.slice(0, -9))) {
        push(operators, this.names.get(lower.slice(0, -9))!, v);
      } else if (this.names.has(lower)) {
        push(values, this.names.get(lower)!, v);
      } else if (lower === 'skip' || lower === 'take' || lower === 'gettotalcount' || lower === 'cursor') {
        push(paging, lower === 'gettotalcount' ? 'getTotalCount' : lower, v);
      } else {
        messages.push(inputMessage(CODES.Input_UnknownProperty, key, { of: 'criteria field', property: key }));
      }
    }

    const result: Record<string, unknown> = {};
    for (const name of new Set([...values.keys(), ...operators.keys()])) {
      const criterion = this.criterion(name, values.get(name) ?? [], operators.get(name), messages);
      if (criterion) result[name] = criterion;
    }
    for (const [name, texts] of paging) {
      if (texts.length > 1) {
        messages.push(inputMessage(CODES.Input_Duplicate, name, { property: name }));
        continue;
      }
      const checked = validateInput(this.paging[name] as Struct<unknown, null>, texts[0], [name]);
      if (checked.ok) result[name] = checked.value;
      else messages.push(...checked.messages);
    }
    const sort = this.sort(sorts, messages);
    if (sort.length) result.sort = sort;
    return messages.length ? { ok: false, messages } : { ok: true, value: result as Criteria<S, F> };
  }

  private criterion(name: string, texts: string[], ops: string[] | undefined, messages: ErrorMessage[]) {
    const spec = this.fields[name];
    let operator: Operator | undefined;
    if (ops) {
      const property = `${name}.operator`;
      if (ops.length > 1) return void messages.push(inputMessage(CODES.Input_Duplicate, property, { property }));
      operator = operatorByName.get(ops[0].toLowerCase());
      if (!operator) {
        return void messages.push(MESSAGES.Operator_NotSupported({ operator: ops[0], known: OPERATORS, property }));
      }
      if (!operatorsOf[spec.kind].has(operator)) {
        return void messages.push(MESSAGES.Operator_NotSupported({ operator, field: name, property }));
      }
    } else if (texts.length === 1) operator = 'EQ';
    else if (spec.kind === 'range' && texts.length === 2) operator = 'BW';
    else if (spec.kind === 'list' || spec.kind === 'text') operator = 'In';
    else {
      const takes = spec.kind === 'range' ? 'one value, or two for a range' : 'one value';
      return void messages.push(MESSAGES.Criteria_ValueCount({ field: name, takes, property: name }));
    }
    const [min, max] = arityOf(operator);
    if (texts.length < min || texts.length > max) {
      const expected = min === max ? `${min} value${min === 1 ? '' : 's'}` : `between ${min} and ${max} values`;
      return void messages.push(MESSAGES.Criteria_ValueCount({ field: name, takes: expected, operator, got: texts.length, property: name }));
    }
    const checked = validateInput(array(spec.value), texts, [name], () => []);
    if (!checked.ok) return void messages.push(...checked.messages);
    return spec.type === 'money' ? { operator, values: checked.value, money: true } : { operator, values: checked.value };
  }

  private sort(entries: Map<number, { fieldName?: string[]; sortDirection?: string[] }>, messages: ErrorMessage[]): SortField<F>[] {
    const out: SortField<F>[] = [];
    for (const index of [...entries.keys()].sort((a, b) => a - b)) {
      const entry = entries.get(index)!;
      const property = `sort[${index}]`;
      if (!entry.fieldName || entry.fieldName.length !== 1 || (entry.sortDirection && entry.sortDirection.length !== 1)) {
        messages.push(inputMessage(CODES.Input_Invalid, property, { problem: 'it needs exactly one fieldName and at most one sortDirection', property: `${property}.fieldName` }));
        continue;
      }
      const fieldName = this.sortNames.get(entry.fieldName[0].toLowerCase());
      if (!fieldName) {
        messages.push(inputMessage(CODES.Input_InvalidValue, `${property}.fieldName`, { rule: `be one of ${this.sortable.join(', ')}`, property: `${property}.fieldName` }));
        continue;
      }
      let sortDirection: SortDirection = 'Ascending';
      if (entry.sortDirection) {
        const checked = validateInput(this.sortField, entry.sortDirection[0], [property, 'sortDirection']);
        if (!checked.ok) {
          messages.push(...checked.messages);
          continue;
        }
        sortDirection = checked.value;
      }
      out.push({ fieldName, sortDirection });
    }
    return out;
  }
}

export function defineCriteria<S extends Record<string, AnyFieldSpec>, F extends string>(fields: S, sortable: readonly F[]) {
  return new CriteriaSchema(fields, sortable);
}
