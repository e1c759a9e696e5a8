import {
  type AuditOperation, type AuditState, type DocumentSpec, type FieldValue, type HistorySource, type Kysely, type Storage,
  type Tables, type Transaction, diffChanges, prefixed, recordAudit,
} from 'restlayer';
import type { OrderTotals } from './order-document.js';
import { salesOrderScopes } from './sales-order-scopes.js';
import type { SalesTables } from './sales-order-tables.js';

type Db = Tables & SalesTables;

/** Where an order's history is: entries under `sales-order`, the order's scope, deleted orders for sales-order.delete. */
export const salesOrderHistory: HistorySource = {
  entity: 'sales-order',
  table: 'sales_order',
  key: 'sales_order_id',
  scopes: salesOrderScopes,
  deletePermission: 'sales-order.delete',
  name: 'Sales order',
};

/** Which lines a state holds: every line (create, delete), one (a line write), or none (a header write). */
export type LinesOf = 'all' | 'none' | number;

/**
 * The audit of sales orders: an order's fields and lines as on the wire (`lines[<salesOrderDetailId>].orderQty`),
 * read inside the write's transaction before and after it, and the entry of their differences, written there too.
 */
export class OrderAudit {
  constructor(private readonly storage: Storage, private readonly document: DocumentSpec<Db, OrderTotals>) {}

  /**
   * The order as stored now, through `trx`; undefined when there is none. `lock`: lock the order first (PostgreSQL),
   * for a write that has not locked it yet (delete), so the state read is the one the write changes.
   */
  async state(trx: Kysely<Db>, salesOrderId: number, lines: LinesOf, lock = false): Promise<AuditState | undefined> {
    const v = this.storage.values;
    const h = await trx.selectFrom('sales_order').selectAll().where('sales_order_id', '=', salesOrderId)
      .$if(lock && this.storage.dialect.locksRows, (q) => q.forUpdate()).executeTakeFirst();
    if (!h) return undefined;
    const state: Record<string, FieldValue> = {
      salesOrderNumber: h.sales_order_number,
      status: h.status,
      orderDate: v.toDate(h.order_date),
      dueDate: v.toDate(h.due_date),
      shipDate: h.ship_date == null ? undefined : v.toDate(h.ship_date),
      customerId: h.customer_id,
      territoryId: h.territory_id,
      salesPersonId: h.sales_person_id,
      onlineOrderFlag: v.toBool(h.online_order_flag),
      purchaseOrderNumber: h.purchase_order_number,
      accountNumber: h.account_number,
      comment: h.comment,
      subTotal: v.toMoney(h.sub_total),
      taxAmt: v.toMoney(h.tax_amt),
      freight: v.toMoney(h.freight),
      totalDue: v.toMoney(h.total_due),
      revisionNumber: h.revision_number,
    };
    if (lines === 'none') return state;
    const rows = await trx.selectFrom('sales_order_detail')
      .select(['sales_order_detail_id', 'product_id', 'order_qty', 'unit_price', 'unit_price_discount', 'line_total'])
      .where('sales_order_id', '=', salesOrderId)
      .$if(typeof lines === 'number', (q) => q.where('sales_order_detail_id', '=', lines as number))
      .orderBy('sales_order_detail_id').execute();
    for (const r of rows) {
      Object.assign(state, prefixed(`lines[${r.sales_order_detail_id}].`, {
        productId: r.product_id, orderQty: r.order_qty, unitPrice: v.toMoney(r.unit_price),
        unitPriceDiscount: v.toMoney(r.unit_price_discount), lineTotal: v.toMoney(r.line_total),
      }));
    }
    return state;
  }

  /**
   * The order as the write leaves it: writeDocument and createDocument store the totals and the next revision after
   * the work this runs in, so they are computed here the same way (the document's totals, the revision + `bump`).
   */
  async settled(trx: Transaction<Db>, salesOrderId: number, lines: LinesOf, bump: 0 | 1): Promise<AuditState> {
    const state = (await this.state(trx, salesOrderId, lines))!;
    const { wire } = await this.document.totals(trx, salesOrderId);
    return { ...state, subTotal: wire.subTotal, totalDue: wire.totalDue, revisionNumber: Number(state.revisionNumber) + bump };
  }

  /** Records the write's entry in its transaction: the fields that differ between `before` and `after`. */
  record(trx: Kysely<Db>, salesOrderId: number, operation: AuditOperation, before?: AuditState, after?: AuditState): Promise<void> {
    return recordAudit(trx, { entity: salesOrderHistory.entity, recordId: salesOrderId, operation, changes: diffChanges(before, after) });
  }
}
