import { field, resource } from 'restlayer';
import { customerScopes } from './customer-scopes.js';

/**
 * Customers (contract part 9): served at /customer with list criteria name, accountNumber and territoryId, sortable
 * by each, with history and the SalesPerson's scope. An account number, when given, is unique ignoring case.
 * Deleting a customer that sales orders refer to is a 409 Entity_InUse (their table's foreign key decides).
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
});
