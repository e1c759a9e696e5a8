import type { Output } from 'restlayer';
import type {
  SalesOrder_CreateInput_Data, SalesOrder_CreateOutput, SalesOrder_ReadListInput_Criteria, SalesOrder_ReadListOutput,
  SalesOrder_PatchInput_Data, SalesOrder_ReadOutput, SalesOrder_UpdateInput_Data, SalesOrder_UpdateOutput,
} from './sales-order-models.js';

/** Sales orders: the sample business service. It knows nothing of HTTP; problems go to the current ErrorList. */
export interface ISalesOrderService {
  read(salesOrderId: number): Promise<Output<SalesOrder_ReadOutput>>;
  readList(criteria: SalesOrder_ReadListInput_Criteria): Promise<Output<SalesOrder_ReadListOutput[]>>;
  create(data: SalesOrder_CreateInput_Data): Promise<Output<SalesOrder_CreateOutput>>;
  update(salesOrderId: number, data: SalesOrder_UpdateInput_Data): Promise<Output<SalesOrder_UpdateOutput>>;
  /** Changes only the fields `data` names (JSON merge patch); answers what update answers. */
  patch(salesOrderId: number, data: SalesOrder_PatchInput_Data): Promise<Output<SalesOrder_UpdateOutput>>;
  delete(salesOrderId: number): Promise<Output>;
  /** Housekeeping for administrators' jobs; deliberately not exposed via REST. Answers how many were removed. */
  purgeCancelled(orderedBefore: Date): Promise<Output<number>>;
}
