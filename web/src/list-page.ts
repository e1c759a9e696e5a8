import type { Lookups } from './api.js';
import { announce, h } from './dom.js';
import { showCount } from './format.js';

/**
 * A column of a list table: the wire field it shows (or `actions`, the row's buttons), its header, its sort key and
 * how a row shows it. The key is the `data-field` of its cells.
 */
export interface ListColumn<Row, Sort extends string> {
  key: (keyof Row & string) | 'actions';
  label: string;
  sort?: Sort;
  cell(row: Row, lookups: Lookups): Node | string;
  numeric?: boolean;
}

/** The parts of a list screen that show one page: table body, summary line and pager. */
export interface ListPageParts {
  body: HTMLElement;
  summary: HTMLElement;
  pageText: HTMLElement;
  prev: HTMLButtonElement;
  next: HTMLButtonElement;
}

export interface ListPage<Row, Sort extends string> {
  rows: Row[];
  total: number;
  page: number;
  pageSize: number;
  columns: ListColumn<Row, Sort>[];
  lookups: Lookups;
  /** What the list holds, singular and lower case: `order`, `customer`. */
  noun: string;
  /** The attributes that name a row's record, e.g. `{ 'data-order-id': 43659 }`. */
  rowAttrs(row: Row): Record<string, string | number>;
}

/** Shows one page of a list (the order and customer lists alike): its rows or an empty row, the summary and the pager. */
export function showListPage<Row, Sort extends string>(parts: ListPageParts, list: ListPage<Row, Sort>): void {
  const { rows, total, page, pageSize, columns, lookups, noun } = list;
  const plural = `${noun}s`;
  const pages = Math.max(1, Math.ceil(total / pageSize));
  parts.body.replaceChildren(...(rows.length
    ? rows.map((row) => h('tr', list.rowAttrs(row),
      columns.map((c) => h('td', { 'data-label': c.label, 'data-field': c.key, class: c.numeric ? 'numeric' : undefined }, c.cell(row, lookups)))))
    : [h('tr', { class: 'empty' }, h('td', { colspan: columns.length }, `No ${plural} match these filters.`))]));
  const first = total ? (page - 1) * pageSize + 1 : 0;
  announce(parts.summary, rows.length
    ? `${plural[0].toUpperCase()}${plural.slice(1)} ${showCount(first)}–${showCount(first + rows.length - 1)} of ${showCount(total)}`
    : total ? `No ${plural} on page ${page}; there are ${showCount(total)} in ${showCount(pages)} pages.` : `No ${plural} match these filters.`);
  parts.pageText.textContent = `Page ${showCount(page)} of ${showCount(pages)}`;
  parts.prev.disabled = page <= 1;
  parts.next.disabled = page >= pages;
}

/** Phones: below the width where the filters sit side by side (styles.css), they fold away. */
const WIDE = '(min-width: 48rem)';

/**
 * The filter form in a disclosure ("Filters"): open on wide screens, folded on a phone so that the list is what the
 * screen shows first; it follows the width when that changes (a phone turned sideways).
 */
export function filterFold(form: HTMLElement): HTMLDetailsElement {
  const wide = matchMedia(WIDE);
  const fold = h('details', { class: 'filter-fold' }, h('summary', {}, 'Filters'), form);
  fold.open = wide.matches;
  // The screen is on the page before the width can change; once it has left, the listener goes too.
  const follow = () => {
    if (fold.isConnected) fold.open = wide.matches;
    else wide.removeEventListener('change', follow);
  };
  wide.addEventListener('change', follow);
  return fold;
}
