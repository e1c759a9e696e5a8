import type { Output } from 'restlayer';
import type { AppServices } from '../index.js';

/**
 * How a write of an order, or of one of its lines, reads the order as GET /sales-order/{id} answers it: the ETag
 * If-Match is compared with (contract part 14). The only glue conditional requests need in this hand-written service.
 */
export const orderRead = ({ params, services }: { params: { _salesOrderId: number }; services: AppServices }): Promise<Output<unknown>> =>
  services.salesOrder.read(params._salesOrderId);
