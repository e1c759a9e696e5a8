import { type ErrorMessage, message } from '../envelope/error-message.js';
import { MESSAGES, TEMPLATES, TEMPLATE_KEYS } from '../envelope/message-catalogue.js';
import { render } from '../envelope/message-makers.js';
import type { WireValue } from './field.js';
import { upperFirst, wordsOf } from './names.js';
import { definedEntry, deriveCode } from '../envelope/languages.js';
import { type ResourceModel, targetModel } from './model.js';

/**
 * The messages the runtime answers about a resource's records: those with codes made from the resource's name
 * (`SalesOrder_InvalidStatus`, `SalesOrder_UnknownCustomer`), every one of them in this file so a catalogue of texts
 * in other languages (issue 41) has one place to take them from, and the layer's own (lib/envelope/message-catalogue.ts).
 */

/**
 * Declares the codes a resource's runtime may answer under its own name (its lookup fields' and references'), so
 * that the OpenAPI document lists them with the others and their texts follow the caller's language.
 */
export function declareResourceCodes(model: ResourceModel): void {
  for (const table of [model, ...model.children]) {
    for (const f of table.fields) {
      if (f.spec.lookup) {
        deriveCode(f.spec.lookup.code ?? `${model.pascal}_Invalid${upperFirst(f.name)}`, TEMPLATE_KEYS.Resource_InvalidLookup,
          `${f.name} is not an active entry of lookup table ${f.spec.lookup.table}.`);
      }
      if (f.spec.reference) {
        const target = targetModel(f.spec.reference);
        deriveCode(`${model.pascal}_Unknown${target.pascal}`, TEMPLATE_KEYS.Resource_UnknownReference,
          `${f.name} names a ${target.entity.toLowerCase()} that does not exist (or is outside the caller's reach).`);
      }
    }
  }
}

/** A lookup field naming no active entry of its table (a kept inactive one is fine): 400 `<Resource>_Invalid<Field>`. */
export function invalidLookup(
  resource: string, field: string, table: string, value: unknown, property: string, code?: string, text?: (value: WireValue) => string,
): ErrorMessage {
  const params = { field, value: String(value), table };
  // A code the application defined (defineMessages) is written from its own texts, in every language it gave; a
  // declared `text` is English only; otherwise the layer's template, whose texts every shipped language has.
  const own = code === undefined ? undefined : definedEntry(code);
  const english = own ? render(own.text, params) : text?.(value as WireValue) ?? TEMPLATES.Resource_InvalidLookup(params);
  const m = message('Validation', code ?? `${resource}_Invalid${upperFirst(field)}`, english, { property });
  if (own || !text) m.source = { key: own ? code! : TEMPLATE_KEYS.Resource_InvalidLookup, params };
  return m;
}

/**
 * A reference to a record the caller cannot read, or that does not exist: the same answer for both, so it tells
 * nothing of records out of reach. 400 `<Resource>_Unknown<Other>`.
 */
export function unknownReference(resource: string, target: { pascal: string; entity: string }, id: unknown, property: string): ErrorMessage {
  const params = { entity: target.entity, id: String(id) };
  const m = message('Validation', `${resource}_Unknown${target.pascal}`, TEMPLATES.Resource_UnknownReference(params), { property });
  m.source = { key: TEMPLATE_KEYS.Resource_UnknownReference, params };
  return m;
}

/**
 * A unique field's value another record holds: 409 Entity_Duplicate on the field. A caller limited by a scope learns
 * that the value is taken, not which record has it (that one may be out of their reach, where it does not exist).
 */
export function duplicateValue(entity: string, field: string, value: unknown, holder: number | undefined): ErrorMessage {
  const owner = holder === undefined ? `another ${entity.toLowerCase()}` : `${entity.toLowerCase()} ${holder}`;
  return MESSAGES.Entity_Duplicate({ property: field, holder: owner, label: wordsOf(field), value });
}

/** How many rows of one kind refer to a record, for the in-use message. */
export interface Referrers {
  /** `sales order`. */
  readonly name: string;
  /** Undefined for a caller limited by a scope: the count would include records out of their reach. */
  readonly count?: number;
}

/** A delete that records of other resources still refer to (a foreign key decides): 409 Entity_InUse, nothing deleted. */
export function inUse(entity: string, id: number, referrers: readonly Referrers[]): ErrorMessage {
  const counted = referrers.filter((r) => r.count === undefined || r.count > 0);
  const what = counted.length
    ? counted.map((r) => (r.count === undefined ? `${r.name}s` : `${r.count} ${r.name}${r.count === 1 ? '' : 's'}`)).join(' and ')
    : 'other records';
  return MESSAGES.Entity_InUse({ entity, id, referrers: what, one: counted.length === 1 && counted[0].count === 1 });
}
