import { NOTHING, type RecordScope, type RecordScopes, sql } from 'restlayer';

/** A scope's condition (the layer's RawBuilder<SqlBool>). */
type Condition = ReturnType<RecordScope['where']>;

/** The user attribute naming the caller's sales person (`restlayer user set-attribute NAME salesPersonId 275`). */
export const SALES_PERSON_ATTRIBUTE = 'salesPersonId';

/**
 * The caller's sales person id from their attributes, or undefined when they have none (or not an integer: an
 * attribute is free text, and a typo must reach nothing rather than fail every request).
 */
export function salesPersonOf(attributes: Readonly<Record<string, string>>): number | undefined {
  const value = attributes[SALES_PERSON_ATTRIBUTE];
  return value !== undefined && /^\d{1,9}$/.test(value.trim()) ? Number(value) : undefined;
}

/** The condition "the order under `alias` is the caller's sales person's", or NOTHING without the attribute. */
export function ownOrders(alias: string, attributes: Readonly<Record<string, string>>): Condition {
  const salesPersonId = salesPersonOf(attributes);
  return salesPersonId === undefined ? NOTHING : sql<boolean>`${sql.ref(`${alias}.sales_person_id`)} = ${salesPersonId}`;
}

/**
 * The record scopes of sales orders. `own`: the orders whose sales person is the caller's `salesPersonId` (the
 * `SalesPerson` role's grants, `sales-order.read:own` and `sales-order.update:own`). Its condition is a plain
 * column comparison, so every list index that starts with the sort's column still serves, and
 * ix_sales_order_sales_person_id serves the scope alone.
 */
export const salesOrderScopes: RecordScopes = {
  own: {
    description: `orders whose sales person is the caller's user attribute ${SALES_PERSON_ATTRIBUTE}`,
    where: ownOrders,
  },
};
