import { NOTHING, type RecordScopes, sql } from 'restlayer';

/** The user attribute naming the caller's sales person: the sales order service's scope reads the same one. */
const SALES_PERSON_ATTRIBUTE = 'salesPersonId';

/**
 * The record scopes of customers. `own`: the customers with at least one order of the caller's sales person
 * (`salesPersonId`), so a sales person sees exactly the customers of the orders they see. The condition reads the
 * orders table (a count of customers kept by the layer follows its changes too: `reads`), through the orders'
 * index on sales_person_id.
 */
export const customerScopes: RecordScopes = {
  own: {
    description: `customers with an order whose sales person is the caller's user attribute ${SALES_PERSON_ATTRIBUTE}`,
    reads: ['sales_order'],
    where(alias, attributes) {
      const value = attributes[SALES_PERSON_ATTRIBUTE]?.trim();
      if (value === undefined || !/^\d{1,9}$/.test(value)) return NOTHING;
      return sql<boolean>`${sql.ref(`${alias}.customer_id`)} in (select scope_order.customer_id from sales_order as scope_order
        where scope_order.sales_person_id = ${Number(value)})`;
    },
  },
};
