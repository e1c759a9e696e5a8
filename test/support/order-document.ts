import { type DbMoney, Decimal, type DocumentSpec, type DocumentTotals, MESSAGES, MONEY_LIMIT, type Storage, type Tables, currentErrors, fitsMoney } from 'restlayer';
import { salesOrderScopes } from '../../services/sales-order/sales-order-scopes.js';
import type { SalesTables } from '../../services/sales-order/sales-order-tables.js';

/** The order's totals as its writes answer them. */
export interface OrderTotals {
  subTotal: number;
  totalDue: number;
}

/**
 * A sales order as a document of lib/documents' helpers (which the scaffold's header + lines services still use), for
 * the tests of those helpers on the sample's tables; the sample's own orders are a declaration (services/sales-order).
 * A sales order as a document (lib/documents): its lines are its children; subTotal = Σ lineTotal and totalDue =
 * subTotal + taxAmt + freight are recomputed by every write in its transaction, exactly (SUM of exact columns, then
 * decimal arithmetic). A total beyond the money range refuses the write on `subTotal` or `totalDue`. An order holds at
 * most `maxLines` lines (Documents:MaxLines): more is a 400 Document_TooManyLines on `lines`.
 */
export function orderDocument(storage: Storage, maxLines: number): DocumentSpec<Tables & SalesTables, OrderTotals> {
  const v = storage.values;
  return {
    parent: { table: 'sales_order', key: 'sales_order_id', entity: 'Sales order' },
    child: { table: 'sales_order_detail', key: 'sales_order_detail_id', parentKey: 'sales_order_id', entity: 'Sales order line', property: 'lines' },
    maxChildren: maxLines,
    // Every line write and header update locks the order through the caller's scope (404 outside it).
    scopes: salesOrderScopes,
    async totals(trx, salesOrderId) {
      const header = await trx.selectFrom('sales_order').select(['tax_amt', 'freight'])
        .where('sales_order_id', '=', salesOrderId).executeTakeFirstOrThrow();
      const { sum } = await trx.selectFrom('sales_order_detail').select((eb) => eb.fn.sum<number | string | null>('line_total').as('sum'))
        .where('sales_order_id', '=', salesOrderId).executeTakeFirstOrThrow();
      return totalsOf(sum, header.tax_amt, header.freight);
    },
    // A header write keeps the lines, so subTotal stays what every line write stored.
    parentTotals: (row) => totalsOf(row.sub_total as DbMoney, row.tax_amt as DbMoney, row.freight as DbMoney),
  };

  /** subTotal (Σ lineTotal, stored form) and totalDue = subTotal + taxAmt + freight, exactly; refused beyond the money range. */
  function totalsOf(subTotalStored: DbMoney | null, taxAmt: DbMoney, freight: DbMoney): DocumentTotals<OrderTotals> {
    const subTotal = new Decimal(v.toMoney(subTotalStored));
    const totalDue = subTotal.plus(v.toMoney(taxAmt)).plus(v.toMoney(freight));
    const errors = currentErrors();
    for (const [property, amount] of [['subTotal', subTotal], ['totalDue', totalDue]] as const) {
      if (!fitsMoney(amount)) {
        errors.add(MESSAGES.Amount_TooLarge({ amount: amount.toFixed(), limit: MONEY_LIMIT.toFixed(), property }));
        return { columns: {}, wire: { subTotal: 0, totalDue: 0 } };
      }
    }
    return {
      columns: { sub_total: v.money(subTotal), total_due: v.money(totalDue) },
      wire: { subTotal: subTotal.toNumber(), totalDue: totalDue.toNumber() },
    };
  }
}
