import type { Infer } from 'superstruct';
import { type Criteria, defineCriteria, field } from '../../lib/validation/criteria.js';
import { type PatchOf, patchModel } from '../../lib/validation/merge-patch.js';
import { INT32, boolean, date, integer, maybe, model, text } from '../../lib/validation/fields.js';

/**
 * An item of the sales order list (`SalesOrder_ReadListOutput`). Optional properties are absent, never null, when the
 * order has no such value: the wire carries no nulls, so server and client see the same object.
 */
export interface SalesOrder_ReadListOutput {
  salesOrderId: number;
  salesOrderNumber: string;
  status: number;
  orderDate: Date;
  dueDate: Date;
  shipDate?: Date;
  customerId: number;
  customerName: string;
  territoryId?: number;
  salesPersonId?: number;
  totalDue: number;
  onlineOrderFlag: boolean;
}

/** One sales order (`SalesOrder_ReadOutput`). */
export interface SalesOrder_ReadOutput extends SalesOrder_ReadListOutput {
  purchaseOrderNumber?: string;
  accountNumber?: string;
  comment?: string;
  revisionNumber: number;
  modifiedDate: Date;
}

export interface SalesOrder_UpdateOutput {
  revisionNumber: number;
  modifiedDate: Date;
}

export interface SalesOrder_CreateOutput extends SalesOrder_UpdateOutput {
  salesOrderId: number;
  salesOrderNumber: string;
}

/** The query-string criteria of the list (`SalesOrder_ReadListInput_Criteria`). */
export const salesOrderCriteria = defineCriteria(
  {
    salesOrderNumber: field.text(),
    status: field.list(),
    orderDate: field.dateRange(),
    dueDate: field.dateRange(),
    totalDue: field.numberRange(),
    customerName: field.text(),
    territoryId: field.list(),
    salesPersonId: field.list(),
    onlineOrderFlag: field.flag(),
  },
  ['salesOrderId', 'salesOrderNumber', 'status', 'orderDate', 'dueDate', 'shipDate', 'customerName', 'territoryId', 'salesPersonId', 'totalDue', 'onlineOrderFlag'] as const,
);

type CriteriaFields = typeof salesOrderCriteria.fields;
export type SalesOrderSortField = (typeof salesOrderCriteria.sortable)[number];
export type SalesOrder_ReadListInput_Criteria = Criteria<CriteriaFields, SalesOrderSortField>;

/** Ids and revisions are SQL `integer` columns: a larger number is refused here, not by the store (PostgreSQL). */
const id = () => integer({ min: 1, max: INT32.max });

const updateFields = {
  status: integer(INT32),
  onlineOrderFlag: boolean(),
  purchaseOrderNumber: maybe(text({ max: 25 })),
  accountNumber: maybe(text({ max: 15 })),
  shipDate: maybe(date()),
  dueDate: maybe(date()),
  comment: maybe(text({ max: 128 })),
  revisionNumber: maybe(id()),
};

/** The body of PUT (`SalesOrder_UpdateInput_Data`). Absent optional fields are cleared: PUT replaces. */
export const SalesOrderUpdateData = model(updateFields);
export type SalesOrder_UpdateInput_Data = Infer<typeof SalesOrderUpdateData>;

/** The body of PATCH (`application/merge-patch+json`): only the fields named change; null clears an optional one. */
export const SalesOrderPatchData = patchModel(SalesOrderUpdateData);
export type SalesOrder_PatchInput_Data = PatchOf<SalesOrder_UpdateInput_Data>;

/** The body of POST: the update fields plus the customer. */
export const SalesOrderCreateData = model({ ...updateFields, customerId: id() });
export type SalesOrder_CreateInput_Data = Infer<typeof SalesOrderCreateData>;

export const SalesOrderKey = model({ _salesOrderId: id() });
