import { NOTHING, type RecordScopes, sql } from 'restlayer';
import { SALES_PERSON_ATTRIBUTE, ownOrders, salesPersonOf } from '../sales-order/sales-order-scopes.js';

/**
 * The record scopes of customers. `own`: the customers with at least one order (not deleted) of the caller's sales
 * person (`salesPersonId`), so a sales person sees exactly the customers of the orders they see — the orders' own scope
 * decides which orders those are. The condition reads the orders table (a count of customers kept by the layer
 * follows its changes too: `reads`), through the orders' index on sales_person_id.
 */
export const customerScopes: RecordScopes = {
  own: {
    description: `customers with an order whose sales person is the caller's user attribute ${SALES_PERSON_ATTRIBUTE}`,
    reads: ['sales_order'],
    where(alias, attributes) {
      if (salesPersonOf(attributes) === undefined) return NOTHING;
      return sql<boolean>`${sql.ref(`${alias}.customer_id`)} in (select scope_order.customer_id from sales_order as scope_order
        where ${ownOrders('scope_order', attributes)} and scope_order.deleted_at is null)`;
    },
  },
};
