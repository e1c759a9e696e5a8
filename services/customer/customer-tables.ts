// Made by `restlayer new service customer --field name:text:required:max=100:sortable:filterable --field accountNumber:text:max=15:sortable:filterable --field territoryId:lookup=sales-territory:sortable:filterable`; the code is yours to edit: nothing regenerates it.
import type { DbDate, Generated } from 'restlayer';

/** The customer module's table, as both providers store it (see lib/storage/tables.ts for the value types). */
export interface CustomerTable {
  customer_id: Generated<number>;
  name: string;
  account_number: string | null;
  territory_id: number | null;
  revision_number: number;
  modified_date: DbDate;
}

export type CustomerTables = {
  customer: CustomerTable;
};
