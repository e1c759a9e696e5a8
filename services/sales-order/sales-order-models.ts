import {
  type Criteria, INT32, type Infer, type PatchOf, boolean, date, decimal, defineCriteria, field, integer, maybe,
  model, optional, patchModel, text,
} from 'restlayer';

/** Ids and revisions are SQL `integer` columns: a larger number is refused here, not by the store (PostgreSQL). */
const id = () => integer({ min: 1, max: INT32.max });

const listFields = {
  salesOrderId: id(),
  salesOrderNumber: text({ max: 25 }),
  status: integer(INT32),
  orderDate: date(),
  dueDate: date(),
  shipDate: optional(date()),
  customerId: id(),
  customerName: text(),
  territoryId: optional(integer(INT32)),
  salesPersonId: optional(integer(INT32)),
  totalDue: decimal(),
  onlineOrderFlag: boolean(),
};
const revision = { revisionNumber: id(), modifiedDate: date() };

/**
 * An item of the sales order list (`SalesOrder_ReadListOutput`). Optional properties are absent, never null, when the
 * order has no such value: the wire carries no nulls, so server and client see the same object. The structs of the
 * results describe the answers in the OpenAPI document; the types are inferred from them so the two cannot part.
 */
export const SalesOrderListItem = model(listFields);
export type SalesOrder_ReadListOutput = Infer<typeof SalesOrderListItem>;

/** One sales order (`SalesOrder_ReadOutput`). */
export const SalesOrderRead = model({
  ...listFields,
  purchaseOrderNumber: optional(text({ max: 25 })),
  accountNumber: optional(text({ max: 15 })),
  comment: optional(text({ max: 128 })),
  ...revision,
});
export type SalesOrder_ReadOutput = Infer<typeof SalesOrderRead>;

export const SalesOrderUpdateResult = model(revision);
export type SalesOrder_UpdateOutput = Infer<typeof SalesOrderUpdateResult>;

export const SalesOrderCreateResult = model({ salesOrderId: id(), salesOrderNumber: text({ max: 25 }), ...revision });
export type SalesOrder_CreateOutput = Infer<typeof SalesOrderCreateResult>;

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
