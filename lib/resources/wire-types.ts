import type { AuditEntry, HistoryPage } from '../audit/audit-models.js';
import type { Output } from '../envelope/output.js';
import type { FieldCriterion, ListOptions } from '../validation/criteria.js';
import type { PatchOf } from '../validation/merge-patch.js';
import type { AnyField, Field } from './field.js';
import type { Camel } from './names.js';

/**
 * The wire types of a declaration, for the compiler: the records, inputs and outputs the layer serves, and the
 * typed service and proxy. Each follows from the fields' traits (lib/resources/field.ts), as the run-time models
 * (models.ts) follow from their specs.
 */

/** A resource's fields by wire name, in wire order. */
export type Fields = { readonly [name: string]: AnyField };

/** What the compiler needs of a child collection's declaration. */
export interface ChildShape {
  readonly item: string;
  readonly path?: string;
  readonly key?: string;
  readonly fields: Fields;
}
export type ChildShapes = { readonly [property: string]: ChildShape };

/** What the compiler needs of an action's declaration. */
export interface ActionShape {
  readonly input?: Fields;
}
export type ActionShapes = { readonly [name: string]: ActionShape };

/** A resource as the compiler knows it: its name, the wire name of its key, its fields, children and actions. */
export interface Shape {
  readonly name: string;
  readonly key: string;
  readonly fields: Fields;
  readonly children: ChildShapes;
  readonly actions: ActionShapes;
}

/** Flattens intersections, so the editor shows a record as one object. */
export type Simplify<T> = { [K in keyof T]: T[K] } & {};

type TraitsOf<F> = F extends Field<infer T> ? T : never;
type Value<F> = TraitsOf<F> extends { readonly value: infer V } ? V : never;
/** The names of `F`'s fields whose traits have `trait` of type `V`. */
type Having<F extends Fields, Trait extends string, V> = { [K in keyof F]: TraitsOf<F[K]> extends { readonly [P in Trait]: V } ? K : never }[keyof F];

/** The fields as a record is read: those present on every read, and the others optional (absent, never null). */
export type RecordOf<F extends Fields> = Simplify<
  { [K in Having<F, 'present', true>]: Value<F[K]> } & { [K in Exclude<keyof F, Having<F, 'present', true>>]?: Value<F[K]> }>;

/** The stored fields only (no joined ones): what rules, defaults and derivations see before a write. */
export type StoredRecordOf<F extends Fields> = RecordOf<Pick<F, Having<F, 'stored', true>>>;

type KeyOf<S extends Shape> = { [K in S['key']]: number };
type Revision = { revisionNumber: number; modifiedDate: Date };

/** The wire name of a child's key: declared, or the parent's name and the item (`salesOrderLineId`). */
export type ChildKey<S extends Shape, C extends keyof S['children']> =
  S['children'][C] extends { readonly key: infer K extends string } ? K : `${Camel<S['name']>}${Capitalize<S['children'][C]['item']>}Id`;

/** The route segment of a child collection: declared, or its item (`/sales-order/{id}/detail`). */
export type ChildPath<S extends Shape, C extends keyof S['children']> =
  S['children'][C] extends { readonly path: infer P extends string } ? P : S['children'][C]['item'];

/** One child as reads answer it. */
export type ChildRead<S extends Shape, C extends keyof S['children']> =
  Simplify<{ [K in ChildKey<S, C>]: number } & RecordOf<S['children'][C]['fields']>>;

/** One record as `GET /<resource>/{id}` answers it: key, fields, children, revision. */
export type ReadOf<S extends Shape> = Simplify<KeyOf<S> & RecordOf<S['fields']> & { [C in keyof S['children']]: ChildRead<S, C>[] } & Revision>;

/** One item of `GET /<resource>`: the key and the fields not marked `detail()`. */
export type ListItemOf<S extends Shape> = Simplify<KeyOf<S> & RecordOf<Pick<S['fields'], Having<S['fields'], 'listed', true>>>>;

/** An input's fields: the required ones, and the others optional where null means "no value". */
type InputFields<F extends Fields, Taken extends keyof F> = Simplify<
  { [K in Extract<Taken, Having<F, 'required', true>>]: Value<F[K]> } & { [K in Exclude<Taken, Having<F, 'required', true>>]?: Value<F[K]> | null }>;

type Written<F extends Fields> = Having<F, 'input', 'write'>;
type Created<F extends Fields> = Having<F, 'input', 'write' | 'create'>;

/** The body of a child's POST and PUT (and of one element of the parent create's array, less the revision). */
export type ChildInputOf<S extends Shape, C extends keyof S['children']> = InputFields<S['children'][C]['fields'], Written<S['children'][C]['fields']>>;

/** The body of `POST /<resource>`: the fields create takes, and each child collection's items, all optional. */
export type CreateOf<S extends Shape> = Simplify<InputFields<S['fields'], Created<S['fields']>> & { [C in keyof S['children']]?: ChildInputOf<S, C>[] }>;

/** The body of `PUT /<resource>/{id}`: the fields an update takes; optional ones left out are cleared (PUT replaces). */
export type UpdateOf<S extends Shape> = Simplify<InputFields<S['fields'], Written<S['fields']>> & { revisionNumber?: number | null }>;

/** The body of PATCH (JSON merge patch): any field of the update, null clearing an optional one. */
export type PatchInputOf<S extends Shape> = PatchOf<UpdateOf<S>>;

/** What an update (PUT, PATCH, an action) answers. */
export type UpdateOutput = Revision;

/** What a create answers: the key, the fields that follow from the key alone (an order's number), the revision. */
export type CreateOutputOf<S extends Shape> = Simplify<KeyOf<S> & { [K in DerivedFrom<S['fields'], S['key']>]: Value<S['fields'][K]> } & Revision>;

/** The list criteria: each filterable field's criterion, paging, the count and the sort over the sortable ones. */
export type CriteriaOf<S extends Shape> = Simplify<{ [K in Having<S['fields'], 'filter', true>]?: FieldCriterion<Value<S['fields'][K]>> }
  & ListOptions<S['key'] | (Having<S['fields'], 'sortable', true> & string)>>;

/** The parent's fields a child write moves: its totals and what is derived from them. */
type Totals<S extends Shape> = Having<S['fields'], 'total', true> | DerivedFrom<S['fields'], Having<S['fields'], 'total', true>>;

/** The names of `F`'s derived fields computed from any of `From` (a field that is not derived has `from: never`). */
type DerivedFrom<F extends Fields, From> = {
  [K in keyof F]: TraitsOf<F[K]> extends { readonly from: infer D } ? ([D] extends [never] ? never : [Extract<D, From>] extends [never] ? never : K) : never
}[keyof F];

/** What a child write answers: the child's id and derived values (absent after a delete), the parent's totals and revision. */
export type ChildWriteOf<S extends Shape, C extends keyof S['children']> = Simplify<
  { [K in ChildKey<S, C>]?: number }
  & { [K in Extract<Having<S['children'][C]['fields'], 'input', 'none'>, Having<S['children'][C]['fields'], 'stored', true>>]?: Value<S['children'][C]['fields'][K]> }
  & { [K in Totals<S>]: Value<S['fields'][K]> } & { revisionNumber: number }>;

/**
 * The body of an action: its input fields and the revision to check. An action declared without input is typed with
 * `Fields` (`action()` infers no narrower one), whose index signature would make `revisionNumber` a field of no value:
 * its body is the revision alone.
 */
export type ActionInputOf<S extends Shape, A extends keyof S['actions']> =
  Simplify<(NonNullable<S['actions'][A]['input']> extends infer I extends Fields ? (string extends keyof I ? unknown : InputFields<I, keyof I>) : unknown) & { revisionNumber?: number | null }>;

type ChildMethods<S extends Shape> =
  & { [C in keyof S['children'] & string as `read${Capitalize<C>}`]: (id: number) => Promise<Output<ChildRead<S, C>[]>> }
  & { [C in keyof S['children'] & string as `read${Capitalize<S['children'][C]['item']>}`]: (id: number, childId: number) => Promise<Output<ChildRead<S, C>>> }
  & { [C in keyof S['children'] & string as `create${Capitalize<S['children'][C]['item']>}`]:
    (id: number, data: ChildInputOf<S, C> & { revisionNumber?: number | null }) => Promise<Output<ChildWriteOf<S, C>>> }
  & { [C in keyof S['children'] & string as `update${Capitalize<S['children'][C]['item']>}`]:
    (id: number, childId: number, data: ChildInputOf<S, C> & { revisionNumber?: number | null }) => Promise<Output<ChildWriteOf<S, C>>> }
  & { [C in keyof S['children'] & string as `patch${Capitalize<S['children'][C]['item']>}`]:
    (id: number, childId: number, data: PatchOf<ChildInputOf<S, C> & { revisionNumber?: number | null }>) => Promise<Output<ChildWriteOf<S, C>>> }
  & { [C in keyof S['children'] & string as `delete${Capitalize<S['children'][C]['item']>}`]:
    (id: number, childId: number, revisionNumber?: number) => Promise<Output<ChildWriteOf<S, C>>> };

type ActionMethods<S extends Shape> = { [A in keyof S['actions'] & string]: (id: number, input: ActionInputOf<S, A>) => Promise<Output<UpdateOutput>> };

/** The operations every resource has. */
export interface CrudService<S extends Shape> {
  read(id: number): Promise<Output<ReadOf<S>>>;
  readList(criteria: CriteriaOf<S>): Promise<Output<ListItemOf<S>[]>>;
  /** Creates the record (with its children, if given), or nothing. */
  create(data: CreateOf<S>): Promise<Output<CreateOutputOf<S>>>;
  update(id: number, data: UpdateOf<S>): Promise<Output<UpdateOutput>>;
  /** Changes only the fields `data` names (JSON merge patch); answers what update answers. */
  patch(id: number, data: PatchInputOf<S>): Promise<Output<UpdateOutput>>;
  /**
   * Removes the record with its children (marks it deleted, when soft-deletable). `revisionNumber`: the revision the
   * caller believes it has; a stale one is a 409 Entity_Concurrency and nothing is deleted.
   */
  delete(id: number, revisionNumber?: number): Promise<Output>;
  /** The record's change history, newest first; a deleted record's stays readable by holders of `<resource>.delete`. */
  history(id: number, page?: HistoryPage): Promise<Output<AuditEntry[]>>;
  /** Of a soft-deletable resource only: brings a deleted record back. */
  restore?(id: number, input?: { revisionNumber?: number | null }): Promise<Output<UpdateOutput>>;
}

/** The service the layer runs for a resource: the same interface on the server and, over HTTP, in the proxy. */
export type ResourceService<S extends Shape> = CrudService<S> & ChildMethods<S> & ActionMethods<S>;
