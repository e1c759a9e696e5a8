/**
 * Where the user is, kept in the URL hash so that a reload, a bookmark or a new login after the session expired
 * comes back to the same place: `#/orders?status=5&territory=2&page=3&sort=totalDue&dir=asc`, `#/orders/43659`.
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
  page: number;
  sort: SortKey;
  dir: SortDir;
}

export type Route =
  | { name: 'orders'; query: ListQuery }
  | { name: 'order'; id: number }
  | { name: 'missing'; hash: string };

export const DEFAULT_SORT: { sort: SortKey; dir: SortDir } = { sort: 'orderDate', dir: 'desc' };

const positive = (value: string | null) => (value && /^\d{1,9}$/.test(value) && Number(value) > 0 ? Number(value) : undefined);
const day = (value: string | null) => (value && /^\d{4}-\d{2}-\d{2}$/.test(value) ? value : undefined);

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
        page: positive(p.get('page')) ?? 1,
        sort,
        dir,
      },
    };
  }
  const order = /^\/orders\/(\d{1,9})$/.exec(clean);
  if (order && Number(order[1]) > 0) return { name: 'order', id: Number(order[1]) };
  return { name: 'missing', hash };
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
  if (query.page > 1) p.set('page', String(query.page));
  if (query.sort !== DEFAULT_SORT.sort || query.dir !== DEFAULT_SORT.dir) {
    p.set('sort', query.sort);
    p.set('dir', query.dir);
  }
  const search = p.toString();
  return `#/orders${search ? `?${search}` : ''}`;
}

export const orderHash = (id: number) => `#/orders/${id}`;

/** The canonical form of a route's hash (undefined for an unknown one, which stays as typed). */
export function canonicalHash(route: Route): string | undefined {
  if (route.name === 'orders') return listHash(route.query);
  if (route.name === 'order') return orderHash(route.id);
  return undefined;
}
