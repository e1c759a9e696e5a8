import type { DbBool, DbDate, Generated } from 'restlayer';

/** The sales-order module's tables, as both providers store them (see lib/storage/tables.ts for the value types). */
export interface SalesTerritoryTable {
  territory_id: number;
  name: string;
  country_region_code: string;
  territory_group: string;
}

export interface SalesPersonTable {
  sales_person_id: number;
  name: string;
  territory_id: number | null;
  is_active: DbBool;
}

export interface SalesOrderStatusTable {
  status_id: number;
  name: string;
  is_active: DbBool;
}

export interface CustomerTable {
  customer_id: number;
  name: string;
  /** Optional since the customer module's 0001-customer. */
  account_number: string | null;
  territory_id: number | null;
}

export interface SalesOrderTable {
  sales_order_id: Generated<number>;
  sales_order_number: string;
  status: number;
  order_date: DbDate;
  due_date: DbDate;
  ship_date: DbDate | null;
  customer_id: number;
  territory_id: number | null;
  sales_person_id: number | null;
  total_due: number;
  online_order_flag: DbBool;
  purchase_order_number: string | null;
  account_number: string | null;
  comment: string | null;
  revision_number: number;
  modified_date: DbDate;
}

export type SalesTables = {
  sales_territory: SalesTerritoryTable;
  sales_person: SalesPersonTable;
  sales_order_status: SalesOrderStatusTable;
  customer: CustomerTable;
  sales_order: SalesOrderTable;
};
