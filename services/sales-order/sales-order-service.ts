import type { Output } from 'restlayer';
import type {
  SalesOrderDetail_CreateInput_Data, SalesOrderDetail_PatchInput_Data, SalesOrderDetail_ReadOutput,
  SalesOrderDetail_UpdateInput_Data, SalesOrderDetail_WriteOutput,
  SalesOrder_CreateInput_Data, SalesOrder_CreateOutput, SalesOrder_HistoryInput, SalesOrder_HistoryOutput, SalesOrder_ReadListInput_Criteria, SalesOrder_ReadListOutput,
  SalesOrder_PatchInput_Data, SalesOrder_ReadOutput, SalesOrder_UpdateInput_Data, SalesOrder_UpdateOutput,
} from './sales-order-models.js';

/** Sales orders: the sample business service. It knows nothing of HTTP; problems go to the current ErrorList. */
export interface ISalesOrderService {
  read(salesOrderId: number): Promise<Output<SalesOrder_ReadOutput>>;
  readList(criteria: SalesOrder_ReadListInput_Criteria): Promise<Output<SalesOrder_ReadListOutput[]>>;
  /** Creates the order with all of its lines, or nothing when any line is refused. */
  create(data: SalesOrder_CreateInput_Data): Promise<Output<SalesOrder_CreateOutput>>;
  update(salesOrderId: number, data: SalesOrder_UpdateInput_Data): Promise<Output<SalesOrder_UpdateOutput>>;
  /** Changes only the fields `data` names (JSON merge patch); answers what update answers. */
  patch(salesOrderId: number, data: SalesOrder_PatchInput_Data): Promise<Output<SalesOrder_UpdateOutput>>;
  /** Removes the order with its lines. */
  delete(salesOrderId: number): Promise<Output>;
  /**
   * The order's change history, newest first (its line writes included): who changed which fields from what to what.
   * A deleted order's history stays readable by callers holding sales-order.delete.
   */
  history(salesOrderId: number, page?: SalesOrder_HistoryInput): Promise<Output<SalesOrder_HistoryOutput[]>>;
  /** Housekeeping for administrators' jobs; deliberately not exposed via REST. Answers how many were removed. */
  purgeCancelled(orderedBefore: Date): Promise<Output<number>>;

  // The order's lines. Every line write changes the order's totals, revision and modified date in one transaction,
  // and takes the order's revisionNumber (a stale one is a 409 and nothing is written).
  readLines(salesOrderId: number): Promise<Output<SalesOrderDetail_ReadOutput[]>>;
  readLine(salesOrderId: number, salesOrderDetailId: number): Promise<Output<SalesOrderDetail_ReadOutput>>;
  createLine(salesOrderId: number, data: SalesOrderDetail_CreateInput_Data): Promise<Output<SalesOrderDetail_WriteOutput>>;
  updateLine(salesOrderId: number, salesOrderDetailId: number, data: SalesOrderDetail_UpdateInput_Data): Promise<Output<SalesOrderDetail_WriteOutput>>;
  patchLine(salesOrderId: number, salesOrderDetailId: number, data: SalesOrderDetail_PatchInput_Data): Promise<Output<SalesOrderDetail_WriteOutput>>;
  deleteLine(salesOrderId: number, salesOrderDetailId: number, revisionNumber?: number): Promise<Output<SalesOrderDetail_WriteOutput>>;
}
