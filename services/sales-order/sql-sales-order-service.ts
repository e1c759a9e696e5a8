import { randomBytes } from 'node:crypto';
import {
  type DbMoney, type DocumentLimits, type DocumentSpec, type HistoryPage, type Kysely, type ListDefinition, MESSAGES, type ListLimits, type LookupCache, Output,
  type Storage, type Tables, applyMergePatch, createDocument, mergePatch, currentAccess, currentErrors, inTransaction, itemProperty, readHistory, readListRows,
  type LookupItem, type Selectable, keptQuery, preconditionFails, resolveReference, scopeCondition, tooManyChildren, writeParent,
} from 'restlayer';
import { customer as customers } from '../customer/customer.js';
import { type PricedLine, priceLine, productsById } from './line-pricing.js';
import { type OrderTotals, orderDocument } from './order-document.js';
import { OrderAudit, salesOrderHistory } from './sales-order-audit.js';
import type {
  SalesOrderDetail_CreateInput_Data, SalesOrderDetail_PatchInput_Data, SalesOrderDetail_ReadOutput,
  SalesOrderDetail_UpdateInput_Data, SalesOrderDetail_WriteOutput,
  SalesOrderSortField, SalesOrder_CreateInput_Data, SalesOrder_CreateOutput, SalesOrder_ReadListInput_Criteria,
  SalesOrder_HistoryOutput, SalesOrder_PatchInput_Data, SalesOrder_ReadListOutput, SalesOrder_ReadOutput, SalesOrder_UpdateInput_Data, SalesOrder_UpdateOutput,
} from './sales-order-models.js';
import { type LineRow, SalesOrderLines, lineColumns, lineItem, lineValues } from './sales-order-lines.js';
import type { ISalesOrderService } from './sales-order-service.js';
import { salesOrderScopes, salesPersonOf } from './sales-order-scopes.js';
import type { CustomerTable, SalesOrderTable, SalesTables } from './sales-order-tables.js';
import { SALES_ORDER } from './messages.js';

const DAY = 86_400_000;
/** The columns of the order's fields that PUT replaces (updateInputOf). */
type UpdateColumn = 'status' | 'online_order_flag' | 'purchase_order_number' | 'account_number' | 'ship_date' | 'due_date' | 'comment' | 'tax_amt' | 'freight' | 'revision_number';

const listColumns = [
  'so.sales_order_id', 'so.sales_order_number', 'so.status', 'so.order_date', 'so.due_date', 'so.ship_date',
  'so.customer_id', 'c.name as customer_name', 'so.territory_id', 'so.sales_person_id', 'so.total_due', 'so.online_order_flag',
] as const;

/** The list: orders with their customer's name, filtered and sorted by the wire fields. */
export const salesOrderList: ListDefinition<SalesOrderSortField> = {
  table: 'sales_order',
  alias: 'so',
  id: 'so.sales_order_id',
  columns: {
    salesOrderId: 'so.sales_order_id',
    salesOrderNumber: 'so.sales_order_number',
    status: 'so.status',
    orderDate: 'so.order_date',
    dueDate: 'so.due_date',
    shipDate: 'so.ship_date',
    customerName: 'c.name',
    territoryId: 'so.territory_id',
    salesPersonId: 'so.sales_person_id',
    totalDue: 'so.total_due',
    onlineOrderFlag: 'so.online_order_flag',
  },
  joins: [{ table: 'customer', alias: 'c', key: 'c.customer_id', refers: 'so.customer_id' }],
  select: listColumns,
  notNull: ['salesOrderId', 'salesOrderNumber', 'status', 'orderDate', 'dueDate', 'customerName', 'totalDue', 'onlineOrderFlag'],
  // The customer's name has a trigram index (services/customer/migrations.ts, 0005-name-contains).
  fullText: ['customerName'],
  maxLength: { salesOrderNumber: 25, customerName: 100 },
  scopes: salesOrderScopes,
};

/** The current caller's scope condition on orders under `alias` (undefined when not limited): in every query that reaches an order. */
const ordersInScope = (alias: string) => scopeCondition(salesOrderScopes, alias);

/**
 * The order with its lines in one statement (one row per line): one snapshot, so the totals read always match the
 * lines read, even while another request adds a line (PostgreSQL's READ COMMITTED snapshots per statement). Kept
 * compiled: the read of an order is the hottest statement there is.
 */
const orderWithLines = keptQuery((db: Kysely<Tables & SalesTables>, p: { salesOrderId: number }) => {
  const scope = ordersInScope('so');
  return db.selectFrom('sales_order as so')
    .innerJoin('customer as c', 'c.customer_id', 'so.customer_id')
    .leftJoin('sales_order_detail as d', 'd.sales_order_id', 'so.sales_order_id')
    .leftJoin('product as p', 'p.product_id', 'd.product_id')
    .select(listColumns)
    .select(['so.purchase_order_number', 'so.account_number', 'so.comment', 'so.revision_number', 'so.modified_date', 'so.sub_total', 'so.tax_amt', 'so.freight'])
    .select(lineColumns)
    .where('so.sales_order_id', '=', p.salesOrderId)
    .$call((q) => (scope ? q.where(scope) : q))
    .orderBy('d.sales_order_detail_id');
});

export type SalesOrderServiceOptions = ListLimits & DocumentLimits;

export class SqlSalesOrderService implements ISalesOrderService {
  private readonly db: Kysely<Tables & SalesTables>;
  private readonly document: DocumentSpec<Tables & SalesTables, OrderTotals>;
  private readonly lines: SalesOrderLines;
  private readonly audit: OrderAudit;

  constructor(
    private readonly storage: Storage,
    private readonly lookups: LookupCache,
    private readonly options: SalesOrderServiceOptions,
  ) {
    this.db = storage.db.withTables<SalesTables>();
    this.document = orderDocument(storage, options.maxLines);
    this.lines = new SalesOrderLines(storage, lookups, this.document);
    this.audit = new OrderAudit(storage, this.document);
  }

  private listItem(r: ListRow): SalesOrder_ReadListOutput {
    const v = this.storage.values;
    return {
      salesOrderId: r.sales_order_id,
      salesOrderNumber: r.sales_order_number,
      status: r.status,
      orderDate: v.toDate(r.order_date),
      dueDate: v.toDate(r.due_date),
      shipDate: r.ship_date == null ? undefined : v.toDate(r.ship_date),
      customerId: r.customer_id,
      customerName: r.customer_name,
      territoryId: r.territory_id ?? undefined,
      salesPersonId: r.sales_person_id ?? undefined,
      totalDue: v.toMoney(r.total_due),
      onlineOrderFlag: v.toBool(r.online_order_flag),
    };
  }

  private notFound(salesOrderId: number) {
    currentErrors().add(MESSAGES.Entity_NotFound({ entity: 'Sales order', id: salesOrderId }));
  }

  async read(salesOrderId: number): Promise<Output<SalesOrder_ReadOutput>> {
    const rows = await orderWithLines(this.db, { salesOrderId });
    const r = rows[0];
    if (!r) {
      this.notFound(salesOrderId);
      return Output.of();
    }
    const v = this.storage.values;
    // The wire's order of properties (clients and caches compare bytes): the list's, the header's, then lines and revision.
    const { purchaseOrderNumber, accountNumber, comment, taxAmt, freight, revisionNumber } = this.updateInputOf(r);
    return Output.of({
      ...this.listItem(r),
      purchaseOrderNumber, accountNumber, comment,
      subTotal: v.toMoney(r.sub_total), taxAmt, freight,
      lines: rows.filter((l) => l.sales_order_detail_id != null).map((l) => lineItem(this.storage, l as LineRow)),
      revisionNumber,
      modifiedDate: v.toDate(r.modified_date),
    });
  }

  /** The order's fields that PUT replaces, as the wire has them: part of the read, and what a PATCH is merged into. */
  private updateInputOf(r: Pick<Selectable<SalesOrderTable>, UpdateColumn>) {
    const v = this.storage.values;
    return {
      status: r.status,
      onlineOrderFlag: v.toBool(r.online_order_flag),
      purchaseOrderNumber: r.purchase_order_number ?? undefined,
      accountNumber: r.account_number ?? undefined,
      shipDate: r.ship_date == null ? undefined : v.toDate(r.ship_date),
      dueDate: v.toDate(r.due_date),
      comment: r.comment ?? undefined,
      taxAmt: v.toMoney(r.tax_amt),
      freight: v.toMoney(r.freight),
      revisionNumber: r.revision_number,
    };
  }

  async readList(criteria: SalesOrder_ReadListInput_Criteria): Promise<Output<SalesOrder_ReadListOutput[]>> {
    const { rows, totalCount, nextCursor } = await readListRows<SalesOrderSortField, ListRow>(this.storage, salesOrderList, criteria, this.options);
    return Output.of(rows.map((r) => this.listItem(r)), totalCount, nextCursor);
  }

  /** The sales order statuses (a cached lookup table), read before a write's transaction: see checkData. */
  private async statuses(): Promise<readonly LookupItem[]> {
    const statuses = await this.lookups.get('sales-order-status');
    return statuses ? (await statuses).table.data : [];
  }

  /**
   * Business rules shared by create and update; structural checks already ran in the route. Synchronous, with the
   * statuses read beforehand, so it may run inside a write's transaction: on SQLite a lookup table loaded there would
   * wait for the connection the transaction holds.
   */
  private checkData(data: SalesOrder_UpdateInput_Data, orderDate: Date, statuses: readonly LookupItem[]) {
    const errors = currentErrors();
    const status = statuses.find((s) => s.id === data.status);
    if (!status || !status.isActive) {
      errors.add(SALES_ORDER.SalesOrder_InvalidStatus({ statusId: data.status, property: 'status' }));
    }
    for (const name of ['dueDate', 'shipDate'] as const) {
      const d = data[name];
      if (d && d.getTime() < orderDate.getTime() - DAY) {
        errors.add(SALES_ORDER.SalesOrder_DateBeforeOrder({ name, orderDate: orderDate.toISOString().slice(0, 10), property: name }));
      }
    }
  }

  private columnsOf(data: SalesOrder_UpdateInput_Data) {
    const v = this.storage.values;
    return {
      status: data.status,
      online_order_flag: v.bool(data.onlineOrderFlag),
      purchase_order_number: data.purchaseOrderNumber ?? null,
      account_number: data.accountNumber ?? null,
      ship_date: data.shipDate ? v.date(data.shipDate) : null,
      comment: data.comment ?? null,
      tax_amt: v.money(data.taxAmt ?? 0),
      freight: v.money(data.freight ?? 0),
    };
  }

  /** Prices a new order's lines; each problem on its line's property (`lines[2].orderQty`), too many on `lines`. */
  private async priceLines(data: SalesOrder_CreateInput_Data): Promise<PricedLine[]> {
    if (!data.lines?.length) return [];
    // Refused before a line is priced: an order past the cap is never stored (createDocument counts again, as stored).
    if (tooManyChildren(this.document, data.lines.length)) return [];
    const products = await productsById(this.lookups);
    return data.lines.flatMap((line, i) => priceLine(products, line, (name) => itemProperty('lines', i, name)) ?? []);
  }

  async create(data: SalesOrder_CreateInput_Data): Promise<Output<SalesOrder_CreateOutput>> {
    const errors = currentErrors();
    const now = new Date();
    // A scoped caller (a SalesPerson granted sales-order.create:own) creates their own orders: the order gets their
    // sales person, and createDocument refuses it (403, nothing stored) if their scope still does not reach it.
    const access = currentAccess();
    const salesPersonId = access?.scopes ? salesPersonOf(access.attributes) : null;
    // An attribute naming no sales person of the lookup table cannot own an order either (nor break its foreign key).
    const people = salesPersonId == null ? undefined : await this.lookups.get('sales-person');
    if (salesPersonId === undefined || (salesPersonId !== null && !people?.table.data.some((p) => p.id === salesPersonId))) {
      errors.add(MESSAGES.Security_Forbidden());
      return Output.of();
    }
    // Resolved as the caller reads customers (customer.read and its scope): one out of their reach is answered as an
    // unknown one, and does not join their scope through this order.
    const customer = await resolveReference<Selectable<CustomerTable>>(this.db, customers.reference, data.customerId);
    if (!customer) errors.add(SALES_ORDER.SalesOrder_UnknownCustomer({ customerId: data.customerId, property: 'customerId' }));
    this.checkData(data, now, await this.statuses());
    const lines = await this.priceLines(data);
    errors.abortIfHasErrors();
    const v = this.storage.values;
    // The order with all of its lines, or nothing (a total out of range refuses it inside the transaction).
    const created = await createDocument(this.db, this.document, async (trx) => {
      const { sales_order_id } = await trx.insertInto('sales_order').values({
        ...this.columnsOf(data),
        // A unique placeholder until the id is known; replaced in the same transaction.
        sales_order_number: `new-${randomBytes(8).toString('hex')}`,
        order_date: v.date(now),
        due_date: v.date(data.dueDate ?? new Date(now.getTime() + 12 * DAY)),
        customer_id: data.customerId,
        territory_id: customer!.territory_id,
        sales_person_id: salesPersonId,
        sub_total: 0,
        total_due: 0,
        account_number: data.accountNumber ?? customer!.account_number,
        revision_number: 1,
        modified_date: v.date(now),
      }).returning('sales_order_id').executeTakeFirstOrThrow();
      const salesOrderNumber = `SO${sales_order_id}`;
      await trx.updateTable('sales_order').set({ sales_order_number: salesOrderNumber }).where('sales_order_id', '=', sales_order_id).execute();
      return { parentId: sales_order_id, salesOrderNumber };
    }, async (trx, salesOrderId) => {
      const rows = lines.map((line) => ({ sales_order_id: salesOrderId, ...lineValues(this.storage, line) }));
      for (let i = 0; i < rows.length; i += 500) await trx.insertInto('sales_order_detail').values(rows.slice(i, i + 500)).execute();
      await this.audit.record(trx, salesOrderId, 'create', undefined, await this.audit.created(trx, salesOrderId));
    });
    return Output.of({ salesOrderId: created.parentId, salesOrderNumber: created.salesOrderNumber, revisionNumber: 1, modifiedDate: now });
  }

  update(salesOrderId: number, data: SalesOrder_UpdateInput_Data): Promise<Output<SalesOrder_UpdateOutput>> {
    return this.write(salesOrderId, data.revisionNumber, () => data, 'update');
  }

  /**
   * PUT, and PATCH (`operation` names it in the order's history). The order's own fields: read through the caller's
   * scope, checked, its revision checked, then one update of what changed with totalDue recomputed from the new taxAmt
   * and freight, and its audit entry from the rows before and after (lib/documents/write-parent.ts: five statements,
   * or two on PostgreSQL). `data` is the PUT's body, or for a PATCH the body merged into the order as this write reads it.
   */
  private async write(
    salesOrderId: number, revisionNumber: number | null | undefined, data: (stored: Selectable<SalesOrderTable>) => SalesOrder_UpdateInput_Data,
    operation: 'update' | 'patch',
  ): Promise<Output<SalesOrder_UpdateOutput>> {
    const v = this.storage.values;
    const statuses = await this.statuses();
    const write = await writeParent<Tables & SalesTables, Selectable<SalesOrderTable>, OrderTotals>(this.storage, this.db, this.document,
      { parentId: salesOrderId, revisionNumber }, {
        columns: (stored) => {
          const merged = data(stored);
          this.checkData(merged, v.toDate(stored.order_date), statuses);
          return { ...this.columnsOf(merged), ...(merged.dueDate ? { due_date: v.date(merged.dueDate) } : {}) };
        },
        audit: (before, after) => this.audit.headerEntry(salesOrderId, operation, before, after),
      });
    if (!write) return Output.of();
    return Output.of({ revisionNumber: write.revisionNumber, modifiedDate: write.modifiedDate });
  }

  patch(salesOrderId: number, data: SalesOrder_PatchInput_Data): Promise<Output<SalesOrder_UpdateOutput>> {
    // Merged into the row the write reads and checks the revision of: no read before the write, no lost update.
    return applyMergePatch({
      patch: data,
      read: () => this.read(salesOrderId),
      write: (patch) => this.write(salesOrderId, patch.revisionNumber, (stored) => mergePatch<SalesOrder_UpdateInput_Data>(this.updateInputOf(stored), patch), 'patch'),
    });
  }

  async delete(salesOrderId: number): Promise<Output> {
    // The order with its lines (their foreign key cascades too; said here so it does not rest on that alone).
    // An order out of the caller's scope is not found: its lines go only with an order the scope reaches.
    const scope = ordersInScope('sales_order');
    const deleted = await inTransaction(this.db, async (trx) => {
      const before = await this.audit.state(trx, salesOrderId, 'all', true);
      // If-Match (contract part 14), checked on the row this transaction holds.
      if (before && preconditionFails(`Sales order ${salesOrderId}`, before.revisionNumber)) return undefined;
      await trx.deleteFrom('sales_order_detail').where('sales_order_id', '=', salesOrderId)
        .$call((q) => (scope ? q.where('sales_order_id', 'in', (eb) => eb.selectFrom('sales_order').select('sales_order_id').where('sales_order_id', '=', salesOrderId).where(scope)) : q))
        .execute();
      const result = await trx.deleteFrom('sales_order').where('sales_order_id', '=', salesOrderId).$call((q) => (scope ? q.where(scope) : q)).executeTakeFirst();
      if (result.numDeletedRows > 0n) await this.audit.record(trx, salesOrderId, 'delete', before);
      return result;
    });
    if (deleted?.numDeletedRows === 0n) this.notFound(salesOrderId);
    return Output.of();
  }

  history(salesOrderId: number, page: HistoryPage = {}): Promise<Output<SalesOrder_HistoryOutput[]>> {
    return readHistory(this.storage, salesOrderHistory, salesOrderId, page, this.options.maxRows);
  }

  async purgeCancelled(orderedBefore: Date): Promise<Output<number>> {
    const before = this.storage.values.date(orderedBefore);
    const result = await inTransaction(this.db, async (trx) => {
      await this.audit.recordPurge(trx, 6, before);
      await trx.deleteFrom('sales_order_detail')
        .where('sales_order_id', 'in', (eb) => eb.selectFrom('sales_order').select('sales_order_id').where('status', '=', 6).where('order_date', '<', before))
        .execute();
      return trx.deleteFrom('sales_order').where('status', '=', 6).where('order_date', '<', before).executeTakeFirst();
    });
    return Output.of(Number(result.numDeletedRows));
  }

  readLines(salesOrderId: number): Promise<Output<SalesOrderDetail_ReadOutput[]>> {
    return this.lines.readLines(salesOrderId);
  }

  readLine(salesOrderId: number, salesOrderDetailId: number): Promise<Output<SalesOrderDetail_ReadOutput>> {
    return this.lines.readLine(salesOrderId, salesOrderDetailId);
  }

  createLine(salesOrderId: number, data: SalesOrderDetail_CreateInput_Data): Promise<Output<SalesOrderDetail_WriteOutput>> {
    return this.lines.createLine(salesOrderId, data);
  }

  updateLine(salesOrderId: number, salesOrderDetailId: number, data: SalesOrderDetail_UpdateInput_Data): Promise<Output<SalesOrderDetail_WriteOutput>> {
    return this.lines.updateLine(salesOrderId, salesOrderDetailId, data);
  }

  patchLine(salesOrderId: number, salesOrderDetailId: number, data: SalesOrderDetail_PatchInput_Data): Promise<Output<SalesOrderDetail_WriteOutput>> {
    return this.lines.patchLine(salesOrderId, salesOrderDetailId, data);
  }

  deleteLine(salesOrderId: number, salesOrderDetailId: number, revisionNumber?: number): Promise<Output<SalesOrderDetail_WriteOutput>> {
    return this.lines.deleteLine(salesOrderId, salesOrderDetailId, revisionNumber);
  }
}

interface ListRow {
  sales_order_id: number;
  sales_order_number: string;
  status: number;
  order_date: string | Date;
  due_date: string | Date;
  ship_date: string | Date | null;
  customer_id: number;
  customer_name: string;
  territory_id: number | null;
  sales_person_id: number | null;
  total_due: DbMoney;
  online_order_flag: number | boolean;
}
