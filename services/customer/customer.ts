import { field, resource } from 'restlayer';
import { customerScopes } from './customer-scopes.js';

/**
 * Customers (contract part 9): served at /customer with list criteria name, accountNumber and territoryId, sortable
 * by each, with history and the SalesPerson's scope. An account number, when given, is unique ignoring case.
 * Deleting a customer that sales orders not deleted refer to is a 409 Entity_InUse; a delete marks it deleted.
 */
export const customer = resource({
  name: 'customer',
  fields: {
    name: field.text({ max: 100 }).required().sortable().filter().contains(),
    accountNumber: field.text({ max: 15 }).sortable().filter().unique({ ignoreCase: true }),
    territoryId: field.lookup('sales-territory').sortable().filter(),
  },
  // Sales orders refer to customers (their customerId): a customer they refer to is not deleted (409 Entity_InUse).
  scopes: customerScopes,
  // A delete marks the customer deleted (contract part 13): restorable, its account number free meanwhile.
  softDelete: true,
  // With Tenancy:Enabled, a customer belongs to its creator's tenant (contract part 12); account numbers are unique within one.
  tenant: true,
});
