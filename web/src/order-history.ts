import type { SalesOrder_HistoryOutput } from '../../services/sales-order/sales-order-models.js';
import { type Lookups, errorsOf, guarded, salesOrders } from './api.js';
import { announce, focusElement, h } from './dom.js';
import { percentText, showDay, showMoney } from './format.js';
import { messageBox } from './view.js';

type HistoryEntry = SalesOrder_HistoryOutput;
/** One change of one field, as the API answers it: `old` absent where the field had no value, `new` where it has none. */
type FieldChange = HistoryEntry['changes'][number];

/** Entries per press of *Show more*. One more is asked for, to know whether there is a next page. */
const PAGE = 10;

const OPERATIONS: Record<string, string> = {
  create: 'Created', update: 'Saved', patch: 'Changed', delete: 'Deleted',
  'line-create': 'Line added', 'line-update': 'Line replaced', 'line-patch': 'Line changed', 'line-delete': 'Line removed',
};

/** The wire names of the order's and its lines' fields, in the words of the order screen. */
const LABELS: Record<string, string> = {
  salesOrderNumber: 'Order number', status: 'Status', onlineOrderFlag: 'Online order', purchaseOrderNumber: 'Purchase order number', accountNumber: 'Account number',
  orderDate: 'Order date', dueDate: 'Due date', shipDate: 'Ship date', comment: 'Comment', customerId: 'Customer', territoryId: 'Territory',
  salesPersonId: 'Sales person', subTotal: 'Subtotal', taxAmt: 'Tax amount', freight: 'Freight', totalDue: 'Total due',
  revisionNumber: 'Revision', productId: 'Product', productName: 'Product', orderQty: 'Quantity', unitPrice: 'Unit price',
  unitPriceDiscount: 'Discount (%)', lineTotal: 'Line total', salesOrderDetailId: 'Line',
};
const MONEY = new Set(['subTotal', 'taxAmt', 'freight', 'totalDue', 'unitPrice', 'lineTotal']);
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:\d{2})$/;

const stamp = new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium', timeStyle: 'medium', timeZone: 'UTC' });

/** A line's field on the wire: `lines[<salesOrderDetailId>].orderQty`. */
const LINE_FIELD = /^lines\[(\d+)\]\.(\w+)$/;

/** A field's name as the screen says it: `Comment`; a line's field with the line it belongs to, `Quantity (line 7)`. */
function fieldLabel(name: string): string {
  const line = LINE_FIELD.exec(name);
  if (line) return `${LABELS[line[2]] ?? line[2]} (line ${line[1]})`;
  return LABELS[name] ?? name;
}

/** A value as the order screen shows it: lookups by their text, money in dollars, dates as days or moments. */
function valueText(name: string, value: unknown, l: Lookups): string {
  if (value === null || value === undefined || value === '') return '(none)';
  const key = LINE_FIELD.exec(name)?.[2] ?? name;
  if (typeof value === 'boolean') return value ? 'Yes' : 'No';
  if (key === 'status') return l.status.text(value as number);
  if (key === 'territoryId') return l.territory.text(value as number);
  if (key === 'salesPersonId') return l.person.text(value as number);
  if (key === 'productId') return l.product.text(value as number);
  if (MONEY.has(key) && (typeof value === 'number' || typeof value === 'string') && !Number.isNaN(Number(value))) return showMoney(Number(value));
  if (key === 'unitPriceDiscount' && typeof value === 'number') return `${percentText(value) || '0'} %`;
  if (typeof value === 'string' && ISO_INSTANT.test(value)) {
    const date = new Date(value);
    return date.getTime() % 86_400_000 === 0 ? showDay(date) : `${stamp.format(date)} UTC`;
  }
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/**
 * One change as a list item: "Status: In process → Approved" (the arrow read as "changed to"). What was created
 * (the order, or a line by line-create) shows its values only, what was deleted its old values only; any other
 * change shows both sides, `(none)` where the field had or has no value.
 */
function changeItem(change: FieldChange, operation: string, l: Lookups): HTMLLIElement {
  const label = h('span', { class: 'history-field' }, `${fieldLabel(change.field)}: `);
  const ofLine = LINE_FIELD.test(change.field);
  const created = operation === 'create' || (ofLine && operation === 'line-create');
  const deleted = operation === 'delete' || (ofLine && operation === 'line-delete');
  const old = h('span', { class: 'history-old' }, valueText(change.field, change.old, l));
  const now = h('span', { class: 'history-new' }, valueText(change.field, change.new, l));
  if (created) return h('li', {}, label, now);
  if (deleted) return h('li', {}, label, old);
  return h('li', {}, label, old, h('span', { 'aria-hidden': 'true' }, ' → '), h('span', { class: 'visually-hidden' }, ' changed to '), now);
}

export interface HistoryPanel {
  readonly el: HTMLElement;
  /** A write on the screen succeeded: when the history is showing, its first page is read again. */
  refresh(): void;
}

/**
 * The order's history on the order screen: who changed it, when, how, and each field's old and new value, newest
 * first. Read when asked for (*Show the history*), a page at a time (*Show more*), from GET …/history.
 */
export function historyPanel(orderId: number, lookups: Lookups): HistoryPanel {
  let shown = 0;
  let reads = 0;
  const status = h('p', { class: 'save-status note', id: 'history-status', role: 'status' });
  const problems = h('div', { id: 'history-messages' });
  const tbody = h('tbody');
  const table = h('table', { class: 'data-table history-table', id: 'history', hidden: true, 'aria-labelledby': 'history-heading' },
    h('caption', { class: 'visually-hidden' }, 'Changes to the order, newest first'),
    h('thead', {}, h('tr', {},
      h('th', { scope: 'col' }, 'When'),
      h('th', { scope: 'col' }, 'Who'),
      h('th', { scope: 'col' }, 'What'),
      h('th', { scope: 'col' }, 'Changes'))),
    tbody);
  const showButton = h('button', { type: 'button', class: 'secondary', id: 'history-show' }, 'Show the history');
  const moreButton = h('button', { type: 'button', class: 'secondary', id: 'history-more', hidden: true }, 'Show more');
  const el = h('section', { class: 'history card', id: 'order-history', 'aria-labelledby': 'history-heading' },
    h('h2', { id: 'history-heading' }, 'History'),
    h('p', { class: 'hint' }, 'Who changed this order and how, newest first.'),
    problems,
    h('div', { class: 'history-wrap' }, table),
    status,
    h('div', { class: 'actions' }, showButton, moreButton));

  const row = (entry: HistoryEntry) => {
    const at = new Date(entry.at);
    return h('tr', { 'data-operation': entry.operation },
      h('td', { 'data-label': 'When' }, h('time', { datetime: at.toISOString() }, `${stamp.format(at)} UTC`)),
      h('td', { 'data-label': 'Who' }, entry.user),
      h('td', { 'data-label': 'What' }, OPERATIONS[entry.operation] ?? entry.operation),
      h('td', { 'data-label': 'Changes' }, entry.changes.length
        ? h('ul', { class: 'history-changes' }, entry.changes.map((c) => changeItem(c, entry.operation, lookups)))
        : 'No field changed'));
  };

  /** Reads a page: from the start (`again`), or the next one after what is shown. */
  async function read(again: boolean): Promise<void> {
    const mine = ++reads;
    const skip = again ? 0 : shown;
    el.setAttribute('aria-busy', 'true');
    const output = await guarded(salesOrders.history(orderId, { skip, take: PAGE + 1 }));
    if (mine !== reads || !output) return;
    el.removeAttribute('aria-busy');
    const errors = errorsOf(output);
    if (errors.length || !output.result) {
      problems.replaceChildren(messageBox(errors, 'The history could not be read.'));
      focusElement(problems.firstElementChild as HTMLElement);
      return;
    }
    problems.replaceChildren();
    const page = output.result.slice(0, PAGE);
    const more = output.result.length > PAGE;
    if (again) tbody.replaceChildren();
    const firstNew = page.length ? row(page[0]) : undefined;
    if (firstNew) tbody.append(firstNew, ...page.slice(1).map(row));
    shown = skip + page.length;
    table.hidden = shown === 0;
    showButton.hidden = true;
    moreButton.hidden = !more;
    announce(status, shown === 0 ? 'No changes are recorded for this order.'
      : more ? `Showing the latest ${shown} changes.` : `Showing all ${shown} ${shown === 1 ? 'change' : 'changes'}.`);
    // After *Show more* the focus goes to the first new entry's time, so the keyboard continues where the list grew.
    if (!again && skip > 0 && firstNew) focusElement(firstNew.querySelector<HTMLElement>('td'));
    else if (!again && skip > 0) focusElement(status);
  }

  showButton.addEventListener('click', () => void read(true).then(() => focusElement(table.hidden ? status : table)));
  moreButton.addEventListener('click', () => void read(false));

  return {
    el,
    refresh() {
      if (showButton.hidden) void read(true);
    },
  };
}
