import { CODES, Decimal, Output, child, currentErrors, field, resource, sql, withErrorScope } from 'restlayer';
import { customer } from '../customer/customer.js';
import { SALES_ORDER_CODES } from './messages.js';
import { datesAfterOrder, ownedByCreator } from './order-rules.js';
import { salesOrderScopes } from './sales-order-scopes.js';

const DAY = 86_400_000;
/** What purgeCancelled leaves an order as it is for: changed since it was listed (409), or deleted meanwhile (404). */
const LEFT_AS_IT_IS: ReadonlySet<string> = new Set([CODES.Entity_Concurrency, CODES.Entity_NotFound]);
/** Amounts of an order or line that are never negative (contract part 9). */
const amount = () => field.money({ min: 0 });

/**
 * An order's lines (AdventureWorks SalesOrderDetail) at /sales-order/{id}/detail: the product's listPrice when no
 * unitPrice is sent; lineTotal = orderQty × unitPrice × (1 − unitPriceDiscount) in decimal arithmetic, rounded half
 * away from zero to 4 digits. An inactive product is refused on a new line and kept on a line that has it.
 */
const lines = child({
  item: 'line',
  path: 'detail',
  table: 'sales_order_detail',
  key: 'salesOrderDetailId',
  entity: 'Sales order line',
  fields: {
    productId: field.lookup('product', { code: SALES_ORDER_CODES.SalesOrder_InvalidProduct }).required(),
    productName: field.joined({ table: 'product', key: 'product_id', column: 'name', on: 'productId' }),
    orderQty: field.integer({ min: 1, max: 32767 }).required(),
    unitPrice: amount().default((_, { entry }) => entry('productId')?.attributes.listPrice as number | undefined),
    unitPriceDiscount: field.money({ min: 0, max: 0.9999 }).default(0),
    lineTotal: amount().derived(['orderQty', 'unitPrice', 'unitPriceDiscount'],
      (v) => new Decimal(v.orderQty).times(v.unitPrice).times(new Decimal(1).minus(v.unitPriceDiscount)), { reportOn: 'unitPrice' }),
  },
});

/**
 * Sales orders (contract part 9) with their lines: subTotal = Σ lineTotal and totalDue = subTotal + taxAmt + freight,
 * kept by every write in its transaction; the SalesPerson's scope `own`; the customer resolved as the caller reads
 * customers. The fields are in the wire's order (clients and caches compare bytes).
 */
export const salesOrder = resource({
  name: 'sales-order',
  entity: 'Sales order',
  fields: {
    salesOrderNumber: field.text({ max: 25 }).derived(['salesOrderId'], (v) => `SO${v.salesOrderId}`).sortable().filter(),
    status: field.lookup('sales-order-status', { code: SALES_ORDER_CODES.SalesOrder_InvalidStatus, keepsInactive: false }).required().sortable().filter(),
    orderDate: field.date().readOnly().initially((_, { now }) => now).sortable().filter(),
    /** Absent on create: twelve days after the order date; an update without it keeps it. */
    dueDate: field.date().initially((order) => new Date((order.orderDate as Date).getTime() + 12 * DAY)).sortable().filter(),
    shipDate: field.date().sortable(),
    customerId: field.reference(customer).required().createOnly(),
    customerName: field.via('customerId', customer.fields.name).sortable().filter().contains(),
    territoryId: field.lookup('sales-territory').readOnly().sortable().filter(),
    salesPersonId: field.lookup('sales-person').readOnly().sortable().filter(),
    totalDue: amount().derived(['subTotal', 'taxAmt', 'freight'], (v) => new Decimal(v.subTotal).plus(v.taxAmt).plus(v.freight)).sortable().filter(),
    onlineOrderFlag: field.boolean().required().sortable().filter(),
    purchaseOrderNumber: field.text({ max: 25 }).detail(),
    accountNumber: field.text({ max: 15 }).detail(),
    comment: field.text({ max: 128 }).detail(),
    subTotal: amount().sum('lines', 'lineTotal').detail(),
    taxAmt: amount().default(0).detail(),
    freight: amount().default(0).detail(),
  },
  children: { lines },
  scopes: salesOrderScopes,
  // A delete marks the order deleted, its lines kept (contract part 13): restorable while its customer is not deleted.
  softDelete: true,
  // With Tenancy:Enabled, an order belongs to its creator's tenant (contract part 12): its lines and history with it.
  tenant: true,
  rules: [ownedByCreator, datesAfterOrder],
  service: (defaults, { storage }) => ({
    /**
     * Housekeeping for administrators' jobs, not exposed via REST: deletes the cancelled orders ordered before
     * `orderedBefore` that are not deleted yet, each as a delete (marked deleted with its lines, and its audit entry by
     * the job's user). Answers how many.
     */
    async purgeCancelled(orderedBefore: Date) {
      const { rows } = await sql<{ id: number; revision: number }>`select sales_order_id as id, revision_number as revision from sales_order
        where status = 6 and order_date < ${storage.values.date(orderedBefore)} and deleted_at is null order by sales_order_id`.execute(storage.db);
      let purged = 0;
      for (const { id, revision } of rows) {
        // Only at the revision read with its status: an order changed since (reopened, say) is left as it is.
        const { messages } = await withErrorScope(async (errors) => {
          await defaults.delete(id, Number(revision));
          return errors;
        });
        if (messages.length === 0) purged++;
        // Changed or deleted meanwhile is what the revision is for; anything else (a delete refused) is the caller's to see.
        else currentErrors().addAll(messages.filter((m) => !LEFT_AS_IT_IS.has(m.code)));
      }
      return Output.of(purged);
    },
  }),
});
