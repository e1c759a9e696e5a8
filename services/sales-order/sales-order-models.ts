import type {
  AuditEntry, ChildRead, ChildWriteOf, CreateOf, CreateOutputOf, CriteriaOf, ListItemOf, PatchInputOf, ReadOf, UpdateOf, UpdateOutput,
} from 'restlayer';
import { salesOrder } from './sales-order.js';

/**
 * The wire types of sales orders by the contract's names, for clients and the web app: each follows from the
 * declaration (services/sales-order/sales-order.ts), so none is written twice.
 */
type Order = NonNullable<(typeof salesOrder)['shape']>;

export type SalesOrder_ReadOutput = ReadOf<Order>;
export type SalesOrder_ReadListOutput = ListItemOf<Order>;
export type SalesOrder_ReadListInput_Criteria = CriteriaOf<Order>;
export type SalesOrder_CreateInput_Data = CreateOf<Order>;
export type SalesOrder_CreateOutput = CreateOutputOf<Order>;
export type SalesOrder_UpdateInput_Data = UpdateOf<Order>;
export type SalesOrder_PatchInput_Data = PatchInputOf<Order>;
export type SalesOrder_UpdateOutput = UpdateOutput;
export type SalesOrder_HistoryOutput = AuditEntry;
export type SalesOrderDetail_ReadOutput = ChildRead<Order, 'lines'>;
export type SalesOrderDetail_WriteOutput = ChildWriteOf<Order, 'lines'>;

/** The list's criteria as the route parses them (a query string), and the create's answer: the declaration's structs. */
export const salesOrderCriteria = salesOrder.models.criteria;
export const SalesOrderCreateResult = salesOrder.models.createResult;
