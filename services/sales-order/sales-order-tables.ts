import type { DbBool, DbDate, DbMoney, Generated } from 'restlayer';

export type { DbMoney };

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
  /** Σ of the lines' line_total; total_due = sub_total + tax_amt + freight (0007-order-lines on). */
  sub_total: DbMoney;
  tax_amt: DbMoney;
  freight: DbMoney;
  total_due: DbMoney;
  online_order_flag: DbBool;
  purchase_order_number: string | null;
  account_number: string | null;
  comment: string | null;
  revision_number: number;
  modified_date: DbDate;
}

/** Lookup table `product` (0007-order-lines). */
export interface ProductTable {
  product_id: number;
  name: string;
  product_number: string;
  list_price: DbMoney;
  is_active: DbBool;
}

/** An order's line (AdventureWorks SalesOrderDetail); line_total = order_qty × unit_price × (1 − unit_price_discount). */
export interface SalesOrderDetailTable {
  sales_order_detail_id: Generated<number>;
  sales_order_id: number;
  product_id: number;
  order_qty: number;
  unit_price: DbMoney;
  unit_price_discount: DbMoney;
  line_total: DbMoney;
}

export type SalesTables = {
  product: ProductTable;
  sales_order_detail: SalesOrderDetailTable;
  sales_territory: SalesTerritoryTable;
  sales_person: SalesPersonTable;
  sales_order_status: SalesOrderStatusTable;
  customer: CustomerTable;
  sales_order: SalesOrderTable;
};
