import { integer, model, optional } from '../validation/fields.js';
import { modelQuery } from '../validation/model-query.js';

/** The query of a history route: `skip` and `take`. A route's `query` (the layer's QuerySchema). */
export const historyQuery = modelQuery(model({ skip: optional(integer({ min: 0 })), take: optional(integer({ min: 0 })) }));
