import {
  type AuditOperation, type AuditRecord, type AuditState, type DocumentSpec, type FieldValue, type HistorySource, type Kysely, type Selectable,
  type Storage, type Tables, type Transaction, Decimal, currentErrors, diffChanges, prefixed, recordAudit,
} from 'restlayer';
import type { OrderTotals } from './order-document.js';
import { salesOrderScopes } from './sales-order-scopes.js';
import type { SalesOrderDetailTable, SalesOrderTable, SalesTables } from './sales-order-tables.js';

type Db = Tables & SalesTables;

/** The columns of a line its audit state reads. */
const lineAuditColumns = ['sales_order_detail_id', 'product_id', 'order_qty', 'unit_price', 'unit_price_discount', 'line_total'] as const;
type LineAuditRow = Pick<Selectable<SalesOrderDetailTable>, (typeof lineAuditColumns)[number]>;

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
    const h = await trx.selectFrom('sales_order').selectAll().where('sales_order_id', '=', salesOrderId)
      .$if(lock && this.storage.dialect.locksRows, (q) => q.forUpdate()).executeTakeFirst();
    if (!h) return undefined;
    return lines === 'none' ? this.headerState(h) : { ...this.headerState(h), ...await this.linesState(trx, salesOrderId, lines) };
  }

  /** The order's lines `lines` names, as stored now. */
  private async linesState(trx: Kysely<Db>, salesOrderId: number, lines: 'all' | number): Promise<AuditState> {
    const rows = await trx.selectFrom('sales_order_detail').select(lineAuditColumns)
      .where('sales_order_id', '=', salesOrderId)
      .$if(typeof lines === 'number', (q) => q.where('sales_order_detail_id', '=', lines as number))
      .orderBy('sales_order_detail_id').execute();
    return Object.assign({}, ...rows.map((r) => this.lineState(r)));
  }

  /** The order's own fields. */
  private headerState(h: Selectable<SalesOrderTable>): Record<string, FieldValue> {
    const v = this.storage.values;
    return {
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
  }

  /** A line's fields, named `lines[<salesOrderDetailId>].<field>`. */
  private lineState(r: LineAuditRow): AuditState {
    const v = this.storage.values;
    return prefixed(`lines[${r.sales_order_detail_id}].`, {
      productId: r.product_id, orderQty: r.order_qty, unitPrice: v.toMoney(r.unit_price),
      unitPriceDiscount: v.toMoney(r.unit_price_discount), lineTotal: v.toMoney(r.line_total),
    });
  }

  /**
   * Records the deletion of the orders of `status` ordered before `before` (stored form): a job's bulk delete
   * (purgeCancelled), inside its transaction and before it deletes them. One `delete` entry per order, with its
   * fields and lines; the user is the job's (`system` outside a request).
   */
  async recordPurge(trx: Kysely<Db>, status: number, before: string | Date): Promise<void> {
    const headers = await trx.selectFrom('sales_order').selectAll().where('status', '=', status).where('order_date', '<', before)
      .$if(this.storage.dialect.locksRows, (q) => q.forUpdate()).orderBy('sales_order_id').execute();
    if (!headers.length) return;
    const lines = await trx.selectFrom('sales_order_detail').select([...lineAuditColumns, 'sales_order_id'])
      .where('sales_order_id', 'in', (eb) => eb.selectFrom('sales_order').select('sales_order_id').where('status', '=', status).where('order_date', '<', before))
      .orderBy('sales_order_detail_id').execute();
    const linesOf = new Map<number, AuditState[]>();
    for (const l of lines) linesOf.set(l.sales_order_id, [...(linesOf.get(l.sales_order_id) ?? []), this.lineState(l)]);
    for (const h of headers) await this.record(trx, h.sales_order_id, 'delete', Object.assign(this.headerState(h), ...(linesOf.get(h.sales_order_id) ?? [])));
  }

  /**
   * The order as a create leaves it: createDocument stores the totals after the work this runs in, so they are
   * computed here as it computes them (the document's totals).
   */
  async created(trx: Transaction<Db>, salesOrderId: number): Promise<AuditState> {
    const state = (await this.state(trx, salesOrderId, 'all'))!;
    const { wire } = await this.document.totals(trx, salesOrderId);
    return { ...state, subTotal: wire.subTotal, totalDue: wire.totalDue };
  }

  /**
   * The order as a write inside writeDocument leaves it, which stores the totals and the next revision after the
   * work: they follow here from the stored values, exactly as it computes them (subTotal = Σ lineTotal held before
   * the write, so it moves by the written lines' difference; totalDue = subTotal + taxAmt + freight). A header write
   * reads the header again; a line write changes no header field but those, and reads only its line.
   */
  private async written(trx: Transaction<Db>, salesOrderId: number, lines: LinesOf, before: AuditState): Promise<AuditState> {
    const lineTotals = (state: AuditState) => Object.entries(state)
      .filter(([field]) => field.endsWith('].lineTotal')).reduce((sum, [, total]) => sum.plus(Number(total)), new Decimal(0));
    let state: AuditState;
    let subTotal: Decimal;
    if (lines === 'none') {
      state = (await this.state(trx, salesOrderId, 'none'))!;
      subTotal = new Decimal(Number(state.subTotal));
    } else {
      const header = Object.fromEntries(Object.entries(before).filter(([field]) => !field.startsWith('lines[')));
      const now = await this.linesState(trx, salesOrderId, lines);
      state = { ...header, ...now };
      subTotal = new Decimal(Number(before.subTotal)).minus(lineTotals(before)).plus(lineTotals(now));
    }
    const totalDue = subTotal.plus(Number(state.taxAmt)).plus(Number(state.freight));
    return { ...state, subTotal: subTotal.toNumber(), totalDue: totalDue.toNumber(), revisionNumber: Number(before.revisionNumber) + 1 };
  }

  /**
   * Runs `work`, a write inside writeDocument (the order locked, its revision checked), between the order's state
   * before and after it, and records their difference in the same transaction. `lines`: the lines the write touches
   * (`after` names them once the work answered, e.g. a new line's id). A write that recorded errors records nothing
   * (it is rolled back).
   */
  async audited<T>(
    trx: Transaction<Db>, salesOrderId: number, operation: AuditOperation, lines: LinesOf, work: () => Promise<T>,
    after: (result: T) => LinesOf = () => lines,
  ): Promise<T> {
    const before = (await this.state(trx, salesOrderId, lines))!;
    const result = await work();
    if (!currentErrors().hasErrors) await this.record(trx, salesOrderId, operation, before, await this.written(trx, salesOrderId, after(result), before));
    return result;
  }

  /** A header write's entry, from the order's rows before and after it (writeParent stores it with the write). */
  headerEntry(salesOrderId: number, operation: AuditOperation, before: Selectable<SalesOrderTable>, after: Selectable<SalesOrderTable>): AuditRecord {
    return { entity: salesOrderHistory.entity, recordId: salesOrderId, operation, changes: diffChanges(this.headerState(before), this.headerState(after)) };
  }

  /** Records the write's entry in its transaction: the fields that differ between `before` and `after`. */
  record(trx: Kysely<Db>, salesOrderId: number, operation: AuditOperation, before?: AuditState, after?: AuditState): Promise<void> {
    return recordAudit(trx, { entity: salesOrderHistory.entity, recordId: salesOrderId, operation, changes: diffChanges(before, after) });
  }
}
