import type { Generated } from 'kysely';

/**
 * Column types as both providers store them. Dates and booleans are text and 0/1 in SQLite and native in
 * PostgreSQL; `SqlValues` converts in both directions so services only see `Date` and `boolean`.
 */
type DbDate = string | Date;
type DbBool = number | boolean;

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
  account_number: string;
  territory_id: number;
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

export interface Tables {
  sales_territory: SalesTerritoryTable;
  sales_person: SalesPersonTable;
  sales_order_status: SalesOrderStatusTable;
  customer: CustomerTable;
  sales_order: SalesOrderTable;
}
