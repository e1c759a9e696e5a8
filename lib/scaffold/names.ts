import { upperFirst } from '../resources/names.js';

/** The names one service goes by, all derived from its kebab-case name (`purchase-order`). */
export interface ServiceNames {
  /** `purchase-order`: the module name, the route folder and the file names. */
  kebab: string;
  /** `PurchaseOrder`: types and classes (`IPurchaseOrderService`, `PurchaseOrderProxy`). */
  pascal: string;
  /** `purchaseOrder`: the service key routes reach (`call.services.purchaseOrder`) and values. */
  camel: string;
  /** `purchase_order`: the table. */
  table: string;
  /** `Purchase order`: messages for people. */
  human: string;
  /** `purchaseOrderId`: the id on the wire. */
  id: string;
  /** `purchase_order_id`: the id column. */
  idColumn: string;
  /** `_purchaseOrderId`: the route parameter. */
  idParam: string;
}

// One spelling of names for the scaffold and the resources it declares (`unitPrice` → `unit_price`, `UnitPrice`).
export { snakeCase, upperFirst } from '../resources/names.js';

export function serviceNames(kebab: string): ServiceNames {
  const words = kebab.split('-');
  const pascal = words.map(upperFirst).join('');
  const camel = pascal.charAt(0).toLowerCase() + pascal.slice(1);
  const id = `${camel}Id`;
  const table = words.join('_');
  return {
    kebab,
    pascal,
    camel,
    table,
    human: upperFirst(words.join(' ')),
    id,
    idColumn: `${table}_id`,
    idParam: `_${id}`,
  };
}
