import type { ErrorMessage } from '../envelope/error-message.js';
import type { RequestAccess } from '../envelope/request-scope.js';
import type { LookupItem } from '../lookup/lookup-table.js';
import type { RecordScopes } from '../storage/record-scope.js';
import type { WireRecord, WireValue } from './field.js';
import type { LookupCache } from '../lookup/lookup-cache.js';
import type { Storage } from '../storage/storage.js';
import type { ActionShape, ChildShape, Fields, ResourceService, StoredRecordOf } from './wire-types.js';

/**
 * What a rule sees of one write and may do about it. `after` is the record as it will be stored (defaults applied,
 * derived values not yet): a rule may set fields on it, read-only ones too (an order's territory from its customer).
 */
export interface Change<Rec = WireRecord> {
  /** `create`, `update`, `patch`, an action's audit operation (`pay`, `mark-paid`), or a child's `line-create`, `line-update`, `line-patch`. */
  readonly operation: string;
  /** The record as stored before the write; undefined on create. */
  readonly before: Readonly<Rec> | undefined;
  readonly after: Rec;
  /** For a child's write: its parent as stored (locked for the write). */
  readonly parent?: WireRecord;
  /** Who writes: undefined outside a request (the CLI, jobs, seeding). */
  readonly caller: RequestAccess | undefined;
  /** The instant of the write. */
  readonly now: Date;
  /**
   * Refuses the write with a message on the record, or on `property` (the input's path: `dueDate`, `lines[2].orderQty`
   * is made for a document's create). Every rule still runs, so the answer lists every problem; nothing is written.
   */
  fail(code: string, text: string, options?: { property?: string; status?: number }): void;
  /** Refuses it with a message of a catalogue (an application's `defineMessages`), so its text follows the caller's language. */
  fail(message: ErrorMessage): void;
  /** The entry of the lookup table a lookup field of `after` names (undefined when there is none). */
  entry(field: string): LookupItem | undefined;
  /**
   * The record a reference field of `after` names, as the caller may read it (resolved before the write). A record's
   * rule run for a write of its child finds none: only the child's references are resolved then.
   */
  reference(field: string): WireRecord | undefined;
}

/**
 * A business rule: runs inside every create, update, patch and action of the record, after the layer checked the
 * input, its lookups and references, before derived values are computed. A resource's rules run for every write of
 * its children too, since that changes the record: `operation` is the child's (`line-create`…), `before` the record
 * as stored and `after` it with its new totals (a paid invoice's lines cannot change either, with no rule of the
 * child's); declared on a child, a rule runs for each write of that child. Synchronous, so it can run inside the write's transaction (which on SQLite holds the only connection):
 * what it needs besides the record is loaded before (lookup entries, referenced records).
 *
 * Typed by the fields it reads (`Rule<{ orderDate: Date; dueDate?: Date }>`), a rule written in a file of its own
 * fits any resource that has those fields.
 */
export type Rule<Rec = WireRecord> = (change: Change<Rec>) => void;

/** A child collection: records that belong to one parent and are written with it (an order's lines). */
export interface ChildDeclaration<F extends Fields = Fields> extends ChildShape {
  /** The singular name: `line` gives the methods `readLine`, `createLine`… and the audit operations `line-create`… */
  readonly item: string;
  /** The route segment under the parent's item path (default: `item`): `/sales-order/{id}/detail`. */
  readonly path?: string;
  /** Default: the parent's table and the item, `sales_order_line`. */
  readonly table?: string;
  /** The wire name of the child's id (default: the parent's name and the item, `salesOrderLineId`). */
  readonly key?: string;
  /** The name messages give it (default: the parent's and the item's, `Sales order line`). */
  readonly entity?: string;
  readonly fields: F;
  /** The child's own rules (`change.parent` is its parent as stored). Typed by the fields: declare it with `child()`. */
  readonly rules?: readonly Rule<StoredRecordOf<F>>[];
}

/** The children a declaration may hold: any `child()` (its rules typed by its own fields). */
export type Children = { readonly [property: string]: ChildShape & Omit<ChildDeclaration, 'fields' | 'rules'> & { readonly rules?: readonly unknown[] } };

/** A child collection whose rules are typed by its own fields. */
export function child<const F extends Fields, const D extends Omit<ChildDeclaration<F>, 'fields'>>(declaration: D & { readonly fields: F }): D & { readonly fields: F } {
  return declaration;
}

/**
 * An operation of its own on one record, declared under a camelCase key (`markPaid`, its service's and proxy's method):
 * `POST /<resource>/{id}/<path>` with its own permission, the path the key in kebab-case (`mark-paid`).
 */
export interface ActionDeclaration<I extends Fields = Fields> extends ActionShape {
  /** The body's fields (besides `revisionNumber`, which every action takes for its concurrency check). */
  readonly input?: I;
  /** Default: `<resource>.<path>` (`invoice.mark-paid`). */
  readonly permission?: string;
  /** The operation its audit entries record (default: its path, `mark-paid`). */
  readonly audit?: string;
  /** One line for the API document. */
  readonly summary?: string;
  /**
   * What the action does to the record, as a rule does: `change.after` is the record to store (set its fields),
   * `change.input` the body; `change.fail` refuses it. Then the write is an update's: revision, audit, reach.
   */
  run(change: Change & { readonly input: { readonly [name: string]: WireValue | undefined } }): void;
}

export type Actions = { readonly [name: string]: ActionDeclaration };

/**
 * An action, its `run` typed where it is written (`actions: { pay: action({ input: {…}, run(change) {…} }) }`): the
 * resource's own inference cannot type a function inside its declaration's actions.
 */
export function action<const I extends Fields>(declaration: ActionDeclaration<I>): ActionDeclaration<I> {
  return declaration;
}

/** Another resource's table whose rows refer to this one's (a foreign key): deleting a record they refer to is a 409. */
export interface ReferringTable {
  readonly table: string;
  readonly column: string;
  /** What its rows are called in the message: `sales order` (`3 sales orders refer to it`). */
  readonly name: string;
  /** Its soft-delete column, when its rows are soft-deleted: deleted rows refer to nothing. */
  readonly softDelete?: string;
}

/** The shape the compiler knows a declaration by. */
export type ShapeOf<N extends string, K extends string, F extends Fields, C extends Children, A extends Actions> =
  { readonly name: N; readonly key: K; readonly fields: F; readonly children: C; readonly actions: A };

/**
 * What a resource's own code gives its service: operations that replace defaults (each typed as the default it
 * replaces), and methods of its own that no route serves (a job's bulk purge).
 */
export type ServiceCode<S extends ShapeOf<string, string, Fields, Children, Actions>> =
  Partial<ResourceService<S>> & { readonly [method: string]: unknown };

/** One entry of a declared lookup table: active unless it says `isActive: false`, no attributes unless given. */
export interface LookupEntry {
  readonly id: string | number;
  readonly text: string;
  readonly isActive?: boolean;
  readonly attributes?: Readonly<Record<string, unknown>>;
}

/**
 * A lookup table a resource brings (`lookups: { currency: { entries: [...] } }`), served at `GET /lookup-table/<type>`
 * and cached as every lookup table is: fixed entries, or a loader that reads them from the store whenever the table
 * loads (after a flush too). A lookup field of any resource may name it.
 */
export interface LookupDeclaration {
  /** Whether text ids match in their case only (default: `EUR` and `eur` name one entry). */
  readonly caseSensitive?: boolean;
  readonly entries?: readonly LookupEntry[];
  load?(storage: Storage): Promise<readonly LookupEntry[]>;
}

/** What a resource's own code is given of the server: its store and the lookup tables. */
export interface ServiceStore {
  readonly storage: Storage;
  readonly lookups: LookupCache;
}

/** The declaration of a resource: plain data and a few functions (rules, actions), read in one screen. */
export interface ResourceDeclaration<N extends string, K extends string, F extends Fields, C extends Children, A extends Actions, X extends object = Record<never, never>> {
  /** Kebab-case (`sales-order`): routes `/sales-order`, permissions `sales-order.read`…, service key `salesOrder`. */
  readonly name: N;
  /** The wire name of the id (default `salesOrderId`); its column is its snake_case name. */
  readonly key?: K;
  /** Default: the name in snake_case (`sales_order`). */
  readonly table?: string;
  /** The name messages give a record (default: `Sales order`). */
  readonly entity?: string;
  readonly fields: F;
  readonly children?: C;
  /** Named conditions that limit a permission to some records (docs/record-scopes.md); the layer applies them everywhere. */
  readonly scopes?: RecordScopes;
  /** Business rules of every write (lib/resources/declaration.ts, `Rule`), typed by the fields they read. */
  readonly rules?: readonly Rule<StoredRecordOf<F>>[];
  readonly actions?: A;
  /**
   * A delete marks the record deleted (its `deleted_at` column, the instant of the delete) instead of removing it, with
   * its children: every statement the layer builds then skips deleted records, `?deleted=true` lists them for holders
   * of `<name>.delete`, and `POST /<name>/{id}/restore` brings one back (contract part 13). The table needs the column
   * and its unique indexes a `where deleted_at is null` (docs/soft-delete.md).
   */
  readonly softDelete?: boolean;
  /**
   * Its records belong to tenants (contract part 12, docs/tenancy.md): with `Tenancy:Enabled`, every statement the
   * layer builds reaches only the caller's tenant's records, a create stores the caller's tenant, unique values hold
   * within a tenant. The table needs a `tenant_id` column and unique indexes that lead with it.
   */
  readonly tenant?: boolean;
  /** Lookup tables it brings, by type (`currency`): its lookup fields, or any resource's, name them. */
  readonly lookups?: { readonly [type: string]: LookupDeclaration };
  /** Tables of resources that are not declared (or not yet) whose rows refer to these records. */
  readonly referredToBy?: readonly ReferringTable[];
  /**
   * What the declaration cannot say, written by hand in the same resource: given the default operations (typed) and
   * the store, answers the operations that replace defaults (a wrapper calls the default it was given, before or
   * after its own work) and methods of its own. Called once per server, when the module serves the resource.
   */
  readonly service?: (defaults: ResourceService<ShapeOf<N, K, F, C, A>>, store: ServiceStore) => X & ServiceCode<ShapeOf<N, K, F, C, A>>;
}
