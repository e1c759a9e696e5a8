import type { ListInput, ListItem } from 'restlayer/client';
import type { customer } from '../../services/customer/customer.js';

type Customer_ReadListInput_Criteria = ListInput<typeof customer>;
type Customer_ReadListOutput = ListItem<typeof customer>;
import { type Lookups, customers, errorsOf, guarded, loadLookups } from './api.js';
import { DELETED_ONLY, type DeletedCriterion, deletedFilter, restoreButton } from './restore.js';
import { announce, focusElement, h, options } from './dom.js';
import { can } from './permissions.js';
import { type CustomerListQuery, type CustomerSortKey, NEW_CUSTOMER_HASH, customerHash, customerListHash, parseHash } from './routes.js';
import { type ListColumn, filterFold, showListPage } from './list-page.js';
import { type View, field, messageBox } from './view.js';
import { exportButton } from './export-csv.js';

export const CUSTOMER_PAGE_SIZE = 25;

/** The list criteria of a query (contract part 9: name and accountNumber are text, territoryId a list; part 13: deleted). */
export function customerCriteriaOf(query: CustomerListQuery): Customer_ReadListInput_Criteria & DeletedCriterion {
  const criteria: Customer_ReadListInput_Criteria & DeletedCriterion = {
    skip: (query.page - 1) * CUSTOMER_PAGE_SIZE,
    take: CUSTOMER_PAGE_SIZE,
    getTotalCount: true,
    sort: [{ fieldName: query.sort, sortDirection: query.dir === 'asc' ? 'Ascending' : 'Descending' }],
  };
  if (query.name) criteria.name = { operator: 'CN', values: [query.name] };
  if (query.account) criteria.accountNumber = { operator: 'CN', values: [query.account] };
  if (query.territory) criteria.territoryId = { operator: 'EQ', values: [query.territory] };
  if (query.deleted) criteria.deleted = DELETED_ONLY;
  return criteria;
}

type Column = ListColumn<Customer_ReadListOutput, CustomerSortKey>;

// Every field's column sorts (contract part 9). Territory sorts by its id, which is also the order of the territory list.
const columns: Column[] = [
  { key: 'name', label: 'Name', sort: 'name', cell: (c) => h('a', { href: customerHash(c.customerId) }, c.name) },
  { key: 'customerId', label: 'Customer number', sort: 'customerId', numeric: true, cell: (c) => String(c.customerId) },
  { key: 'accountNumber', label: 'Account number', sort: 'accountNumber', cell: (c) => c.accountNumber ?? '—' },
  { key: 'territoryId', label: 'Territory', sort: 'territoryId', cell: (c, l) => l.territory.text(c.territoryId) },
];

/** A deleted customer in words, for its Restore button and what the restore says. */
const deletedText = (c: Customer_ReadListOutput) => `${c.name} (customer number ${c.customerId})`;

const directionText = (dir: 'asc' | 'desc') => (dir === 'asc' ? 'ascending' : 'descending');

/** The customer list: filters, a sortable table and paging, all kept in the URL hash (like the order list). */
export function customersView(initialHash: string): View {
  let query = (parseHash(initialHash) as { query: CustomerListQuery }).query;
  let loads = 0;
  let lookups: Lookups | undefined;

  const name = field('filter-name', 'Name', h('input', { type: 'search', name: 'name', autocomplete: 'off', spellcheck: 'false' }),
    'Part of the customer’s name, any case');
  const account = field('filter-account', 'Account number', h('input', { type: 'search', name: 'account', autocomplete: 'off', spellcheck: 'false' }),
    'Part of the account number (10-4030)');
  const territory = field('filter-territory', 'Territory', h('select', { name: 'territory' }));
  options(territory.control, [], 'Loading…');
  territory.control.disabled = true;
  // Only holders of customer.delete may list deleted customers and restore them (contract part 13).
  const deleted = can('customer.delete') ? deletedFilter('customers') : undefined;

  const apply = h('button', { type: 'submit', class: 'primary' }, 'Apply filters');
  const clear = h('button', { type: 'button', class: 'secondary' }, 'Clear filters');
  const form = h('form', { class: 'filters card', novalidate: true, role: 'search', 'aria-label': 'Filter customers' },
    h('div', { class: 'filter-grid' }, name.wrap, account.wrap, territory.wrap, deleted?.wrap),
    h('div', { class: 'actions' }, apply, clear));

  const problems = h('div', { class: 'list-messages' });
  // What the last restore did: kept while the list loads again without the restored customer.
  const restoreOutcome = h('div', { class: 'list-messages', id: 'restore-outcome' });
  const summary = h('p', { class: 'summary', id: 'list-summary', role: 'status' });
  const caption = h('caption', { class: 'visually-hidden' });
  const headRow = h('tr');
  const body = h('tbody');
  const table = h('table', { class: 'data-table customers', 'aria-describedby': 'list-summary' }, caption, h('thead', {}, headRow), body);
  const prev = h('button', { type: 'button', class: 'secondary', id: 'page-prev' }, 'Previous page');
  const next = h('button', { type: 'button', class: 'secondary', id: 'page-next' }, 'Next page');
  const pageText = h('span', { class: 'page-text', id: 'page-text' });
  const pager = h('nav', { class: 'pager', 'aria-label': 'Pages of customers' }, prev, pageText, next);
  const exportStatus = h('span', { class: 'export-status', role: 'status' });
  const exportTools = h('div', { class: 'list-tools' }, exportButton('customer', () => customerCriteriaOf(query), exportStatus), exportStatus);
  const results = h('section', { class: 'results', id: 'results', 'aria-labelledby': 'results-heading', 'aria-busy': 'true' },
    h('h2', { id: 'results-heading', class: 'visually-hidden' }, 'Customers'), summary, exportTools, h('div', { class: 'table-wrap' }, table), pager);

  const heading = h('h1', { id: 'customers-heading', tabindex: '-1' }, 'Customers');
  const add = h('a', { href: NEW_CUSTOMER_HASH, class: 'button-link secondary', id: 'new-customer' }, 'New customer');
  const el = h('section', { class: 'screen customers-screen', 'aria-labelledby': 'customers-heading' },
    h('div', { class: 'screen-head' }, heading, can('customer.create') ? add : null), filterFold(form), problems, restoreOutcome, results);

  // The deleted view: a deleted customer cannot be opened (it reads as not found), so its name is text; a Restore button.
  const deletedColumns: Column[] = [
    { ...columns[0], cell: (c) => c.name },
    ...columns.slice(1),
    {
      key: 'actions', label: 'Restore',
      cell: (c) => restoreButton({ text: deletedText(c), href: customerHash(c.customerId) }, () => customers.restore!(c.customerId),
        { outcome: restoreOutcome, reload: load }),
    },
  ];
  const shown = () => (query.deleted ? deletedColumns : columns);

  const go = (wanted: CustomerListQuery) => {
    location.hash = customerListHash(wanted);
  };
  const readForm = (): CustomerListQuery => ({
    name: name.control.value.trim() || undefined,
    account: account.control.value.trim() || undefined,
    territory: Number(territory.control.value) || undefined,
    deleted: deleted?.control.checked || undefined,
    page: 1,
    sort: query.sort,
    dir: query.dir,
  });
  const fillForm = () => {
    name.control.value = query.name ?? '';
    account.control.value = query.account ?? '';
    if (deleted) deleted.control.checked = !!query.deleted;
    if (lookups) territory.control.value = query.territory ? String(query.territory) : '';
  };

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    go(readForm());
  });
  clear.addEventListener('click', () => go({ page: 1, sort: query.sort, dir: query.dir }));
  prev.addEventListener('click', () => go({ ...query, page: Math.max(1, query.page - 1) }));
  next.addEventListener('click', () => go({ ...query, page: query.page + 1 }));

  const renderHead = () => {
    // Re-rendering replaces the sort buttons: the one that had focus gives it to its successor.
    const focused = document.activeElement instanceof HTMLElement && headRow.contains(document.activeElement) ? document.activeElement.dataset.sort : undefined;
    headRow.replaceChildren(...shown().map((c) => {
      if (!c.sort) return h('th', { scope: 'col' }, c.label);
      const sort = c.sort;
      const th = h('th', { scope: 'col', class: `sortable${c.numeric ? ' numeric' : ''}` });
      const active = query.sort === c.sort;
      const nextDir = active && query.dir === 'asc' ? 'desc' : 'asc';
      if (active) th.setAttribute('aria-sort', directionText(query.dir));
      const button = h('button', {
        type: 'button', class: 'sort', 'data-sort': c.sort,
        'aria-label': `${c.label}: sort ${directionText(nextDir)}${active ? ` (sorted ${directionText(query.dir)})` : ''}`,
      }, c.label, h('span', { class: 'sort-mark', 'aria-hidden': 'true' }, active ? (query.dir === 'asc' ? ' ▲' : ' ▼') : ' ↕'));
      button.addEventListener('click', () => go({ ...query, sort, dir: nextDir, page: 1 }));
      th.append(button);
      return th;
    }));
    const sortLabel = columns.find((c) => c.sort === query.sort)?.label ?? query.sort;
    heading.textContent = query.deleted ? 'Deleted customers' : 'Customers';
    caption.textContent = `${heading.textContent}, sorted by ${sortLabel.toLowerCase()}, ${directionText(query.dir)}`;
    if (focused) headRow.querySelector<HTMLElement>(`button[data-sort="${focused}"]`)?.focus();
  };

  const fillLookups = (l: Lookups) => {
    // Customers may still name a territory that is no longer active: it can be filtered by too.
    options(territory.control, l.territory.items.map((i) => ({ value: String(i.id), text: i.isActive ? i.text : `${i.text} (inactive)` })), 'Any territory');
    territory.control.disabled = false;
    fillForm();
  };

  async function load() {
    const mine = ++loads;
    const hash = customerListHash(query);
    results.setAttribute('aria-busy', 'true');
    results.removeAttribute('data-loaded');
    renderHead();
    const [l, output] = await Promise.all([loadLookups(), guarded(customers.readList(customerCriteriaOf(query)))]);
    if (mine !== loads || l === undefined || output === undefined) return;
    if (Array.isArray(l)) {
      problems.replaceChildren(messageBox(l, 'The territory list could not be loaded.'));
      results.setAttribute('aria-busy', 'false');
      return;
    }
    if (!lookups) {
      lookups = l;
      fillLookups(l);
    }
    const errors = errorsOf(output);
    if (errors.length || !output.result) {
      problems.replaceChildren(messageBox(errors, 'The customers could not be listed.'));
      body.replaceChildren();
      announce(summary, '');
      results.setAttribute('aria-busy', 'false');
      results.dataset.loaded = hash;
      return;
    }
    problems.replaceChildren();
    const rows = output.result;
    showListPage({ body, summary, pageText, prev, next }, {
      rows, total: output.totalCount ?? rows.length, page: query.page, pageSize: CUSTOMER_PAGE_SIZE, columns: shown(), lookups: l,
      noun: query.deleted ? 'deleted customer' : 'customer',
      rowAttrs: (c) => ({ 'data-customer-id': c.customerId }),
    });
    results.setAttribute('aria-busy', 'false');
    results.dataset.loaded = hash;
    // A pager button that just became disabled would drop focus to the page: keep it on the table's summary.
    if (document.activeElement instanceof HTMLButtonElement && document.activeElement.disabled) focusElement(summary);
  }

  fillForm();
  void load();

  return {
    el,
    title: 'Customers',
    focus: () => focusElement(heading),
    update(hash: string) {
      const route = parseHash(hash);
      if (route.name !== 'customers') return false;
      query = route.query;
      restoreOutcome.replaceChildren();
      fillForm();
      void load();
      return true;
    },
    dispose() {
      loads++;
    },
  };
}
