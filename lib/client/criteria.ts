import type { FieldCriterion, ListOptions } from '../validation/criteria.js';

type QueryValue = string | number | boolean | Date;

function text(value: QueryValue): string {
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) throw new RangeError('criteria: an invalid Date cannot be sent');
    return value.toISOString();
  }
  return String(value);
}

function isCriterion(value: unknown): value is FieldCriterion<QueryValue> {
  return typeof value === 'object' && value !== null && typeof (value as FieldCriterion<unknown>).operator === 'string'
    && Array.isArray((value as FieldCriterion<unknown>).values);
}

/**
 * List criteria as the query string of contract part 3, exactly what `CriteriaSchema.parse` (lib/validation/criteria.ts)
 * reads back: each value of a field as a repeated `field=value`, its operator as `field.operator=OP` (left out only for
 * EQ with one value, which is what a lone value means anyway), dates as ISO 8601 (UTC, milliseconds kept), booleans
 * as `true`/`false`, then `skip`, `take`, `getTotalCount`, `cursor` and `sort[i].fieldName` / `sort[i].sortDirection`.
 * It needs no schema, so one function serves every service's criteria.
 */
export function criteriaToQuery(criteria: object): URLSearchParams {
  const search = new URLSearchParams();
  const options = criteria as ListOptions & Record<string, unknown>;
  for (const [name, value] of Object.entries(criteria)) {
    if (value === undefined || name === 'skip' || name === 'take' || name === 'getTotalCount' || name === 'cursor' || name === 'sort') continue;
    if (!isCriterion(value)) throw new TypeError(`criteria: ${name} must be { operator, values }`);
    if (!(value.operator === 'EQ' && value.values.length === 1)) search.append(`${name}.operator`, value.operator);
    for (const v of value.values) search.append(name, text(v));
  }
  if (options.skip !== undefined) search.append('skip', text(options.skip));
  if (options.take !== undefined) search.append('take', text(options.take));
  if (options.getTotalCount !== undefined) search.append('getTotalCount', text(options.getTotalCount));
  if (options.cursor !== undefined) search.append('cursor', options.cursor);
  options.sort?.forEach((sort, i) => {
    search.append(`sort[${i}].fieldName`, sort.fieldName);
    if (sort.sortDirection) search.append(`sort[${i}].sortDirection`, sort.sortDirection);
  });
  return search;
}
