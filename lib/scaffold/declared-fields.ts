import Big from 'big.js';
import { type AnyField, field } from '../resources/field.js';
import { child } from '../resources/declaration.js';
import { resource } from '../resources/resource.js';
import { planSchema } from './schema-plan.js';
import { EMPTY_SCHEMA } from './schema-snapshot.js';
import { migrationFile } from './migration-file.js';
import { type FieldSpec, type ServiceSpec, fullTextFields } from './spec.js';

/** One field of a new service's declaration: the code the file gets, and the same field built here. */
export interface DeclaredField {
  readonly name: string;
  /** `field.text({ max: 60 }).required().sortable().filter()`. */
  readonly code: string;
  readonly field: AnyField;
}

/** The builder call of a field's type, as code and as a field. */
function typeOf(f: FieldSpec): { code: string; field: AnyField } {
  switch (f.type) {
    case 'text': return f.max ? { code: `field.text({ max: ${f.max} })`, field: field.text({ max: f.max }) } : { code: 'field.text()', field: field.text() };
    case 'lookup': {
      if (f.lookupIds !== 'text') return { code: `field.lookup('${f.lookup}')`, field: field.lookup(f.lookup!) };
      const options = f.max === undefined ? "{ id: 'text' }" : `{ id: 'text', max: ${f.max} }`;
      return { code: `field.lookup('${f.lookup}', ${options})`, field: field.lookup(f.lookup!, { id: 'text', ...(f.max === undefined ? {} : { max: f.max }) }) };
    }
    default: return { code: `field.${f.type}()`, field: field[f.type]() as AnyField };
  }
}

const METHODS = { '*': 'times', '+': 'plus', '-': 'minus' } as const;

/** `.derived(['quantity', 'price'], (v) => new Decimal(v.quantity).times(v.price))`, as code and on the field. */
function derivedOf(derived: NonNullable<FieldSpec['derived']>, code: string, built: AnyField): { code: string; field: AnyField } {
  const [first, ...rest] = derived.from;
  const chain = rest.map((name, i) => `.${METHODS[derived.operators[i]]}(v.${name})`).join('');
  const compute = (v: Readonly<Record<string, number>>) =>
    rest.reduce((value, name, i) => value[METHODS[derived.operators[i]]](v[name]), new Big(v[first]));
  return {
    code: `${code}.derived([${derived.from.map((n) => `'${n}'`).join(', ')}], (v) => new Decimal(v.${first})${chain})`,
    field: (built as ReturnType<typeof field.money>).derived([...derived.from], compute) as AnyField,
  };
}

/** Whether a declaration's code uses Decimal (a derived field): then the file imports it. */
export const usesDecimal = (fields: readonly DeclaredField[]) => fields.some((f) => f.code.includes('new Decimal('));

/**
 * The fields of a new service as its declaration writes them, each trait a chained call: required, sortable, filter
 * (a `filterable` option), contains (a filterable text long enough to be searched inside: `fullTextFields`), unique.
 */
export function declaredFields(spec: Pick<ServiceSpec, 'fields'>): DeclaredField[] {
  const searched = new Set(fullTextFields(spec).map((f) => f.name));
  return spec.fields.map((f) => {
    let { code, field: built } = typeOf(f);
    if (f.derived) ({ code, field: built } = derivedOf(f.derived, code, built));
    const traits: [boolean, string, (x: AnyField) => AnyField][] = [
      [f.required, 'required', (x) => x.required() as AnyField],
      [f.sortable, 'sortable', (x) => x.sortable() as AnyField],
      [f.filterable, 'filter', (x) => x.filter() as AnyField],
      [searched.has(f.name), 'contains', (x) => x.contains()],
      [f.unique, 'unique', (x) => x.unique()],
    ];
    for (const [on, method, apply] of traits) {
      if (!on) continue;
      code += `.${method}()`;
      built = apply(built);
    }
    return { name: f.name, code, field: built };
  });
}

/** The parent's totals of its children's money fields: `amountTotal: field.money().sum('lines', 'amount')`. */
export function declaredTotals(spec: ServiceSpec): DeclaredField[] {
  if (!spec.child) return [];
  const { plural, totals } = spec.child;
  return totals.map((t) => ({
    name: t.name,
    code: `field.money().sum('${plural}', '${t.of.name}')`,
    field: field.money().sum(plural, t.of.name) as AnyField,
  }));
}

/** The first migration of a new service: what `restlayer migration make` writes for its declaration on an empty schema. */
export function firstMigration(spec: ServiceSpec): string {
  const fieldsOf = (all: DeclaredField[]) => Object.fromEntries(all.map((f) => [f.name, f.field]));
  const children = spec.child ? { [spec.child.plural]: child({ item: spec.child.segment, fields: fieldsOf(declaredFields(spec.child)) }) } : {};
  const declared = resource({ name: spec.kebab, fields: fieldsOf([...declaredFields(spec), ...declaredTotals(spec)]), children });
  return migrationFile(planSchema([declared.model], EMPTY_SCHEMA).steps, spec.command);
}
