import type { Struct } from 'superstruct';
import { AuditEntryModel } from '../audit/audit-models.js';
import { type AnyFieldSpec, type CriteriaSchema, defineCriteria, field as criterion } from '../validation/criteria.js';
import { INT32, array, boolean, date, decimal, integer, maybe, model, optional, text } from '../validation/fields.js';
import { money } from '../validation/money.js';
import { patchModel } from '../validation/merge-patch.js';
import type { FieldSpec } from './field.js';
import type { ChildModel, ResourceField, ResourceModel } from './model.js';

/**
 * The structs of a resource, built once from its fields: what routes validate their inputs with and what the OpenAPI
 * document describes (its limits read from the structs, which keep the fields' own). One place turns a field into a
 * struct, so input, output and document cannot part.
 */

/** Any struct: the resource's wire types are the compiler's business (wire-types.ts), the structs are run-time checks. */
export type AnyStruct = Struct<unknown, unknown>;

/** A struct as AnyStruct: superstruct's structs are invariant in their value type, so the widening is a cast. */
const loose = <T, S>(struct: Struct<T, S>): AnyStruct => struct as unknown as AnyStruct;

/** A `model` (case-insensitive keys, unknown ones refused) of structs. */
const object = (schema: Record<string, AnyStruct>): AnyStruct => loose(model(schema));
const maybeOf = (struct: AnyStruct): AnyStruct => loose(maybe(struct));
const optionalOf = (struct: AnyStruct): AnyStruct => loose(optional(struct));
const arrayOf = (struct: AnyStruct): AnyStruct => loose(array(struct));
const idStruct = (): AnyStruct => loose(id());

/** Ids and revisions are SQL `integer` columns: a larger number is refused here, not by the store (PostgreSQL). */
export const id = () => integer({ min: 1, max: INT32.max });

/** A value of a field as inputs take it and reads answer it. */
export function valueStruct(spec: FieldSpec): AnyStruct {
  switch (spec.type) {
    case 'text':
      return loose(text({ ...(spec.max !== undefined ? { max: spec.max } : {}), min: spec.min ?? (spec.required ? 1 : 0) }));
    case 'integer':
      return loose(integer({ min: spec.min ?? INT32.min, max: spec.max ?? INT32.max }));
    case 'decimal':
      return loose(decimal());
    case 'money':
      return loose(money(spec.money));
    case 'date':
      return loose(date());
    case 'boolean':
      return loose(boolean());
    case 'lookup':
      return spec.lookup?.id === 'text' ? loose(text({ ...(spec.max !== undefined ? { max: spec.max } : {}), min: 1 })) : loose(integer(INT32));
    case 'reference':
      return loose(id());
    case 'via':
    case 'joined':
      return loose(text());
  }
}

/** The struct of a field's value, through a join to the field it reads. */
const valueOf = (f: ResourceField) => valueStruct(f.value);

/** On a read: present, or absent when it has no value (never null). */
const readStruct = (f: ResourceField) => (f.spec.required || f.spec.default !== undefined || f.spec.initially !== undefined || f.spec.derived || f.spec.sum
  ? valueOf(f) : optionalOf(valueOf(f)));

/** In an input: required, or optional where null and absence mean "no value" (or the default). */
const inputStruct = (f: ResourceField) => (f.spec.required ? valueOf(f) : maybeOf(valueOf(f)));

const revision = () => ({ revisionNumber: idStruct(), modifiedDate: loose(date()) });
/** A DELETE's query, a record's or a line's: the revision the caller believes the record has (a stale one is a 409). */
const deleteQuery = () => object({ revisionNumber: optionalOf(idStruct()) });

/** The fields a read answers, by wire name, in declared order. */
const readFields = (fields: readonly ResourceField[], listedOnly = false) =>
  Object.fromEntries(fields.filter((f) => !listedOnly || f.spec.listed).map((f) => [f.name, readStruct(f)]));

/** The fields an input takes: those written by updates, and on create also those given on create only. */
const inputFields = (fields: readonly ResourceField[], create: boolean) =>
  Object.fromEntries(fields.filter((f) => f.spec.input === 'write' || (create && f.spec.input === 'create')).map((f) => [f.name, inputStruct(f)]));

/** The criterion a filterable field takes, by what its values are. */
function criterionOf(f: ResourceField): AnyFieldSpec {
  const v = f.value;
  switch (v.type) {
    case 'integer': return criterion.integerRange();
    case 'decimal': return criterion.numberRange();
    case 'money': return criterion.moneyRange(v.money);
    case 'date': return criterion.dateRange();
    case 'boolean': return criterion.flag();
    case 'lookup': return v.lookup?.id === 'text' ? criterion.text() : criterion.list();
    case 'reference': return criterion.list();
    default: return criterion.text();
  }
}

/** The models of one child collection. */
export interface ChildModels {
  readonly read: AnyStruct;
  /** One element of the parent create's array: the child's input, without a revision. */
  readonly item: AnyStruct;
  /** POST and PUT of one child: its input and the parent's revision. */
  readonly update: AnyStruct;
  readonly patch: AnyStruct;
  readonly write: AnyStruct;
  /** Route parameters of one child of one parent. */
  readonly key: AnyStruct;
  /** DELETE's query: the parent's revision. */
  readonly deleteQuery: AnyStruct;
  /** The most bytes one child may take in the parent create's body (the create's body limit, documentBody). */
  readonly bytes: number;
}

export interface ResourceModels {
  readonly read: AnyStruct;
  readonly listItem: AnyStruct;
  readonly create: AnyStruct;
  readonly update: AnyStruct;
  readonly patch: AnyStruct;
  readonly key: AnyStruct;
  readonly createResult: AnyStruct;
  readonly updateResult: AnyStruct;
  readonly historyEntry: AnyStruct;
  readonly criteria: CriteriaSchema<Record<string, AnyFieldSpec>, string>;
  readonly children: Readonly<Record<string, ChildModels>>;
  readonly actions: Readonly<Record<string, AnyStruct>>;
  /** The restore's body (a soft-deletable resource's): none, or the revision the caller believes it has. */
  readonly restore: AnyStruct;
  /** DELETE's query: the revision the caller believes the record has (a stale one is a 409), as a line delete's. */
  readonly deleteQuery: AnyStruct;
}

/** The bytes one field's value may take as JSON: text at up to 3 UTF-8 bytes a character (no max: 1,000 of them). */
const valueBytes = (spec: FieldSpec) => (spec.type === 'text' || spec.lookup?.id === 'text' ? 2 + 3 * (spec.max ?? 1_000) : spec.type === 'date' ? 32 : 24);

/** One child's most bytes, written out with indentation (names, values, punctuation), rounded up to 64. */
function childBytes(child: ChildModel): number {
  const bytes = 16 + child.fields.filter((f) => f.spec.input === 'write').reduce((sum, f) => sum + f.name.length + 12 + valueBytes(f.spec), 0);
  return Math.ceil(bytes / 64) * 64;
}

/** The parent's fields a child write moves: its totals, and what is derived from them. */
export function totalsOf(resource: ResourceModel): ResourceField[] {
  const totals = resource.fields.filter((f) => f.spec.sum).map((f) => f.name);
  return resource.fields.filter((f) => f.spec.sum || f.spec.derived?.from.some((from) => totals.includes(from)));
}

function childModels(resource: ResourceModel, c: ChildModel): ChildModels {
  const read = object({ [c.key]: idStruct(), ...readFields(c.fields) });
  const item = object(inputFields(c.fields, false));
  const update = model({ ...inputFields(c.fields, false), revisionNumber: maybeOf(idStruct()) });
  const computed = c.fields.filter((f) => f.stored && f.spec.input === 'none');
  const write = object({
    [c.key]: optionalOf(idStruct()),
    ...Object.fromEntries(computed.map((f) => [f.name, optionalOf(valueOf(f))])),
    ...Object.fromEntries(totalsOf(resource).map((f) => [f.name, valueOf(f)])),
    revisionNumber: idStruct(),
  });
  return {
    read, item, update: loose(update), patch: loose(patchModel(update)), write,
    key: object({ [resource.param]: idStruct(), [c.param]: idStruct() }),
    deleteQuery: deleteQuery(),
    bytes: childBytes(c),
  };
}

/** Builds every struct of a resource from its fields. */
export function modelsOf(resource: ResourceModel): ResourceModels {
  const children = Object.fromEntries(resource.children.map((c) => [c.property, childModels(resource, c)]));
  const keyed = resource.fields.filter((f) => f.spec.derived?.from.length === 1 && f.spec.derived.from[0] === resource.key);
  const update = model({ ...inputFields(resource.fields, false), revisionNumber: maybeOf(idStruct()) });
  // The create takes what the update takes (its revision too, which it ignores: one input model for both, as the
  // contract's SalesOrder_UpdateInput_Data), the fields given on create only, and each child collection's items.
  const createOnly = resource.fields.filter((f) => f.spec.input === 'create');
  const create = object({
    ...inputFields(resource.fields, false), revisionNumber: maybeOf(idStruct()),
    ...Object.fromEntries(createOnly.map((f) => [f.name, inputStruct(f)])),
    ...Object.fromEntries(resource.children.map((c) => [c.property, optionalOf(arrayOf(children[c.property].item))])),
  });
  const filters = resource.fields.filter((f) => f.spec.filter);
  const sortable = [resource.key, ...resource.fields.filter((f) => f.spec.sortable).map((f) => f.name)];
  return {
    read: object({
      [resource.key]: idStruct(), ...readFields(resource.fields),
      ...Object.fromEntries(resource.children.map((c) => [c.property, arrayOf(children[c.property].read)])),
      ...revision(),
    }),
    listItem: object({ [resource.key]: idStruct(), ...readFields(resource.fields, true) }),
    create,
    update: loose(update),
    patch: loose(patchModel(update)),
    key: object({ [resource.param]: idStruct() }),
    createResult: object({ [resource.key]: idStruct(), ...Object.fromEntries(keyed.map((f) => [f.name, valueOf(f)])), ...revision() }),
    updateResult: object(revision()),
    historyEntry: loose(AuditEntryModel),
    // `deleted=true` lists the deleted records of a soft-deletable resource (for holders of its delete permission).
    criteria: defineCriteria(Object.fromEntries([...filters.map((f) => [f.name, criterionOf(f)]), ...(resource.softDelete ? [['deleted', criterion.flag()]] : [])]), sortable),
    children,
    restore: optional(object({ revisionNumber: maybeOf(idStruct()) })),
    deleteQuery: deleteQuery(),
    actions: Object.fromEntries(Object.entries(resource.actions).map(([name, action]) => [name, object({
      ...Object.fromEntries(Object.entries(action.input ?? {}).map(([field, declared]) => [field,
        declared.spec.required ? valueStruct(declared.spec) : maybeOf(valueStruct(declared.spec))])),
      revisionNumber: maybeOf(idStruct()),
    })])),
  };
}
