import {
  AuditEntryModel, type AuditEntry, type HistoryPage, type Criteria, INT32, type Infer, type PatchOf, array, boolean, date, defineCriteria, criterion, integer, maybe,
  model, money, optional, modelQuery, patchModel, type QuerySchema, text,
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
  totalDue: money(),
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

/** Amounts of an order or line that are never negative (contract part 9). */
const amount = () => money({ min: 0 });
/** A line's discount: a fraction 0 ≤ d < 1 with at most 4 fractional digits. */
const discount = () => money({ min: 0, max: 0.9999 });

/** One line of an order (`SalesOrderDetail_ReadOutput`): lineTotal = orderQty × unitPrice × (1 − unitPriceDiscount). */
export const SalesOrderDetailRead = model({
  salesOrderDetailId: id(),
  productId: id(),
  productName: text(),
  orderQty: integer({ min: 1, max: 32767 }),
  unitPrice: amount(),
  unitPriceDiscount: discount(),
  lineTotal: amount(),
});
export type SalesOrderDetail_ReadOutput = Infer<typeof SalesOrderDetailRead>;

const lineFields = {
  productId: id(),
  orderQty: integer({ min: 1, max: 32767 }),
  /** Absent (or null): the product's listPrice. */
  unitPrice: maybe(amount()),
  /** Absent (or null): 0. */
  unitPriceDiscount: maybe(discount()),
};

/** A line of `lines` in the body of POST /sales-order. */
export const SalesOrderLineData = model(lineFields);
export type SalesOrder_LineInput = Infer<typeof SalesOrderLineData>;

/** The body of POST and PUT of a line; `revisionNumber` is the order's, checked as the order's own updates check it. */
export const SalesOrderDetailUpdateData = model({ ...lineFields, revisionNumber: maybe(id()) });
export type SalesOrderDetail_UpdateInput_Data = Infer<typeof SalesOrderDetailUpdateData>;
export const SalesOrderDetailCreateData = SalesOrderDetailUpdateData;
export type SalesOrderDetail_CreateInput_Data = SalesOrderDetail_UpdateInput_Data;

/** The body of PATCH of a line (`application/merge-patch+json`). */
export const SalesOrderDetailPatchData = patchModel(SalesOrderDetailUpdateData);
export type SalesOrderDetail_PatchInput_Data = PatchOf<SalesOrderDetail_UpdateInput_Data>;

/** What every line write answers: the line's id and total (absent after a delete) and the order's new totals and revision. */
export const SalesOrderDetailWriteResult = model({
  salesOrderDetailId: optional(id()),
  lineTotal: optional(amount()),
  subTotal: amount(),
  totalDue: amount(),
  revisionNumber: id(),
});
export type SalesOrderDetail_WriteOutput = Infer<typeof SalesOrderDetailWriteResult>;

export const SalesOrderDetailKey = model({ _salesOrderId: id(), _salesOrderDetailId: id() });

/** One sales order (`SalesOrder_ReadOutput`) with its lines; subTotal = Σ lineTotal, totalDue = subTotal + taxAmt + freight. */
export const SalesOrderRead = model({
  ...listFields,
  purchaseOrderNumber: optional(text({ max: 25 })),
  accountNumber: optional(text({ max: 15 })),
  comment: optional(text({ max: 128 })),
  subTotal: amount(),
  taxAmt: amount(),
  freight: amount(),
  lines: array(SalesOrderDetailRead),
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
    salesOrderNumber: criterion.text(),
    status: criterion.list(),
    orderDate: criterion.dateRange(),
    dueDate: criterion.dateRange(),
    totalDue: criterion.moneyRange(),
    customerName: criterion.text(),
    territoryId: criterion.list(),
    salesPersonId: criterion.list(),
    onlineOrderFlag: criterion.flag(),
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
  /** Absent (or null): 0. */
  taxAmt: maybe(amount()),
  freight: maybe(amount()),
  revisionNumber: maybe(id()),
};

/** The body of PUT (`SalesOrder_UpdateInput_Data`). Absent optional fields are cleared: PUT replaces. */
export const SalesOrderUpdateData = model(updateFields);
export type SalesOrder_UpdateInput_Data = Infer<typeof SalesOrderUpdateData>;

/** The body of PATCH (`application/merge-patch+json`): only the fields named change; null clears an optional one. */
export const SalesOrderPatchData = patchModel(SalesOrderUpdateData);
export type SalesOrder_PatchInput_Data = PatchOf<SalesOrder_UpdateInput_Data>;

/** The body of POST: the update fields plus the customer, and the lines, stored with the order or not at all. */
export const SalesOrderCreateData = model({ ...updateFields, customerId: id(), lines: optional(array(SalesOrderLineData)) });
export type SalesOrder_CreateInput_Data = Infer<typeof SalesOrderCreateData>;

export const SalesOrderKey = model({ _salesOrderId: id() });

/** The query of DELETE of a line: the order's `revisionNumber`, optional. */
export const SalesOrderDetailDeleteQuery: QuerySchema<{ revisionNumber?: number }> = modelQuery(model({ revisionNumber: optional(id()) }));

/** One entry of an order's history (`GET …/history`), newest first: the layer's audit entry (docs/audit.md). */
export const SalesOrderHistoryEntry = AuditEntryModel;
export type SalesOrder_HistoryOutput = AuditEntry;
/** The page of a history: `skip`, `take`. */
export type SalesOrder_HistoryInput = HistoryPage;
