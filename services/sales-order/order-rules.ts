import { type Change, MESSAGES, currentErrors } from 'restlayer';
import { SALES_ORDER } from './messages.js';
import { salesPersonOf } from './sales-order-scopes.js';

const DAY = 86_400_000;

/** An order's dates as its rules read them. */
type Dated = { orderDate?: Date; dueDate?: Date; shipDate?: Date };

/** The due and ship dates may not be before the order date (a day's grace, for time zones): 400 on the date. */
export function datesAfterOrder({ after, fail }: Change<Dated>): void {
  const ordered = after.orderDate;
  if (!ordered) return;
  for (const name of ['dueDate', 'shipDate'] as const) {
    const d = after[name];
    if (d && d.getTime() < ordered.getTime() - DAY) {
      fail(SALES_ORDER.SalesOrder_DateBeforeOrder({ name, orderDate: ordered.toISOString().slice(0, 10), property: name }));
    }
  }
}

/** What a new order takes from its customer and its caller. */
type Owned = { territoryId?: number; salesPersonId?: number; accountNumber?: string };

/**
 * A new order: its territory is its customer's, its account number (when none is given) the customer's, and a
 * scoped caller (a SalesPerson granted sales-order.create:own) creates their own orders, so the order gets their
 * sales person; one whose attribute names no sales person of the lookup table cannot own an order (403). The layer
 * then refuses it (403, nothing stored) if their scope still does not reach it.
 */
export function ownedByCreator(change: Change<Owned>): void {
  if (change.operation !== 'create') return;
  const { after } = change;
  const customer = change.reference('customerId');
  after.territoryId = customer?.territoryId as number | undefined;
  after.accountNumber ??= customer?.accountNumber as string | undefined;
  if (!change.caller?.scopes) return;
  after.salesPersonId = salesPersonOf(change.caller.attributes);
  if (after.salesPersonId === undefined || !change.entry('salesPersonId')) currentErrors().add(MESSAGES.Security_Forbidden());
}
