import { OPERATORS, arityOf } from '../validation/criteria.js';
import type { LookupCache } from './lookup-cache.js';

const operatorText: Record<(typeof OPERATORS)[number], string> = {
  EQ: 'Is equal to', NEQ: 'Is not equal to', In: 'Is one of', NIn: 'Is not one of', LT: 'Is less than',
  LE: 'Is less than or equal to', GT: 'Is greater than', GE: 'Is greater than or equal to', BW: 'Is between',
  NBW: 'Is not between', CN: 'Contains', NCN: 'Does not contain', SW: 'Starts with', NSW: 'Does not start with',
  NL: 'Is null', NNL: 'Is not null',
};

/** The criteria operators as a lookup table, so clients can offer them with their arity. */
export function registerOperatorsTable(cache: LookupCache): LookupCache {
  return cache
    .register('operators', async () => ({
      type: 'operators',
      caseSensitive: false,
      data: OPERATORS.map((op) => {
        const [min, max] = arityOf(op);
        return { id: op, text: operatorText[op], isActive: true, attributes: { minValues: min, maxValues: max } };
      }),
    }));
}
