import { type LookupCache, type LookupItem, MESSAGES, MONEY_LIMIT, currentErrors, fitsMoney } from 'restlayer';
import { lineTotalOf } from './amounts.js';
import { SALES_ORDER } from './messages.js';

/** A line's input as create, update and the lines of a new order give it. */
export interface LineInput {
  productId: number;
  orderQty: number;
  unitPrice?: number | null;
  unitPriceDiscount?: number | null;
}

/** A line ready to store: its price settled (the product's listPrice when none was sent) and its total computed. */
export interface PricedLine {
  productId: number;
  productName: string;
  orderQty: number;
  unitPrice: number;
  unitPriceDiscount: number;
  lineTotal: number;
}

/** The products by id, from lookup table `product`: read before a write's transaction (SQLite's only connection). */
export async function productsById(lookups: LookupCache): Promise<Map<number, LookupItem>> {
  const table = await lookups.get('product');
  return new Map((table?.table.data ?? []).map((p) => [Number(p.id), p]));
}

/**
 * Prices one line, or records its problems on `property(name)` (`productId`, or `lines[2].productId` in a new
 * order) and answers undefined. An inactive product is refused on a new line and kept on a line that has it already
 * (`keeps`); a line total beyond the money range is refused on unitPrice.
 */
export function priceLine(
  products: Map<number, LookupItem>, line: LineInput, property: (name: string) => string, keeps?: number,
): PricedLine | undefined {
  const errors = currentErrors();
  const product = products.get(line.productId);
  if (!product || (!product.isActive && product.id !== keeps)) {
    errors.add(SALES_ORDER.SalesOrder_InvalidProduct({ productId: line.productId, property: property('productId') }));
    return undefined;
  }
  const unitPrice = line.unitPrice ?? Number(product.attributes.listPrice);
  const unitPriceDiscount = line.unitPriceDiscount ?? 0;
  const total = lineTotalOf(line.orderQty, unitPrice, unitPriceDiscount);
  if (!fitsMoney(total)) {
    errors.add(MESSAGES.Amount_TooLarge({ amount: total.toFixed(), limit: MONEY_LIMIT.toFixed(), property: property('unitPrice') }));
    return undefined;
  }
  return { productId: line.productId, productName: product.text, orderQty: line.orderQty, unitPrice, unitPriceDiscount, lineTotal: total.toNumber() };
}
