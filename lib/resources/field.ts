import type Big from 'big.js';
import type { LookupItem } from '../lookup/lookup-table.js';
import type { MoneyOptions } from '../validation/money.js';

/** A value of a field as the wire carries it. */
export type WireValue = string | number | boolean | Date;

/** A record as rules, defaults and derivations see it: field name → wire value (no value: undefined). */
export type WireRecord = { [field: string]: WireValue | undefined };

/** The kinds of field a declaration can hold. */
export type FieldType = 'text' | 'integer' | 'decimal' | 'money' | 'date' | 'boolean' | 'lookup' | 'reference' | 'via' | 'joined';

/** What a default, an initial value or a rule may ask of the write besides the record. */
export interface ValueContext {
  /** The entry of the lookup table a lookup field names (loaded before the write), or undefined. */
  entry(field: string): LookupItem | undefined;
  /** When the write happens (the same instant for every field of one write). */
  readonly now: Date;
}

/** A value, or how to get it from the record so far. */
export type ValueSource<V> = V | ((record: WireRecord, context: ValueContext) => V | undefined);

/** The resource a reference field points to, as much as a field needs of it (a `Resource` is one). */
export interface ReferenceTarget {
  readonly name: string;
  /** The declared fields, so a `via` field can name one of them (`field.via('customerId', customer.fields.name)`). */
  readonly fields: { readonly [name: string]: { readonly spec: FieldSpec } };
}

/**
 * How a field behaves, for the compiler: the wire type (`value`) and the traits that decide where it appears. The
 * run-time twin is `FieldSpec`; the builder below keeps the two in step.
 */
export interface FieldTraits {
  readonly value: unknown;
  /** On every read: required, defaulted, derived or a total. */
  readonly present: boolean;
  /** The inputs that take it: create and update (`write`), create only, or none (read-only). */
  readonly input: 'write' | 'create' | 'none';
  /** The inputs must give it. */
  readonly required: boolean;
  /** In list items, not only in the record's read. */
  readonly listed: boolean;
  readonly sortable: boolean;
  readonly filter: boolean;
  /** A column of the record's own table (false: read through a join). */
  readonly stored: boolean;
  /** The fields a derived value is computed from (never for others). */
  readonly from: string;
  /** A total of a child collection's field. */
  readonly total: boolean;
}

/** A fresh field: optional, written by create and update, listed, not sorted or filtered. */
type Plain<V> = {
  readonly value: V; readonly present: false; readonly input: 'write'; readonly required: false;
  readonly listed: true; readonly sortable: false; readonly filter: false; readonly stored: true; readonly from: never; readonly total: false;
};

/** `T` with the traits of `U` replacing its own. */
type With<T, U> = { readonly [K in keyof T]: K extends keyof U ? U[K] : T[K] };

/** The wire type of a field's traits. */
export type ValueOf<T> = T extends { readonly value: infer V } ? V : never;

/** A derived value: what `compute` answers, before the layer rounds money and checks its range. */
export type Derived = Big | number | string;

/** The run-time description of a field: everything the layer builds from it. */
export interface FieldSpec {
  readonly type: FieldType;
  /** text: its length; integer and money: their range (money also its scale and precision). */
  readonly min?: number;
  readonly max?: number;
  readonly money?: MoneyOptions;
  /** lookup: the lookup table, the kind of its ids, and the code of the message refusing an inactive or unknown id. */
  readonly lookup?: {
    readonly table: string; readonly id: 'integer' | 'text'; readonly code?: string;
    /** The refusal's text (default: `<field> <id> is not an active entry of lookup table <table>.`). */
    readonly text?: (value: WireValue) => string;
    /** false: an inactive entry is refused on every write, even by a record that holds it already. */
    readonly keepsInactive?: boolean;
  };
  readonly reference?: ReferenceTarget;
  /** via: the reference field it reads through, and the referenced resource's field. */
  readonly via?: { readonly on: string; readonly field: { readonly spec: FieldSpec } };
  /** joined: a column of a table that is no resource, found through a field of this record holding its key. */
  readonly joined?: { readonly table: string; readonly key: string; readonly column: string; readonly on: string };
  readonly required: boolean;
  readonly input: 'write' | 'create' | 'none';
  /** Absent (or null) on create and PUT, null on PATCH: this value. */
  readonly default?: ValueSource<WireValue>;
  /** Absent on create: this value; an update without it keeps the stored one. */
  readonly initially?: ValueSource<WireValue>;
  /** Computed from other numeric fields on every write (money in decimal arithmetic), never sent. */
  readonly derived?: {
    readonly from: readonly string[];
    readonly compute: (values: Readonly<Record<string, number>>) => Derived;
    /** The input blamed when the value is out of range (Amount_TooLarge); by default the field itself. */
    readonly reportOn?: string;
  };
  /** A money total of a child collection's field, kept by every write of a child. */
  readonly sum?: { readonly children: string; readonly field: string };
  readonly listed: boolean;
  readonly sortable: boolean;
  readonly filter: boolean;
  /** Criterion CN reads a trigram index (the migration makes it). */
  readonly contains: boolean;
  readonly unique?: { readonly ignoreCase: boolean };
  /** The column, when it is not the field's snake_case name. */
  readonly column?: string;
}

/**
 * One field of a resource, built by `field.*` and refined by chained calls (`field.text({ max: 100 }).required()`):
 * each call answers a new field whose type carries the trait, so the layer's models, the typed service and the proxy
 * follow from the declaration alone.
 */
export class Field<T> {
  /** For the compiler only: what this field is (never set at run time). */
  declare readonly traits: T;

  constructor(readonly spec: FieldSpec) {}

  private with<U>(patch: Partial<FieldSpec>): Field<With<T, U>> {
    return new Field({ ...this.spec, ...patch });
  }

  /** Create and update must give it (null refused; PATCH cannot clear it); the column is NOT NULL; a text refuses "". */
  required(): Field<With<T, { present: true; required: true }>> {
    return this.with({ required: true });
  }

  /** Absent or null on create and PUT, null on PATCH, means this value (or what the function answers). */
  default(value: ValueSource<ValueOf<T> & WireValue>): Field<With<T, { present: true }>> {
    return this.with({ default: value });
  }

  /** Absent on create means this value; an update that leaves it out (or sends null) keeps the stored one. */
  initially(value: ValueSource<ValueOf<T> & WireValue>): Field<With<T, { present: true }>> {
    return this.with({ initially: value });
  }

  /** Never an input: set by a default, a derivation, a total or a rule. */
  readOnly(): Field<With<T, { input: 'none'; required: false }>> {
    return this.with({ input: 'none', required: false });
  }

  /** Given on create only (an order's customer): updates leave it as it is. */
  createOnly(): Field<With<T, { input: 'create' }>> {
    return this.with({ input: 'create' });
  }

  /** In the record's read only, not in list items. */
  detail(): Field<With<T, { listed: false }>> {
    return this.with({ listed: false });
  }

  /** `sort[0].fieldName` may name it; the migration gives its column an index. */
  sortable(): Field<With<T, { sortable: true }>> {
    return this.with({ sortable: true });
  }

  /** A list criterion of its name (its kind follows from the type); the migration gives its column an index. */
  filter(): Field<With<T, { filter: true }>> {
    return this.with({ filter: true });
  }

  /** Criterion CN (contains) reads a trigram index instead of every row; the migration makes it. */
  contains(): Field<T> {
    return new Field<T>({ ...this.spec, contains: true });
  }

  /** No two records hold one value (`ignoreCase`: nor two that differ in case): a 409 Entity_Duplicate on the field. */
  unique(options: { ignoreCase?: boolean } = {}): Field<T> {
    return new Field<T>({ ...this.spec, unique: { ignoreCase: options.ignoreCase ?? false } });
  }

  /** Stored in `name` rather than the field's snake_case name. */
  column(name: string): Field<T> {
    return new Field<T>({ ...this.spec, column: name });
  }

  /**
   * Computed on every write from the numeric fields `from` (money, decimal, integer, the key), in decimal arithmetic
   * for money (rounded half away from zero to 4 digits): `lineTotal = orderQty × unitPrice × (1 − discount)`. Never
   * an input. A value beyond the money range refuses the write with Amount_TooLarge on `reportOn` (else the field).
   * A text derived from the key alone (`SO${id}`) is set once, by the create.
   */
  derived<K extends string>(
    from: readonly K[], compute: (values: Readonly<Record<K, number>>) => Derived, options: { reportOn?: string } = {},
  ): Field<With<T, { input: 'none'; present: true; required: false; from: K }>> {
    return this.with({ input: 'none', required: false, derived: { from, compute: compute as (values: Readonly<Record<string, number>>) => Derived, ...options } });
  }

  /** The exact sum of a money field of the record's children, kept by every write of a child in its transaction. */
  sum(children: string, field: string): Field<With<T, { input: 'none'; present: true; required: false; total: true }>> {
    return this.with({ input: 'none', required: false, sum: { children, field } });
  }
}

/** Any field, whatever its traits. */
export type AnyField = Field<unknown>;

const base = (type: FieldType, more: Partial<FieldSpec> = {}): FieldSpec => ({
  type, required: false, input: 'write', listed: true, sortable: false, filter: false, contains: false, ...more,
});

/** A field whose value is read through a join: never an input, never stored in the record's table. */
type Joined<V> = With<Plain<V>, { input: 'none'; stored: false; present: true }>;

/**
 * The field builders of a declaration. Each answers an optional field that create and update take; chain the traits
 * (`.required()`, `.sortable()`, …). What each type is on the wire and in the store:
 */
export const field = {
  /** A string of at most `max` characters (varchar(max); text without). */
  text: (options: { max?: number; min?: number } = {}) => new Field<Plain<string>>(base('text', options)),
  /** A whole number in `min`..`max` (default: 32 bits, what an SQL integer holds). */
  integer: (options: { min?: number; max?: number } = {}) => new Field<Plain<number>>(base('integer', options)),
  /** A binary floating-point number (double precision): use money() for amounts. */
  decimal: () => new Field<Plain<number>>(base('decimal')),
  /** An exact amount: at most 4 fractional digits, stored exactly (numeric(15,4); SQLite ten-thousandths). */
  money: (options: MoneyOptions = {}) => new Field<Plain<number>>(base('money', { money: options, min: options.min, max: options.max })),
  /** An instant, ISO 8601 on the wire. */
  date: () => new Field<Plain<Date>>(base('date')),
  boolean: () => new Field<Plain<boolean>>(base('boolean')),
  /** An active id of lookup table `table` (integer ids; `{ id: 'text', max }` for string ids such as currency codes). */
  lookup: <I extends 'integer' | 'text' = 'integer'>(
    table: string, options: { id?: I; max?: number; code?: string; text?: (value: WireValue) => string; keepsInactive?: boolean } = {},
  ) => {
    const { id, max, ...refusal } = options;
    return new Field<Plain<I extends 'text' ? string : number>>(base('lookup', {
      lookup: { table, id: id ?? 'integer', ...refusal }, ...(max ? { max } : {}),
    }));
  },
  /**
   * The id of a record of another resource, resolved as the caller may read that resource (its read permission and
   * scopes): one out of reach answers exactly as an unknown one, `<Resource>_Unknown<Other>` on the field.
   */
  reference: (target: ReferenceTarget) => new Field<Plain<number>>(base('reference', { reference: target })),
  /** A field of the record a reference field names, read through a join (an order's `customerName`). */
  via: <V>(on: string, target: Field<V>) =>
    new Field<Joined<ValueOf<V>>>(base('via', { via: { on, field: target }, input: 'none' })),
  /** A text column of a table that is no resource, joined through a field holding its key (a line's `productName`). */
  joined: (options: { table: string; key: string; column: string; on: string }) =>
    new Field<Joined<string>>(base('joined', { joined: options, input: 'none' })),
};
