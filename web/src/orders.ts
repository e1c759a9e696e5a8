import type { SalesOrder_ReadListInput_Criteria, SalesOrder_ReadListOutput } from '../../services/sales-order/sales-order-models.js';
import { type Lookups, errorsOf, guarded, loadLookups, salesOrders } from './api.js';
import { announce, focusElement, h, options } from './dom.js';
import { can } from './permissions.js';
import { DELETED_ONLY, type DeletedCriterion, deletedFilter, restoreButton } from './restore.js';
import { dayEnd, dayStart, showDay, showMoney } from './format.js';
import { type ListQuery, type SortKey, listHash, orderHash, parseHash } from './routes.js';
import { type ListColumn, filterFold, showListPage } from './list-page.js';
import { type View, field, messageBox } from './view.js';
import { exportButton } from './export-csv.js';

export const PAGE_SIZE = 25;

/** An order number typed in the search box: `SO43659`, `so4365` or digits only. */
const orderNumberLike = /^(so)?\d+$/i;

/** The list criteria of a query (contract part 3, `deleted` part 13; the client turns them into the query string). */
export function criteriaOf(query: ListQuery): SalesOrder_ReadListInput_Criteria & DeletedCriterion {
  const criteria: SalesOrder_ReadListInput_Criteria & DeletedCriterion = {
    skip: (query.page - 1) * PAGE_SIZE,
    take: PAGE_SIZE,
    getTotalCount: true,
    sort: [{ fieldName: query.sort, sortDirection: query.dir === 'asc' ? 'Ascending' : 'Descending' }],
  };
  if (query.status) criteria.status = { operator: 'EQ', values: [query.status] };
  if (query.territory) criteria.territoryId = { operator: 'EQ', values: [query.territory] };
  if (query.person) criteria.salesPersonId = { operator: 'EQ', values: [query.person] };
  if (query.q) {
    if (orderNumberLike.test(query.q)) criteria.salesOrderNumber = { operator: 'CN', values: [query.q] };
    else criteria.customerName = { operator: 'CN', values: [query.q] };
  }
  const from = query.from ? dayStart(query.from) : undefined;
  const to = query.to ? dayEnd(query.to) : undefined;
  if (from && to) criteria.orderDate = { operator: 'BW', values: [from, to] };
  else if (from) criteria.orderDate = { operator: 'GE', values: [from] };
  else if (to) criteria.orderDate = { operator: 'LE', values: [to] };
  if (query.deleted) criteria.deleted = DELETED_ONLY;
  return criteria;
}

type Column = ListColumn<SalesOrder_ReadListOutput, SortKey>;

const columns: Column[] = [
  { key: 'salesOrderNumber', label: 'Order number', sort: 'salesOrderNumber', cell: (o) => h('a', { href: orderHash(o.salesOrderId) }, o.salesOrderNumber) },
  { key: 'orderDate', label: 'Order date', sort: 'orderDate', cell: (o) => showDay(o.orderDate) },
  { key: 'customerName', label: 'Customer', sort: 'customerName', cell: (o) => o.customerName },
  { key: 'status', label: 'Status', cell: (o, l) => l.status.text(o.status) },
  { key: 'territoryId', label: 'Territory', cell: (o, l) => l.territory.text(o.territoryId) },
  { key: 'salesPersonId', label: 'Sales person', cell: (o, l) => l.person.text(o.salesPersonId) },
  { key: 'totalDue', label: 'Total due', sort: 'totalDue', numeric: true, cell: (o) => showMoney(o.totalDue) },
];

/** A deleted order in words, for its Restore button and what the restore says. */
const deletedText = (o: SalesOrder_ReadListOutput) => `Order ${o.salesOrderNumber} of ${o.customerName}`;

const directionText = (dir: 'asc' | 'desc') => (dir === 'asc' ? 'ascending' : 'descending');

/** The sales order list: filters, a sortable table and paging, all kept in the URL hash. */
export function ordersView(initialHash: string): View {
  let query = (parseHash(initialHash) as { query: ListQuery }).query;
  let loads = 0;
  let lookups: Lookups | undefined;

  const status = field('filter-status', 'Status', h('select', { name: 'status' }));
  const territory = field('filter-territory', 'Territory', h('select', { name: 'territory' }));
  const person = field('filter-person', 'Sales person', h('select', { name: 'person' }));
  for (const f of [status, territory, person]) {
    options(f.control, [], 'Loading…');
    f.control.disabled = true;
  }
  const search = field('filter-q', 'Order number or customer', h('input', { type: 'search', name: 'q', autocomplete: 'off', spellcheck: 'false' }),
    'Part of an order number (SO43659) or of a customer’s name');
  const from = field('filter-from', 'Order date from', h('input', { type: 'date', name: 'from' }));
  const to = field('filter-to', 'Order date to', h('input', { type: 'date', name: 'to' }));
  // Only holders of sales-order.delete may list deleted orders and restore them (contract part 13).
  const deleted = can('sales-order.delete') ? deletedFilter('orders') : undefined;

  const apply = h('button', { type: 'submit', class: 'primary' }, 'Apply filters');
  const clear = h('button', { type: 'button', class: 'secondary' }, 'Clear filters');
  const form = h('form', { class: 'filters card', novalidate: true, role: 'search', 'aria-label': 'Filter orders' },
    h('div', { class: 'filter-grid' }, status.wrap, territory.wrap, person.wrap, search.wrap, from.wrap, to.wrap, deleted?.wrap),
    h('div', { class: 'actions' }, apply, clear));

  const problems = h('div', { class: 'list-messages' });
  // What the last restore did: kept while the list loads again without the restored order.
  const restoreOutcome = h('div', { class: 'list-messages', id: 'restore-outcome' });
  const summary = h('p', { class: 'summary', id: 'list-summary', role: 'status' });
  const caption = h('caption', { class: 'visually-hidden' });
  const headRow = h('tr');
  const body = h('tbody');
  const table = h('table', { class: 'data-table orders', 'aria-describedby': 'list-summary' }, caption, h('thead', {}, headRow), body);
  const prev = h('button', { type: 'button', class: 'secondary', id: 'page-prev' }, 'Previous page');
  const next = h('button', { type: 'button', class: 'secondary', id: 'page-next' }, 'Next page');
  const pageText = h('span', { class: 'page-text', id: 'page-text' });
  const pager = h('nav', { class: 'pager', 'aria-label': 'Pages of orders' }, prev, pageText, next);
  const exportStatus = h('span', { class: 'export-status', role: 'status' });
  const exportTools = h('div', { class: 'list-tools' }, exportButton('sales-order', () => criteriaOf(query), exportStatus), exportStatus);
  const results = h('section', { class: 'results', id: 'results', 'aria-labelledby': 'results-heading', 'aria-busy': 'true' },
    h('h2', { id: 'results-heading', class: 'visually-hidden' }, 'Orders'), summary, exportTools, h('div', { class: 'table-wrap' }, table), pager);

  const heading = h('h1', { id: 'orders-heading', tabindex: '-1' }, 'Sales orders');
  const el = h('section', { class: 'screen orders-screen', 'aria-labelledby': 'orders-heading' }, heading, filterFold(form), problems, restoreOutcome, results);

  // The deleted view: a deleted order cannot be opened (it reads as not found), so its number is text; a Restore button.
  const deletedColumns: Column[] = [
    { ...columns[0], cell: (o) => o.salesOrderNumber },
    ...columns.slice(1),
    {
      key: 'actions', label: 'Restore',
      cell: (o) => restoreButton({ text: deletedText(o), href: orderHash(o.salesOrderId) }, () => salesOrders.restore!(o.salesOrderId),
        { outcome: restoreOutcome, reload: () => load() }),
    },
  ];
  const shown = () => (query.deleted ? deletedColumns : columns);

  const go = (next: ListQuery) => {
    location.hash = listHash(next);
  };
  const readForm = (): ListQuery => ({
    status: Number(status.control.value) || undefined,
    territory: Number(territory.control.value) || undefined,
    person: Number(person.control.value) || undefined,
    q: search.control.value.trim() || undefined,
    from: from.control.value || undefined,
    to: to.control.value || undefined,
    deleted: deleted?.control.checked || undefined,
    page: 1,
    sort: query.sort,
    dir: query.dir,
  });

  const fillForm = () => {
    status.control.value = query.status ? String(query.status) : '';
    territory.control.value = query.territory ? String(query.territory) : '';
    person.control.value = query.person ? String(query.person) : '';
    search.control.value = query.q ?? '';
    from.control.value = query.from ?? '';
    to.control.value = query.to ?? '';
    if (deleted) deleted.control.checked = !!query.deleted;
  };

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const wanted = readForm();
    const badRange = wanted.from && wanted.to && wanted.from > wanted.to;
    to.setError(badRange ? 'The end of the range must be on or after its start.' : undefined);
    if (badRange) return focusElement(to.control);
    go(wanted);
  });
  clear.addEventListener('click', () => {
    to.setError(undefined);
    go({ page: 1, sort: query.sort, dir: query.dir });
  });
  prev.addEventListener('click', () => go({ ...query, page: Math.max(1, query.page - 1) }));
  next.addEventListener('click', () => go({ ...query, page: query.page + 1 }));

  const renderHead = () => {
    // Re-rendering replaces the sort buttons: the one that had focus gives it to its successor.
    const focused = document.activeElement instanceof HTMLElement && headRow.contains(document.activeElement) ? document.activeElement.dataset.sort : undefined;
    headRow.replaceChildren(...shown().map((c) => {
      const th = h('th', { scope: 'col', class: [c.numeric ? 'numeric' : '', c.sort ? 'sortable' : ''].join(' ').trim() || undefined }, c.label);
      if (!c.sort) return th;
      const active = query.sort === c.sort;
      const nextDir = active && query.dir === 'asc' ? 'desc' : 'asc';
      if (active) th.setAttribute('aria-sort', query.dir === 'asc' ? 'ascending' : 'descending');
      const button = h('button', {
        type: 'button', class: 'sort', 'data-sort': c.sort,
        'aria-label': `${c.label}: sort ${directionText(nextDir)}${active ? ` (sorted ${directionText(query.dir)})` : ''}`,
      }, c.label, h('span', { class: 'sort-mark', 'aria-hidden': 'true' }, active ? (query.dir === 'asc' ? ' ▲' : ' ▼') : ' ↕'));
      button.addEventListener('click', () => go({ ...query, sort: c.sort!, dir: nextDir, page: 1 }));
      th.replaceChildren(button);
      return th;
    }));
    const sortLabel = columns.find((c) => c.sort === query.sort)?.label ?? query.sort;
    heading.textContent = query.deleted ? 'Deleted sales orders' : 'Sales orders';
    caption.textContent = `${heading.textContent}, sorted by ${sortLabel.toLowerCase()}, ${directionText(query.dir)}`;
    if (focused) headRow.querySelector<HTMLElement>(`button[data-sort="${focused}"]`)?.focus();
  };

  const fillLookups = (l: Lookups) => {
    // Old orders may name inactive entries (a former sales person): they can be filtered by too.
    const items = (lookup: Lookups['status']) => lookup.items.map((i) => ({ value: String(i.id), text: i.isActive ? i.text : `${i.text} (inactive)` }));
    options(status.control, items(l.status), 'Any status');
    options(territory.control, items(l.territory), 'Any territory');
    options(person.control, items(l.person), 'Anyone');
    for (const f of [status, territory, person]) f.control.disabled = false;
    fillForm();
  };

  async function load(focusResults = false) {
    const mine = ++loads;
    const hash = listHash(query);
    results.setAttribute('aria-busy', 'true');
    results.removeAttribute('data-loaded');
    renderHead();
    const [l, output] = await Promise.all([loadLookups(), guarded(salesOrders.readList(criteriaOf(query)))]);
    if (mine !== loads || l === undefined || output === undefined) return;
    if (Array.isArray(l)) {
      problems.replaceChildren(messageBox(l, 'The filter lists could not be loaded.'));
      results.setAttribute('aria-busy', 'false');
      return;
    }
    if (!lookups) {
      lookups = l;
      fillLookups(l);
    }
    const errors = errorsOf(output);
    if (errors.length || !output.result) {
      problems.replaceChildren(messageBox(errors, 'The orders could not be listed.'));
      body.replaceChildren();
      announce(summary, '');
      results.setAttribute('aria-busy', 'false');
      results.dataset.loaded = hash;
      return;
    }
    problems.replaceChildren();
    const rows = output.result;
    showListPage({ body, summary, pageText, prev, next }, {
      rows, total: output.totalCount ?? rows.length, page: query.page, pageSize: PAGE_SIZE, columns: shown(), lookups: l,
      noun: query.deleted ? 'deleted order' : 'order',
      rowAttrs: (o) => ({ 'data-order-id': o.salesOrderId }),
    });
    results.setAttribute('aria-busy', 'false');
    results.dataset.loaded = hash;
    // A pager button that just became disabled would drop focus to the page: keep it on the table's summary.
    if (focusResults || (document.activeElement instanceof HTMLButtonElement && document.activeElement.disabled)) focusElement(summary);
  }

  fillForm();
  void load();

  return {
    el,
    title: 'Sales orders',
    focus: () => focusElement(heading),
    update(hash: string) {
      const route = parseHash(hash);
      if (route.name !== 'orders') return false;
      query = route.query;
      restoreOutcome.replaceChildren();
      if (lookups) fillForm();
      void load();
      return true;
    },
    dispose() {
      loads++;
    },
  };
}
