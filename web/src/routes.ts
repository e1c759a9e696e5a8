/**
 * Where the user is, kept in the URL hash so that a reload, a bookmark or a new login after the session expired
 * comes back to the same place: `#/orders?status=5&territory=2&page=3&sort=totalDue&dir=asc`, `#/orders/43659`,
 * `#/customers?name=bike&territory=4&page=2&sort=accountNumber&dir=desc`, `#/customers?deleted=true`, `#/customers/29825`, `#/customers/new`.
 */

export const SORTABLE = ['salesOrderNumber', 'orderDate', 'customerName', 'totalDue'] as const;
export type SortKey = (typeof SORTABLE)[number];
export type SortDir = 'asc' | 'desc';

export interface ListQuery {
  status?: number;
  territory?: number;
  person?: number;
  /** An order number (or part of one) or part of a customer's name. */
  q?: string;
  /** Order date range, `yyyy-mm-dd`, both ends included. */
  from?: string;
  to?: string;
  /** The deleted orders instead of the others (offered to holders of `sales-order.delete` only). */
  deleted?: boolean;
  page: number;
  sort: SortKey;
  dir: SortDir;
}

export const CUSTOMER_SORTABLE = ['customerId', 'name', 'accountNumber', 'territoryId'] as const;
export type CustomerSortKey = (typeof CUSTOMER_SORTABLE)[number];

export interface CustomerListQuery {
  /** Part of the name (any case). */
  name?: string;
  /** Part of the account number. */
  account?: string;
  territory?: number;
  /** The deleted customers instead of the others (offered to holders of `customer.delete` only). */
  deleted?: boolean;
  page: number;
  sort: CustomerSortKey;
  dir: SortDir;
}

export type Route =
  | { name: 'orders'; query: ListQuery }
  | { name: 'order'; id: number }
  | { name: 'customers'; query: CustomerListQuery }
  | { name: 'customer'; id: number }
  | { name: 'customer-new' }
  | { name: 'missing'; hash: string };

export const DEFAULT_SORT: { sort: SortKey; dir: SortDir } = { sort: 'orderDate', dir: 'desc' };
export const CUSTOMER_DEFAULT_SORT: { sort: CustomerSortKey; dir: SortDir } = { sort: 'name', dir: 'asc' };

const positive = (value: string | null) => (value && /^\d{1,9}$/.test(value) && Number(value) > 0 ? Number(value) : undefined);
const day = (value: string | null) => (value && /^\d{4}-\d{2}-\d{2}$/.test(value) ? value : undefined);
/** `deleted=true` in the hash; anything else (or none) is the usual list, so the canonical hash leaves it out. */
const flag = (value: string | null) => (value === 'true' ? true : undefined);

export function parseHash(hash: string): Route {
  const [path, search = ''] = hash.replace(/^#/, '').split('?', 2);
  const clean = path.replace(/\/+$/, '');
  if (clean === '' || clean === '/orders') {
    const p = new URLSearchParams(search);
    const sort = SORTABLE.find((s) => s === p.get('sort')) ?? DEFAULT_SORT.sort;
    const dir: SortDir = p.get('dir') === 'asc' ? 'asc' : p.get('dir') === 'desc' ? 'desc' : (p.get('sort') ? 'asc' : DEFAULT_SORT.dir);
    const q = p.get('q')?.trim();
    return {
      name: 'orders',
      query: {
        status: positive(p.get('status')),
        territory: positive(p.get('territory')),
        person: positive(p.get('person')),
        q: q || undefined,
        from: day(p.get('from')),
        to: day(p.get('to')),
        deleted: flag(p.get('deleted')),
        page: positive(p.get('page')) ?? 1,
        sort,
        dir,
      },
    };
  }
  const order = /^\/orders\/(\d{1,9})$/.exec(clean);
  if (order && Number(order[1]) > 0) return { name: 'order', id: Number(order[1]) };
  if (clean === '/customers') return { name: 'customers', query: parseCustomerQuery(new URLSearchParams(search)) };
  if (clean === '/customers/new') return { name: 'customer-new' };
  const customer = /^\/customers\/(\d{1,9})$/.exec(clean);
  if (customer && Number(customer[1]) > 0) return { name: 'customer', id: Number(customer[1]) };
  return { name: 'missing', hash };
}

function parseCustomerQuery(p: URLSearchParams): CustomerListQuery {
  const sort = CUSTOMER_SORTABLE.find((s) => s === p.get('sort')) ?? CUSTOMER_DEFAULT_SORT.sort;
  // A sort named without a direction runs ascending, as a first press on a column header does.
  const dir: SortDir = p.get('dir') === 'desc' ? 'desc' : p.get('dir') === 'asc' || p.get('sort') ? 'asc' : CUSTOMER_DEFAULT_SORT.dir;
  return {
    name: p.get('name')?.trim() || undefined,
    account: p.get('account')?.trim() || undefined,
    territory: positive(p.get('territory')),
    deleted: flag(p.get('deleted')),
    page: positive(p.get('page')) ?? 1,
    sort,
    dir,
  };
}

/** The canonical hash of a list query: only what differs from the defaults. */
export function listHash(query: ListQuery): string {
  const p = new URLSearchParams();
  if (query.status) p.set('status', String(query.status));
  if (query.territory) p.set('territory', String(query.territory));
  if (query.person) p.set('person', String(query.person));
  if (query.q) p.set('q', query.q);
  if (query.from) p.set('from', query.from);
  if (query.to) p.set('to', query.to);
  if (query.deleted) p.set('deleted', 'true');
  if (query.page > 1) p.set('page', String(query.page));
  if (query.sort !== DEFAULT_SORT.sort || query.dir !== DEFAULT_SORT.dir) {
    p.set('sort', query.sort);
    p.set('dir', query.dir);
  }
  const search = p.toString();
  return `#/orders${search ? `?${search}` : ''}`;
}

export const orderHash = (id: number) => `#/orders/${id}`;

/** The canonical hash of a customer list query: only what differs from the defaults. */
export function customerListHash(query: CustomerListQuery): string {
  const p = new URLSearchParams();
  if (query.name) p.set('name', query.name);
  if (query.account) p.set('account', query.account);
  if (query.territory) p.set('territory', String(query.territory));
  if (query.deleted) p.set('deleted', 'true');
  if (query.page > 1) p.set('page', String(query.page));
  if (query.sort !== CUSTOMER_DEFAULT_SORT.sort || query.dir !== CUSTOMER_DEFAULT_SORT.dir) {
    p.set('sort', query.sort);
    p.set('dir', query.dir);
  }
  const search = p.toString();
  return `#/customers${search ? `?${search}` : ''}`;
}

export const customerHash = (id: number) => `#/customers/${id}`;
export const NEW_CUSTOMER_HASH = '#/customers/new';

/** The canonical form of a route's hash (undefined for an unknown one, which stays as typed). */
export function canonicalHash(route: Route): string | undefined {
  switch (route.name) {
    case 'orders': return listHash(route.query);
    case 'order': return orderHash(route.id);
    case 'customers': return customerListHash(route.query);
    case 'customer': return customerHash(route.id);
    case 'customer-new': return NEW_CUSTOMER_HASH;
    default: return undefined;
  }
}
