import { integer, model, optional } from '../validation/fields.js';
import { type ValidationResult, validateInput } from '../validation/validate.js';
import type { HistoryPage } from './audit-models.js';

const pageModel = model({ skip: optional(integer({ min: 0 })), take: optional(integer({ min: 0 })) });

/**
 * The query of a history route: `skip` and `take` (names case-insensitive; a name given twice or an unknown one is a
 * 400 on it, as in bodies). A route's `query` (the layer's QuerySchema).
 */
export const historyQuery = {
  model: pageModel,
  parse(search: URLSearchParams): ValidationResult<HistoryPage> {
    const values = new Map<string, string[]>();
    for (const [key, value] of search) values.set(key, [...(values.get(key) ?? []), value]);
    const input = Object.fromEntries([...values].map(([key, list]) => [key, list.length === 1 ? list[0] : list]));
    return validateInput(pageModel, input);
  },
};

