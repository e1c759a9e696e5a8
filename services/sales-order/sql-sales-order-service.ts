import { randomBytes } from 'node:crypto';
import {
  type Kysely, type ListDefinition, MESSAGES, type ListLimits, type LookupCache, Output, type Storage, type Tables,
  applyMergePatch, currentErrors, inTransaction, readListRows, updateFieldsOf,
} from 'restlayer';
import type {
  SalesOrderSortField, SalesOrder_CreateInput_Data, SalesOrder_CreateOutput, SalesOrder_ReadListInput_Criteria,
  SalesOrder_PatchInput_Data, SalesOrder_ReadListOutput, SalesOrder_ReadOutput, SalesOrder_UpdateInput_Data, SalesOrder_UpdateOutput,
} from './sales-order-models.js';
import { SalesOrderUpdateData } from './sales-order-models.js';
import type { ISalesOrderService } from './sales-order-service.js';
import type { SalesTables } from './sales-order-tables.js';

const DAY = 86_400_000;
const updateFields = updateFieldsOf(SalesOrderUpdateData);

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
};

export type SalesOrderServiceOptions = ListLimits;

export class SqlSalesOrderService implements ISalesOrderService {
  private readonly db: Kysely<Tables & SalesTables>;

  constructor(
    private readonly storage: Storage,
    private readonly lookups: LookupCache,
    private readonly options: SalesOrderServiceOptions,
  ) {
    this.db = storage.db.withTables<SalesTables>();
  }

  private selectOrders() {
    return this.db.selectFrom('sales_order as so').innerJoin('customer as c', 'c.customer_id', 'so.customer_id');
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
      totalDue: Number(r.total_due),
      onlineOrderFlag: v.toBool(r.online_order_flag),
    };
  }

  private notFound(salesOrderId: number) {
    currentErrors().add(MESSAGES.Entity_NotFound({ entity: 'Sales order', id: salesOrderId }));
  }

  async read(salesOrderId: number): Promise<Output<SalesOrder_ReadOutput>> {
    const r = await this.selectOrders()
      .select(listColumns)
      .select(['so.purchase_order_number', 'so.account_number', 'so.comment', 'so.revision_number', 'so.modified_date'])
      .where('so.sales_order_id', '=', salesOrderId)
      .executeTakeFirst();
    if (!r) {
      this.notFound(salesOrderId);
      return Output.of();
    }
    return Output.of({
      ...this.listItem(r),
      purchaseOrderNumber: r.purchase_order_number ?? undefined,
      accountNumber: r.account_number ?? undefined,
      comment: r.comment ?? undefined,
      revisionNumber: r.revision_number,
      modifiedDate: this.storage.values.toDate(r.modified_date),
    });
  }

  async readList(criteria: SalesOrder_ReadListInput_Criteria): Promise<Output<SalesOrder_ReadListOutput[]>> {
    const { rows, totalCount, nextCursor } = await readListRows<SalesOrderSortField, ListRow>(this.storage, salesOrderList, criteria, this.options);
    return Output.of(rows.map((r) => this.listItem(r)), totalCount, nextCursor);
  }

  /** Business rules shared by create and update; structural checks already ran in the route. */
  private async checkData(data: SalesOrder_UpdateInput_Data, orderDate: Date) {
    const errors = currentErrors();
    const statuses = await this.lookups.get('sales-order-status');
    const status = statuses && (await statuses).table.data.find((s) => s.id === data.status);
    if (!status || !status.isActive) {
      errors.error('Validation', 'SalesOrder_InvalidStatus', `Status ${data.status} is not a valid sales order status.`, { property: 'status' });
    }
    for (const name of ['dueDate', 'shipDate'] as const) {
      const d = data[name];
      if (d && d.getTime() < orderDate.getTime() - DAY) {
        errors.error('Validation', 'SalesOrder_DateBeforeOrder', `${name} cannot be before the order date (${orderDate.toISOString().slice(0, 10)}).`, { property: name });
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
    };
  }

  async create(data: SalesOrder_CreateInput_Data): Promise<Output<SalesOrder_CreateOutput>> {
    const errors = currentErrors();
    const now = new Date();
    const customer = await this.db.selectFrom('customer').selectAll().where('customer_id', '=', data.customerId).executeTakeFirst();
    if (!customer) errors.error('Validation', 'SalesOrder_UnknownCustomer', `Customer with id ${data.customerId} not found.`, { property: 'customerId' });
    await this.checkData(data, now);
    errors.abortIfHasErrors();
    const v = this.storage.values;
    const created = await inTransaction(this.db, async (trx) => {
      const { sales_order_id } = await trx.insertInto('sales_order').values({
        ...this.columnsOf(data),
        // A unique placeholder until the id is known; replaced in the same transaction.
        sales_order_number: `new-${randomBytes(8).toString('hex')}`,
        order_date: v.date(now),
        due_date: v.date(data.dueDate ?? new Date(now.getTime() + 12 * DAY)),
        customer_id: data.customerId,
        territory_id: customer!.territory_id,
        sales_person_id: null,
        total_due: 0,
        account_number: data.accountNumber ?? customer!.account_number,
        revision_number: 1,
        modified_date: v.date(now),
      }).returning('sales_order_id').executeTakeFirstOrThrow();
      const salesOrderNumber = `SO${sales_order_id}`;
      await trx.updateTable('sales_order').set({ sales_order_number: salesOrderNumber }).where('sales_order_id', '=', sales_order_id).execute();
      return { salesOrderId: sales_order_id, salesOrderNumber };
    });
    return Output.of({ ...created, revisionNumber: 1, modifiedDate: now });
  }

  async update(salesOrderId: number, data: SalesOrder_UpdateInput_Data): Promise<Output<SalesOrder_UpdateOutput>> {
    const errors = currentErrors();
    const current = await this.db.selectFrom('sales_order').select(['order_date', 'revision_number']).where('sales_order_id', '=', salesOrderId).executeTakeFirst();
    if (!current) {
      this.notFound(salesOrderId);
      return Output.of();
    }
    await this.checkData(data, this.storage.values.toDate(current.order_date));
    errors.abortIfHasErrors();
    const now = new Date();
    const v = this.storage.values;
    // The revision in the WHERE makes check-and-write one atomic step: of concurrent writers, one wins.
    const updated = await this.db.updateTable('sales_order')
      .set((eb) => ({
        ...this.columnsOf(data),
        due_date: data.dueDate ? v.date(data.dueDate) : eb.ref('due_date'),
        revision_number: eb('revision_number', '+', 1),
        modified_date: v.date(now),
      }))
      .where('sales_order_id', '=', salesOrderId)
      .$if(data.revisionNumber != null, (q) => q.where('revision_number', '=', data.revisionNumber!))
      .returning(['revision_number', 'modified_date'])
      .executeTakeFirst();
    if (!updated) {
      const exists = await this.db.selectFrom('sales_order').select('revision_number').where('sales_order_id', '=', salesOrderId).executeTakeFirst();
      if (!exists) this.notFound(salesOrderId);
      else {
        errors.add(MESSAGES.Entity_Concurrency({
          record: `Sales order ${salesOrderId}`, sent: data.revisionNumber, now: exists.revision_number, property: 'revisionNumber',
        }));
      }
      return Output.of();
    }
    return Output.of({ revisionNumber: updated.revision_number, modifiedDate: v.toDate(updated.modified_date) });
  }

  patch(salesOrderId: number, data: SalesOrder_PatchInput_Data): Promise<Output<SalesOrder_UpdateOutput>> {
    return applyMergePatch({
      patch: data,
      read: () => this.read(salesOrderId),
      toUpdate: updateFields,
      update: (merged) => this.update(salesOrderId, merged),
    });
  }

  async delete(salesOrderId: number): Promise<Output> {
    const result = await this.db.deleteFrom('sales_order').where('sales_order_id', '=', salesOrderId).executeTakeFirst();
    if (result.numDeletedRows === 0n) this.notFound(salesOrderId);
    return Output.of();
  }

  async purgeCancelled(orderedBefore: Date): Promise<Output<number>> {
    const result = await this.db.deleteFrom('sales_order')
      .where('status', '=', 6)
      .where('order_date', '<', this.storage.values.date(orderedBefore))
      .executeTakeFirst();
    return Output.of(Number(result.numDeletedRows));
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
  total_due: number;
  online_order_flag: number | boolean;
}
