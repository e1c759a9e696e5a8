import {
  type DocumentSpec, type Kysely, type LookupCache, MESSAGES, Output, type Storage, type Tables, type Transaction,
  applyMergePatch, currentErrors, scopeCondition, updateFieldsOf, writeDocument,
} from 'restlayer';
import { type LineInput, type PricedLine, priceLine, productsById } from './line-pricing.js';
import type { OrderTotals } from './order-document.js';
import { OrderAudit } from './sales-order-audit.js';
import { salesOrderScopes } from './sales-order-scopes.js';
import type {
  SalesOrderDetail_CreateInput_Data, SalesOrderDetail_PatchInput_Data, SalesOrderDetail_ReadOutput,
  SalesOrderDetail_UpdateInput_Data, SalesOrderDetail_WriteOutput,
} from './sales-order-models.js';
import { SalesOrderDetailUpdateData } from './sales-order-models.js';
import type { SalesTables } from './sales-order-tables.js';

type Db = Tables & SalesTables;
const updateFields = updateFieldsOf(SalesOrderDetailUpdateData);

/** The columns of a line as its reads select them (with its product's name). */
export const lineColumns = [
  'd.sales_order_detail_id', 'd.product_id', 'p.name as product_name', 'd.order_qty', 'd.unit_price', 'd.unit_price_discount', 'd.line_total',
] as const;

export interface LineRow {
  sales_order_detail_id: number;
  product_id: number;
  product_name: string;
  order_qty: number;
  unit_price: number | string;
  unit_price_discount: number | string;
  line_total: number | string;
}

/** The columns a priced line is stored in. */
export function lineValues(storage: Storage, line: PricedLine) {
  const v = storage.values;
  return {
    product_id: line.productId,
    order_qty: line.orderQty,
    unit_price: v.money(line.unitPrice),
    unit_price_discount: v.money(line.unitPriceDiscount),
    line_total: v.money(line.lineTotal),
  };
}

/** A stored line on the wire. */
export function lineItem(storage: Storage, r: LineRow): SalesOrderDetail_ReadOutput {
  const v = storage.values;
  return {
    salesOrderDetailId: r.sales_order_detail_id,
    productId: r.product_id,
    productName: r.product_name,
    orderQty: r.order_qty,
    unitPrice: v.toMoney(r.unit_price),
    unitPriceDiscount: v.toMoney(r.unit_price_discount),
    lineTotal: v.toMoney(r.line_total),
  };
}

/** A line as PATCH reads it: the line, and the order's revision and totals (one statement, one snapshot). */
type LineWithOrder = SalesOrderDetail_ReadOutput & OrderTotals & { revisionNumber: number };

/**
 * The lines of sales orders: each write goes through writeDocument (lib/documents), which locks the order, checks
 * its revision and that the line is the order's, and recomputes the order's totals in the same transaction.
 */
export class SalesOrderLines {
  private readonly db: Kysely<Db>;
  private readonly document: DocumentSpec<Db, OrderTotals>;
  private readonly audit: OrderAudit;

  /** `document`: the order's (orderDocument), which the service's own writes use too. */
  constructor(private readonly storage: Storage, private readonly lookups: LookupCache, document: DocumentSpec<Db, OrderTotals>) {
    this.db = storage.db.withTables<SalesTables>();
    this.document = document;
    this.audit = new OrderAudit(storage, this.document);
  }

  private selectLines() {
    return this.db.selectFrom('sales_order_detail as d').innerJoin('product as p', 'p.product_id', 'd.product_id');
  }

  private orderNotFound(salesOrderId: number) {
    currentErrors().add(MESSAGES.Entity_NotFound({ entity: 'Sales order', id: salesOrderId }));
  }

  private lineNotFound(salesOrderDetailId: number) {
    currentErrors().add(MESSAGES.Entity_NotFound({ entity: 'Sales order line', id: salesOrderDetailId }));
  }

  async readLines(salesOrderId: number): Promise<Output<SalesOrderDetail_ReadOutput[]>> {
    // The order and its lines in one statement: a line added meanwhile is in both or in neither.
    const rows = await this.db.selectFrom('sales_order as so')
      .leftJoin('sales_order_detail as d', 'd.sales_order_id', 'so.sales_order_id')
      .leftJoin('product as p', 'p.product_id', 'd.product_id')
      .select(lineColumns)
      .where('so.sales_order_id', '=', salesOrderId)
      .$call((q) => { const scope = scopeCondition(salesOrderScopes, 'so'); return scope ? q.where(scope) : q; })
      .orderBy('d.sales_order_detail_id')
      .execute();
    if (!rows.length) {
      this.orderNotFound(salesOrderId);
      return Output.of();
    }
    return Output.of(rows.filter((r) => r.sales_order_detail_id != null).map((r) => lineItem(this.storage, r as LineRow)));
  }

  private async readWithOrder(salesOrderId: number, salesOrderDetailId: number): Promise<LineWithOrder | undefined> {
    // A line of an order out of the caller's scope is not found, nor is that order.
    const scope = scopeCondition(salesOrderScopes, 'so');
    const r = await this.selectLines()
      .innerJoin('sales_order as so', 'so.sales_order_id', 'd.sales_order_id')
      .select(lineColumns)
      .select(['so.revision_number', 'so.sub_total', 'so.total_due'])
      .where('d.sales_order_id', '=', salesOrderId)
      .where('d.sales_order_detail_id', '=', salesOrderDetailId)
      .$call((q) => (scope ? q.where(scope) : q))
      .executeTakeFirst();
    if (!r) {
      const order = await this.db.selectFrom('sales_order as so').select('so.sales_order_id').where('so.sales_order_id', '=', salesOrderId)
        .$call((q) => (scope ? q.where(scope) : q)).executeTakeFirst();
      if (order) this.lineNotFound(salesOrderDetailId);
      else this.orderNotFound(salesOrderId);
      return undefined;
    }
    const v = this.storage.values;
    return { ...lineItem(this.storage, r), revisionNumber: r.revision_number, subTotal: v.toMoney(r.sub_total), totalDue: v.toMoney(r.total_due) };
  }

  async readLine(salesOrderId: number, salesOrderDetailId: number): Promise<Output<SalesOrderDetail_ReadOutput>> {
    const line = await this.readWithOrder(salesOrderId, salesOrderDetailId);
    if (!line) return Output.of();
    const { revisionNumber: _r, subTotal: _s, totalDue: _t, ...item } = line;
    return Output.of(item);
  }

  /** Prices the line before the transaction needs it (the products come from the lookup cache, read outside it). */
  private async pricing() {
    const products = await productsById(this.lookups);
    return (line: LineInput, keeps?: number) => priceLine(products, line, (name) => name, keeps);
  }

  async createLine(salesOrderId: number, data: SalesOrderDetail_CreateInput_Data): Promise<Output<SalesOrderDetail_WriteOutput>> {
    const priced = (await this.pricing())(data);
    currentErrors().abortIfHasErrors();
    const write = await writeDocument(this.storage, this.db, this.document, { parentId: salesOrderId, revisionNumber: data.revisionNumber },
      (trx) => this.audit.audited(trx, salesOrderId, 'line-create', 'none', async () => (await trx.insertInto('sales_order_detail')
        .values({ sales_order_id: salesOrderId, ...lineValues(this.storage, priced!) })
        .returning('sales_order_detail_id').executeTakeFirstOrThrow()).sales_order_detail_id, (id) => id));
    if (!write) return Output.of();
    return Output.of({ salesOrderDetailId: write.result, lineTotal: priced!.lineTotal, ...write.totals, revisionNumber: write.revisionNumber });
  }

  updateLine(salesOrderId: number, salesOrderDetailId: number, data: SalesOrderDetail_UpdateInput_Data): Promise<Output<SalesOrderDetail_WriteOutput>> {
    return this.writeLine(salesOrderId, salesOrderDetailId, data, 'line-update');
  }

  /** PUT of a line, and PATCH once merged: `operation` names it in the order's history. */
  private async writeLine(
    salesOrderId: number, salesOrderDetailId: number, data: SalesOrderDetail_UpdateInput_Data, operation: 'line-update' | 'line-patch',
  ): Promise<Output<SalesOrderDetail_WriteOutput>> {
    const price = await this.pricing();
    const write = await writeDocument(this.storage, this.db, this.document,
      { parentId: salesOrderId, childId: salesOrderDetailId, revisionNumber: data.revisionNumber },
      (trx) => this.audit.audited(trx, salesOrderId, operation, salesOrderDetailId, () => this.replaceLine(trx, salesOrderDetailId, data, price)));
    if (!write?.result) return Output.of();
    return Output.of({ salesOrderDetailId, lineTotal: write.result.lineTotal, ...write.totals, revisionNumber: write.revisionNumber });
  }

  /** Inside the order's transaction: the line's product may stay an inactive one it has already. */
  private async replaceLine(
    trx: Transaction<Db>, salesOrderDetailId: number, data: LineInput, price: (line: LineInput, keeps?: number) => PricedLine | undefined,
  ): Promise<PricedLine | undefined> {
    const current = await trx.selectFrom('sales_order_detail').select('product_id')
      .where('sales_order_detail_id', '=', salesOrderDetailId).executeTakeFirstOrThrow();
    const priced = price(data, current.product_id);
    if (!priced) return undefined;
    await trx.updateTable('sales_order_detail').set(lineValues(this.storage, priced))
      .where('sales_order_detail_id', '=', salesOrderDetailId).execute();
    return priced;
  }

  patchLine(salesOrderId: number, salesOrderDetailId: number, data: SalesOrderDetail_PatchInput_Data): Promise<Output<SalesOrderDetail_WriteOutput>> {
    return applyMergePatch({
      patch: data,
      read: async () => Output.of(await this.readWithOrder(salesOrderId, salesOrderDetailId)),
      toUpdate: updateFields,
      update: (merged) => this.writeLine(salesOrderId, salesOrderDetailId, merged, 'line-patch'),
      unchanged: (current: LineWithOrder) => ({
        salesOrderDetailId, lineTotal: current.lineTotal, subTotal: current.subTotal, totalDue: current.totalDue, revisionNumber: current.revisionNumber,
      }),
    });
  }

  async deleteLine(salesOrderId: number, salesOrderDetailId: number, revisionNumber?: number): Promise<Output<SalesOrderDetail_WriteOutput>> {
    const write = await writeDocument(this.storage, this.db, this.document,
      { parentId: salesOrderId, childId: salesOrderDetailId, revisionNumber },
      (trx) => this.audit.audited(trx, salesOrderId, 'line-delete', salesOrderDetailId,
        () => trx.deleteFrom('sales_order_detail').where('sales_order_detail_id', '=', salesOrderDetailId).execute()));
    if (!write) return Output.of();
    return Output.of({ ...write.totals, revisionNumber: write.revisionNumber });
  }
}
