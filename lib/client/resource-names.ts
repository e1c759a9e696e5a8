/**
 * The naming rules of a resource (lib/resources), once at run time and once for the compiler, so that the names the
 * layer serves (`_salesOrderId`, `readLines`) are the names the editor completes. A declaration gives its kebab-case
 * name (`sales-order`); everything else follows unless it says otherwise. Here, in the browser-safe client, because
 * a resource's proxy derives its paths by the same rules as the server its routes.
 */

/** `sales-order` → `salesOrder`, for the compiler. */
export type Camel<S extends string> = S extends `${infer Head}-${infer Tail}` ? `${Head}${Camel<Capitalize<Tail>>}` : S;

/** `sales-order` → `salesOrder`. */
export const camelCase = (kebab: string): string => kebab.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase());

/** `markPaid` → `mark-paid`: the wire name of a camelCase name (an action's key is its method, this its path segment). */
export const kebabCase = (camel: string): string => camel.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

/** `sales-order` → `SalesOrder`: interface and message-code names. */
export const pascalCase = (kebab: string): string => upperFirst(camelCase(kebab));

/** `unitPrice` → `unit_price`; `sales-order` → `sales_order`: tables and columns. */
export const snakeCase = (name: string): string => name.replace(/-/g, '_').replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** `unitPrice` → `UnitPrice`. */
export const upperFirst = (name: string): string => name.charAt(0).toUpperCase() + name.slice(1);

/** `sales-order` → `Sales order`; `accountNumber` → `account number` (without the capital): texts for people. */
export const wordsOf = (name: string): string => snakeCase(name).split('_').join(' ');
export const humanName = (name: string): string => upperFirst(wordsOf(name));

/** The key of a resource named `N` unless it names its own: `customer` → `customerId`. */
export type DefaultKey<N extends string> = `${Camel<N>}Id`;
