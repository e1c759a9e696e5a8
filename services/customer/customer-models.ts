// Made by `restlayer new service customer --field name:text:required:max=100:sortable:filterable --field accountNumber:text:max=15:sortable:filterable --field territoryId:lookup=sales-territory:sortable:filterable`; the code is yours to edit: nothing regenerates it.
import {
  AuditEntryModel, type AuditEntry, type HistoryPage, type Criteria, INT32, type Infer, type PatchOf, date, defineCriteria, field, integer, maybe, model, optional,
  patchModel, text,
} from 'restlayer';

/** Ids and revisions are SQL `integer` columns: a larger number is refused here, not by the store (PostgreSQL). */
const id = () => integer({ min: 1, max: INT32.max });

const listFields = {
  customerId: id(),
  name: text({ min: 1, max: 100 }),
  accountNumber: optional(text({ max: 15 })),
  territoryId: optional(integer(INT32)),
};
const revision = { revisionNumber: id(), modifiedDate: date() };

/**
 * An item of the customer list (`Customer_ReadListOutput`). Optional properties are absent, never null, when the
 * record has no such value: the wire carries no nulls, so server and client see the same object. The structs of the
 * results describe the answers in the OpenAPI document; the types are inferred from them so the two cannot part.
 */
export const CustomerListItem = model(listFields);
export type Customer_ReadListOutput = Infer<typeof CustomerListItem>;

/** One customer (`Customer_ReadOutput`). */
export const CustomerRead = model({ ...listFields, ...revision });
export type Customer_ReadOutput = Infer<typeof CustomerRead>;

export const CustomerUpdateResult = model(revision);
export type Customer_UpdateOutput = Infer<typeof CustomerUpdateResult>;

export const CustomerCreateResult = model({ customerId: id(), ...revision });
export type Customer_CreateOutput = Infer<typeof CustomerCreateResult>;

/** The query-string criteria of the list (`Customer_ReadListInput_Criteria`): filters, then the fields it sorts by. */
export const customerCriteria = defineCriteria(
  {
    name: field.text(),
    accountNumber: field.text(),
    territoryId: field.list(),
  },
  ['customerId', 'name', 'accountNumber', 'territoryId'] as const,
);

type CriteriaFields = typeof customerCriteria.fields;
export type CustomerFilterField = keyof CriteriaFields;
export type CustomerSortField = (typeof customerCriteria.sortable)[number];
export type Customer_ReadListInput_Criteria = Criteria<CriteriaFields, CustomerSortField>;

/** The fields of create and update. An optional field takes null or no value for "none". */
const fields = {
  name: text({ min: 1, max: 100 }),
  accountNumber: maybe(text({ max: 15 })),
  /** A `sales-territory` id: the service accepts only an active entry of that lookup table. */
  territoryId: maybe(integer(INT32)),
};

/** The body of PUT (`Customer_UpdateInput_Data`). Absent optional fields are cleared: PUT replaces. */
export const CustomerUpdateData = model({ ...fields, revisionNumber: maybe(id()) });
export type Customer_UpdateInput_Data = Infer<typeof CustomerUpdateData>;

/** The body of PATCH (`application/merge-patch+json`): only the fields named change; null clears an optional one. */
export const CustomerPatchData = patchModel(CustomerUpdateData);
export type Customer_PatchInput_Data = PatchOf<Customer_UpdateInput_Data>;

/** The body of POST (`Customer_CreateInput_Data`). */
export const CustomerCreateData = model(fields);
export type Customer_CreateInput_Data = Infer<typeof CustomerCreateData>;

/** The route parameter naming one customer. */
export const CustomerKey = model({ _customerId: id() });

/** One entry of a customer's history (`GET …/history`), newest first: the layer's audit entry (docs/audit.md). */
export const CustomerHistoryEntry = AuditEntryModel;
export type Customer_HistoryOutput = AuditEntry;
/** The page of a history: `skip`, `take`. */
export type Customer_HistoryInput = HistoryPage;
