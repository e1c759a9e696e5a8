import { Decimal } from 'restlayer';

/** The largest amount a money column holds (numeric(15,4)): 11 integer digits and 4 fractional ones. */
export const MAX_MONEY = new Decimal('99999999999.9999');
/** The bound amounts stay below, as Amount_TooLarge names it. */
export const MONEY_LIMIT = '100000000000';

/**
 * A line's total: orderQty × unitPrice × (1 − unitPriceDiscount), in decimal arithmetic, rounded half away from zero
 * to 4 fractional digits (contract part 9). Never computed in binary floating point.
 */
export function lineTotalOf(orderQty: number, unitPrice: number, unitPriceDiscount: number): Decimal {
  return new Decimal(orderQty).times(unitPrice).times(new Decimal(1).minus(unitPriceDiscount)).round(4, Decimal.roundHalfUp);
}

/** totalDue = subTotal + taxAmt + freight, exactly. */
export function totalDueOf(subTotal: Decimal | number, taxAmt: number, freight: number): Decimal {
  return new Decimal(subTotal).plus(taxAmt).plus(freight);
}

/** Whether an amount fits the money columns. */
export const fitsMoney = (amount: Decimal): boolean => amount.lte(MAX_MONEY);
