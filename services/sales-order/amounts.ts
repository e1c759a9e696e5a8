import { Decimal } from 'restlayer';

/**
 * A line's total: orderQty × unitPrice × (1 − unitPriceDiscount), in decimal arithmetic, rounded half away from zero
 * to 4 fractional digits (contract part 9). Never computed in binary floating point.
 */
export function lineTotalOf(orderQty: number, unitPrice: number, unitPriceDiscount: number): Decimal {
  return new Decimal(orderQty).times(unitPrice).times(new Decimal(1).minus(unitPriceDiscount)).round(4, Decimal.roundHalfUp);
}
