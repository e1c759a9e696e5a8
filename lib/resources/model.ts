import type { RecordScopes } from '../storage/record-scope.js';
import type { TenantReference } from '../storage/tenant-adoption.js';
import type { ActionDeclaration, Children, ReferringTable, Rule } from './declaration.js';
import type { FieldSpec, ReferenceTarget } from './field.js';
import { camelCase, humanName, kebabCase, pascalCase, snakeCase, upperFirst } from './names.js';
import type { Fields } from './wire-types.js';

/**
 * A declaration as the layer runs it, worked out once when the module is loaded: every name, column and join, and
 * the checks a declaration must pass (a wrong one stops the import with a message naming the field). Nothing here
 * needs a store: the runtime (./runtime/) adds that.
 */

/** How a field of another table is read: joined by a field of this record that holds that table's key. */
export interface FieldJoin {
  readonly table: string;
  /** The alias the join goes by in every statement (`customer_id_ref`), and its key column. */
  readonly alias: string;
  readonly key: string;
  /** This record's column holding the key. */
  readonly on: string;
  /** The joined table's column the field reads. */
  readonly column: string;
  /** The joined table's tenant column, when its records belong to tenants (lists then join within the caller's tenant). */
  readonly tenant?: string;
  /**
   * The joined record's revision column, when the join reads a resource (a `via`): every write of that record moves
   * it, so a record's ETag can stand for what it shows of it (./runtime/version-tag.ts).
   */
  readonly revision?: string;
}

export interface ResourceField {
  readonly name: string;
  /** The record's column (for a joined field: the joined table's, read through `join`). */
  readonly column: string;
  readonly spec: FieldSpec;
  /**
   * What its values are (type and limits): its own spec, but for a field read through a join the spec of the field
   * it reads (a `via` of a customer's name is a text of at most 100 characters), never `via` or `joined`.
   */
  readonly value: FieldSpec;
  readonly stored: boolean;
  readonly join?: FieldJoin;
}

/** A name and its ways of being written. */
export interface Names {
  /** `sales-order`. */
  readonly name: string;
  /** `SalesOrder`: message codes, the interface (`ISalesOrderService`). */
  readonly pascal: string;
  /** `salesOrder`: the service key (`call.services.salesOrder`). */
  readonly camel: string;
  /** `Sales order`: messages. */
  readonly entity: string;
  readonly table: string;
  /** The key's wire name (`salesOrderId`), column (`sales_order_id`) and route parameter (`_salesOrderId`). */
  readonly key: string;
  readonly keyColumn: string;
  readonly param: string;
}

export interface ChildModel extends Names {
  /** The parent's property holding the children (`lines`), and its method names' (`Lines`). */
  readonly property: string;
  /** `line`, `Line`: the single child's methods (`readLine`) and audit operations (`line-create`). */
  readonly item: string;
  readonly itemPascal: string;
  /** The route segment under the parent's item (`detail`). */
  readonly path: string;
  /** The child's column holding its parent's key. */
  readonly parentColumn: string;
  readonly fields: readonly ResourceField[];
  readonly rules: readonly Rule[];
}

/**
 * An action as the layer serves it: its declaration with its names worked out once. Its key (`markPaid`) is its code
 * name — the routes group, the service's and the proxy's method; its wire names are kebab-case, as a resource's and a
 * child path's are: the path segment (`POST /invoice/{id}/mark-paid`, route file `mark-paid.ts`), the default
 * permission (`invoice.mark-paid`) and the audit operation (`mark-paid`). A one-word action's are its key, as before.
 */
export interface ActionModel extends ActionDeclaration {
  /** The declaration's key (`markPaid`). */
  readonly name: string;
  /** Its path segment (`mark-paid`). */
  readonly path: string;
  /** The permission its route needs: the declared one, else `<resource>.<path>`. */
  readonly permission: string;
  /** The operation its audit entries and its rules' `change.operation` name: the declared one, else its path. */
  readonly audit: string;
}

export interface ResourceModel extends Names {
  readonly fields: readonly ResourceField[];
  readonly children: readonly ChildModel[];
  readonly scopes?: RecordScopes;
  readonly rules: readonly Rule[];
  /** By their declaration's key. */
  readonly actions: Readonly<Record<string, ActionModel>>;
  readonly referredToBy: readonly ReferringTable[];
  /** `<name>.read`, `.create`, `.update`, `.delete`. */
  readonly permissions: { readonly read: string; readonly create: string; readonly update: string; readonly delete: string };
  /** The record's revision and modified-date columns. */
  readonly revision: string;
  readonly modified: string;
  /** The soft-delete column (`deleted_at`) when the declaration says `softDelete`: a deleted record's instant of deletion. */
  readonly softDelete?: string;
  /** The tenant column (`tenant_id`) when the declaration says `tenant`: the tenant the record belongs to ('' none yet). */
  readonly tenant?: string;
  /** Its reference columns to tenant-owned records: a record made while tenancy was off takes the tenant of what it names. */
  readonly tenantReferences?: readonly TenantReference[];
}

/** What the model needs of a declaration (its typed form is ResourceDeclaration). */
export interface DeclarationInput {
  readonly name: string;
  readonly key?: string;
  readonly table?: string;
  readonly entity?: string;
  readonly fields: Fields;
  readonly children?: Children;
  readonly scopes?: RecordScopes;
  readonly rules?: readonly unknown[];
  readonly actions?: Readonly<Record<string, ActionDeclaration>>;
  readonly referredToBy?: readonly ReferringTable[];
  readonly softDelete?: boolean;
  readonly tenant?: boolean;
}

/** A declaration that cannot run: thrown when its module is imported, naming what is wrong. */
export class DeclarationError extends Error {
  constructor(resource: string, problem: string) {
    super(`resource ${resource}: ${problem}`);
    this.name = 'DeclarationError';
  }
}

const KEBAB = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/;
const CAMEL = /^[a-z][a-zA-Z0-9]*$/;
const NUMERIC = new Set(['integer', 'decimal', 'money']);

/** Builds the fields of one table: names, columns and joins, with every check a field must pass. */
function fieldsOf(owner: string, key: string, declared: Fields, others: ReadonlySet<string>, aliases = ''): ResourceField[] {
  const problem = (text: string) => new DeclarationError(owner, text);
  const names = Object.keys(declared);
  const lower = new Set<string>();
  for (const name of names) {
    if (!CAMEL.test(name)) throw problem(`field ${name}: a field name is camelCase, a letter first`);
    if (lower.has(name.toLowerCase()) || others.has(name.toLowerCase())) throw problem(`field ${name}: two fields of one name (names match case-insensitively)`);
    lower.add(name.toLowerCase());
  }
  return names.map((name) => {
    const spec = declared[name].spec;
    const where = `field ${name}`;
    if (spec.unique && !['text', 'integer', 'decimal', 'date', 'lookup'].includes(spec.type)) throw problem(`${where}: a ${spec.type} field cannot be unique`);
    if (spec.contains && !(spec.type === 'text' || spec.type === 'via' || spec.type === 'joined')) throw problem(`${where}: contains() is for text fields`);
    if (spec.required && spec.input === 'none') throw problem(`${where}: a read-only field is never an input, so it cannot be required`);
    if (spec.derived) {
      for (const from of spec.derived.from) {
        const source = from === key ? 'integer' : declared[from]?.spec.type;
        if (!source) throw problem(`${where}: derived from ${from}, which is not a field`);
        if (!NUMERIC.has(source)) throw problem(`${where}: derived from ${from}, a ${source} field: derivations compute with numbers`);
      }
      const fromKeyOnly = spec.derived.from.length === 1 && spec.derived.from[0] === key;
      if (spec.type === 'text' && !fromKeyOnly) throw problem(`${where}: a text is derived from the key alone`);
      if (!NUMERIC.has(spec.type) && spec.type !== 'text') throw problem(`${where}: a ${spec.type} field cannot be derived`);
    }
    if (spec.sum && spec.type !== 'money') throw problem(`${where}: a total is a money field`);
    if (spec.via) {
      const on = declared[spec.via.on]?.spec;
      if (on?.type !== 'reference' || !on.reference) throw problem(`${where}: via ${spec.via.on}, which is not a reference field`);
      if (!on.required) throw problem(`${where}: via ${spec.via.on}, which must be required (a join must find exactly one record)`);
      const target = referencedField(on.reference, spec.via.field);
      if (!target) throw problem(`${where}: the field it reads is not a field of ${on.reference.name}`);
      const join: FieldJoin = {
        table: tableOf(on.reference), alias: `${aliases}${snakeCase(spec.via.on)}_ref`, key: keyColumnOf(on.reference), on: columnOf(spec.via.on, on),
        column: columnOf(target, spec.via.field.spec),
        ...((on.reference as ModelledTarget).model?.tenant ? { tenant: (on.reference as ModelledTarget).model!.tenant } : {}),
        ...((on.reference as ModelledTarget).model ? { revision: (on.reference as ModelledTarget).model!.revision } : {}),
      };
      return { name, column: join.column, spec, value: spec.via.field.spec, stored: false, join };
    }
    if (spec.joined) {
      const on = declared[spec.joined.on]?.spec;
      if (!on) throw problem(`${where}: joined on ${spec.joined.on}, which is not a field`);
      if (!on.required) throw problem(`${where}: joined on ${spec.joined.on}, which must be required (a join must find exactly one row)`);
      const join: FieldJoin = { table: spec.joined.table, alias: `${aliases}${snakeCase(spec.joined.on)}_ref`, key: spec.joined.key, on: columnOf(spec.joined.on, on), column: spec.joined.column };
      return { name, column: join.column, spec, value: { ...spec, type: 'text' }, stored: false, join };
    }
    return { name, column: columnOf(name, spec), spec, value: spec, stored: true };
  });
}

const columnOf = (name: string, spec: FieldSpec) => spec.column ?? snakeCase(name);

/** What the layer reads of a referenced resource: it is a Resource, whose model says its table and key. */
interface ModelledTarget extends ReferenceTarget {
  readonly model?: ResourceModel;
}
/** The model of a referenced resource (every ReferenceTarget the layer is given is a Resource, which carries it). */
export function targetModel(target: ReferenceTarget): ResourceModel {
  const model = (target as ModelledTarget).model;
  if (!model) throw new Error(`reference to ${target.name}: not a resource declared with resource()`);
  return model;
}
const tableOf = (target: ReferenceTarget) => (target as ModelledTarget).model?.table ?? snakeCase(target.name);
const keyColumnOf = (target: ReferenceTarget) => (target as ModelledTarget).model?.keyColumn ?? `${snakeCase(target.name)}_id`;
function referencedField(target: ReferenceTarget, wanted: { readonly spec: FieldSpec }): string | undefined {
  return Object.entries(target.fields).find(([, f]) => f.spec === wanted.spec)?.[0];
}

/** The checks that need every field: what derivations, totals and joins name. */
function checkTotals(owner: string, fields: readonly ResourceField[], children: readonly ChildModel[]) {
  for (const f of fields) {
    if (!f.spec.sum) continue;
    const child = children.find((c) => c.property === f.spec.sum!.children);
    if (!child) throw new DeclarationError(owner, `field ${f.name}: the total of ${f.spec.sum.children}, which is no child collection`);
    const summed = child.fields.find((c) => c.name === f.spec.sum!.field);
    if (summed?.spec.type !== 'money') throw new DeclarationError(owner, `field ${f.name}: the total of ${f.spec.sum.children}.${f.spec.sum.field}, which is no money field of it`);
  }
}

/**
 * The column a soft-deletable record's deletion is kept in: the instant, not a flag, so `restlayer purge --older-than`
 * finds what was deleted long enough ago, and NULL for a record not deleted, so unique indexes take
 * `where deleted_at is null` on both stores.
 */
export const SOFT_DELETE_COLUMN = 'deleted_at';

/**
 * The column a tenant-owned record's tenant is kept in: text, never NULL ('' for a record created while tenancy was
 * off, which turning it on gives to `Tenancy:DefaultTenant`), so unique indexes that lead with it hold on both stores.
 */
export const TENANT_COLUMN = 'tenant_id';

/** The stored reference fields whose records belong to tenants. */
function tenantReferencesOf(fields: readonly ResourceField[]): TenantReference[] {
  return fields.flatMap((f) => {
    const target = f.stored && f.spec.type === 'reference' ? (f.spec.reference as ModelledTarget | undefined)?.model : undefined;
    return target?.tenant ? [{ column: f.column, table: target.table, key: target.keyColumn, tenant: target.tenant }] : [];
  });
}

/** Works out a declaration: names, columns, joins, children, permissions; throws DeclarationError on what cannot run. */
export function modelOf(declaration: DeclarationInput): ResourceModel {
  const { name } = declaration;
  if (!KEBAB.test(name)) throw new DeclarationError(name, 'the name is kebab-case (sales-order)');
  const camel = camelCase(name);
  const key = declaration.key ?? `${camel}Id`;
  const table = declaration.table ?? snakeCase(name);
  const entity = declaration.entity ?? humanName(name);
  const reserved = new Set([key.toLowerCase(), 'revisionnumber', 'modifieddate']);
  const fields = fieldsOf(name, key, declaration.fields, reserved);
  const children = Object.entries(declaration.children ?? {}).map(([property, c]): ChildModel => {
    const itemPascal = upperFirst(camelCase(c.item));
    const childKey = c.key ?? `${camel}${itemPascal}Id`;
    const childTable = c.table ?? `${table}_${snakeCase(c.item)}`;
    const taken = new Set([childKey.toLowerCase(), key.toLowerCase(), 'revisionnumber', 'modifieddate']);
    if (fields.some((f) => f.name === property)) throw new DeclarationError(name, `children ${property}: a field has that name`);
    return {
      name: `${name}-${c.item}`, pascal: `${pascalCase(name)}${itemPascal}`, camel: `${camel}${itemPascal}`, entity: c.entity ?? `${entity} ${c.item}`,
      table: childTable, key: childKey, keyColumn: snakeCase(childKey), param: `_${childKey}`,
      property, item: c.item, itemPascal, path: c.path ?? c.item, parentColumn: snakeCase(key),
      fields: fieldsOf(`${name} ${property}`, childKey, c.fields, taken, `${snakeCase(property)}_`),
      rules: (c.rules ?? []) as readonly Rule[],
    };
  });
  checkTotals(name, fields, children);
  const actions = Object.fromEntries(Object.entries(declaration.actions ?? {}).map(([key, action]): [string, ActionModel] => {
    // Its key is a method name and its path segment is made from it: a capital starts a word (`markPaid` → `mark-paid`).
    if (!CAMEL.test(key)) throw new DeclarationError(name, `action ${key}: its name is camelCase, letters and digits with a lower-case letter first (pay, markPaid); its path is kebab-case (mark-paid)`);
    const path = kebabCase(key);
    return [key, { ...action, name: key, path, permission: action.permission ?? `${name}.${path}`, audit: action.audit ?? path }];
  }));
  return {
    name, pascal: pascalCase(name), camel, entity, table, key, keyColumn: snakeCase(key), param: `_${key}`,
    fields, children,
    ...(declaration.scopes ? { scopes: declaration.scopes } : {}),
    rules: (declaration.rules ?? []) as readonly Rule[],
    actions,
    referredToBy: declaration.referredToBy ?? [],
    permissions: { read: `${name}.read`, create: `${name}.create`, update: `${name}.update`, delete: `${name}.delete` },
    revision: 'revision_number',
    modified: 'modified_date',
    ...(declaration.softDelete ? { softDelete: SOFT_DELETE_COLUMN } : {}),
    ...(declaration.tenant ? { tenant: TENANT_COLUMN, tenantReferences: tenantReferencesOf(fields) } : {}),
  };
}
