import type { ErrorMessage, Output } from 'restlayer/client';
import type { SalesOrderDetail_ReadOutput, SalesOrderDetail_WriteOutput } from '../../services/sales-order/sales-order-models.js';
import { type Lookup, errorsOf, guarded, salesOrders } from './api.js';
import { announce, focusElement, h, options } from './dom.js';
import { moneyValue, percentFraction, percentText, showMoney } from './format.js';
import { type Field, field, messageBox, showFieldErrors } from './view.js';

/** What the lines editor needs of the order screen around it. */
export interface LinesHost {
  readonly orderId: number;
  /** May the user change lines (sales-order.update)? Else the table only shows them: no fields, buttons or add form. */
  readonly editable: boolean;
  /** The order's revision the screen shows: every line write carries it, so a write over a newer order is a 409. */
  revision(): number;
  /** A line write succeeded: the order's new totals and revision, as the server answered them. */
  written(result: SalesOrderDetail_WriteOutput): void;
  /** A line write met a newer revision of the order (409 Entity_Concurrency): the screen's conflict box. */
  conflict(): void;
}

export interface LinesEditor {
  readonly el: HTMLElement;
  /** Shows the order's lines (as read with the order) and offers the active products for new lines. */
  show(lines: SalesOrderDetail_ReadOutput[], products: Lookup): void;
}

type Line = SalesOrderDetail_ReadOutput;
type Control = HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement;

const QTY_ERROR = 'Enter a whole number of items from 1 to 32767.';
const DISCOUNT_ERROR = 'Enter a discount in percent, from 0 to 99.99 (at most 2 decimals).';
const PRICE_ERROR = 'Enter a price like 12.50 (at most 4 decimals), or leave it empty for the list price.';

/** A typed quantity, or undefined when it is not a whole number 1..32767. */
function quantity(text: string): number | undefined {
  const typed = text.trim();
  if (!/^\d{1,5}$/.test(typed)) return undefined;
  const n = Number(typed);
  return n >= 1 && n <= 32767 ? n : undefined;
}

const isConflict = (errors: ErrorMessage[]) => errors.some((m) => m.type === 'Concurrency' || m.code === 'Entity_Concurrency');

/**
 * The order's lines: a table where each line's quantity and discount can be changed (Enter or *Save line*; Escape
 * puts back what was saved) or the line removed, and a form that adds a line. Every write carries the order's
 * revision; the totals and revision the screen shows afterwards are the ones in the server's answer.
 */
export function linesEditor(host: LinesHost): LinesEditor {
  let products: Lookup | undefined;
  let writing = false;

  const status = h('p', { class: 'save-status', id: 'lines-status', role: 'status' });
  const problems = h('div', { id: 'lines-messages' });
  const tbody = h('tbody');
  const table = h('table', { class: 'data-table lines-table', id: 'lines', 'aria-labelledby': 'lines-heading' },
    h('thead', {}, h('tr', {},
      h('th', { scope: 'col' }, 'Product'),
      h('th', { scope: 'col' }, 'Quantity'),
      h('th', { scope: 'col', class: 'numeric' }, 'Unit price'),
      h('th', { scope: 'col' }, 'Discount (%)'),
      h('th', { scope: 'col', class: 'numeric' }, 'Line total'),
      host.editable ? h('th', { scope: 'col' }, h('span', { class: 'visually-hidden' }, 'Actions')) : null)),
    tbody);

  // The add form.
  const product = field('line-product', 'Product', h('select', { name: 'productId', required: true }), 'Products on sale now');
  const qty = field('line-qty', 'Quantity', h('input', { type: 'text', name: 'orderQty', inputmode: 'numeric', autocomplete: 'off', value: '1' }), '1 to 32767');
  const price = field('line-price', 'Unit price', h('input', { type: 'text', name: 'unitPrice', inputmode: 'decimal', autocomplete: 'off' }), 'Empty: the product\'s list price');
  const discount = field('line-discount', 'Discount (%)', h('input', { type: 'text', name: 'unitPriceDiscount', inputmode: 'decimal', autocomplete: 'off' }), '0 to 99.99; empty for none');
  const addFields: Record<string, Field<Control>> = { productid: product, orderqty: qty, unitprice: price, unitpricediscount: discount };
  const addButton = h('button', { type: 'submit', class: 'primary', id: 'line-add-button' }, 'Add line');
  const addForm = h('form', { class: 'line-add', id: 'line-add', novalidate: true, 'aria-labelledby': 'line-add-heading' },
    h('h3', { id: 'line-add-heading' }, 'Add a line'),
    h('div', { class: 'form-grid line-grid' }, product.wrap, qty.wrap, price.wrap, discount.wrap),
    h('div', { class: 'actions' }, addButton));

  const el = h('section', { class: 'lines card', id: 'order-lines', 'aria-labelledby': 'lines-heading' },
    h('h2', { id: 'lines-heading' }, 'Lines'),
    problems,
    h('div', { class: 'lines-wrap' }, table),
    status,
    host.editable ? addForm : null);

  const say = (text: string, kind: 'ok' | 'failed' | 'note' = 'ok') => {
    status.className = `save-status ${kind === 'ok' ? '' : kind}`.trim();
    announce(status, text);
  };

  const totals = (r: SalesOrderDetail_WriteOutput) => `Subtotal ${showMoney(r.subTotal)}, total due ${showMoney(r.totalDue)}.`;

  /** Runs one write at a time (a second press while one is on its way does nothing). */
  async function write<T>(run: () => Promise<T>): Promise<T | undefined> {
    if (writing) return undefined;
    writing = true;
    el.setAttribute('aria-busy', 'true');
    try {
      return await run();
    } finally {
      writing = false;
      el.removeAttribute('aria-busy');
    }
  }

  /**
   * What a write's answer means for the screen: undefined when it failed (the conflict box shown, or the messages put
   * next to `fields` and the rest above the table), else its result.
   */
  function outcome(output: Output<SalesOrderDetail_WriteOutput> | undefined, fields: Record<string, Field<Control>>, what: string): SalesOrderDetail_WriteOutput | undefined {
    if (!output) return undefined;
    const errors = errorsOf(output);
    if (isConflict(errors)) {
      say('');
      host.conflict();
      return undefined;
    }
    if (errors.length || !output.result) {
      const general = showFieldErrors(errors, fields);
      if (general.length) problems.replaceChildren(messageBox(general, `${what} failed.`));
      say(general.length ? `${what} failed.` : `${what} failed: correct the marked fields.`, 'failed');
      const invalid = Object.values(fields).find((f) => f.control.getAttribute('aria-invalid') === 'true');
      focusElement(invalid ? invalid.control : problems.firstElementChild as HTMLElement);
      return undefined;
    }
    host.written(output.result);
    return output.result;
  }

  const clearProblems = (fields: Record<string, Field<Control>>) => {
    for (const f of Object.values(fields)) f.setError(undefined);
    problems.replaceChildren();
  };

  function emptyRow(): HTMLTableRowElement {
    return h('tr', { class: 'empty' }, h('td', { colspan: host.editable ? 6 : 5 }, 'This order has no lines yet.'));
  }

  /** A line as a user who may not change it sees it: its values as text. */
  function readOnlyRow(line: Line): HTMLTableRowElement {
    return h('tr', { 'data-line-id': line.salesOrderDetailId },
      h('td', { 'data-label': 'Product', 'data-field': 'productName' }, line.productName),
      h('td', { 'data-label': 'Quantity', 'data-field': 'orderQty' }, String(line.orderQty)),
      h('td', { class: 'numeric', 'data-label': 'Unit price', 'data-field': 'unitPrice' }, showMoney(line.unitPrice)),
      h('td', { 'data-label': 'Discount (%)', 'data-field': 'unitPriceDiscount' }, percentText(line.unitPriceDiscount) || '0'),
      h('td', { class: 'numeric', 'data-label': 'Line total', 'data-field': 'lineTotal' }, showMoney(line.lineTotal)));
  }

  /** One line's row: its quantity and discount are fields; Enter saves them, Escape puts back the saved values. */
  function row(line: Line): HTMLTableRowElement {
    let saved = line;
    const id = line.salesOrderDetailId;
    const name = line.productName;
    const lineQty = field(`line-${id}-qty`, `Quantity of ${name}`, h('input', { type: 'text', name: 'orderQty', inputmode: 'numeric', autocomplete: 'off' }));
    const lineDiscount = field(`line-${id}-discount`, `Discount (%) of ${name}`, h('input', { type: 'text', name: 'unitPriceDiscount', inputmode: 'decimal', autocomplete: 'off' }));
    const fields: Record<string, Field<Control>> = { orderqty: lineQty, unitpricediscount: lineDiscount };
    const unitPrice = h('td', { class: 'numeric', 'data-label': 'Unit price', 'data-field': 'unitPrice' });
    const lineTotal = h('td', { class: 'numeric', 'data-label': 'Line total', 'data-field': 'lineTotal' });
    const saveButton = h('button', { type: 'button', class: 'secondary', 'data-action': 'save' }, 'Save line', h('span', { class: 'visually-hidden' }, ` ${name}`));
    const removeButton = h('button', { type: 'button', class: 'danger', 'data-action': 'remove' }, 'Remove line', h('span', { class: 'visually-hidden' }, ` ${name}`));
    const tr = h('tr', { 'data-line-id': id },
      h('td', { 'data-label': 'Product', 'data-field': 'productName' }, name),
      h('td', { 'data-label': 'Quantity', 'data-field': 'orderQty' }, lineQty.wrap),
      unitPrice,
      h('td', { 'data-label': 'Discount (%)', 'data-field': 'unitPriceDiscount' }, lineDiscount.wrap),
      lineTotal,
      h('td', { class: 'line-actions' }, saveButton, removeButton));

    const fill = (l: Line) => {
      saved = l;
      lineQty.control.value = String(l.orderQty);
      lineDiscount.control.value = percentText(l.unitPriceDiscount);
      unitPrice.textContent = showMoney(l.unitPrice);
      lineTotal.textContent = showMoney(l.lineTotal);
    };
    fill(line);

    async function save(): Promise<void> {
      if (writing) return;
      clearProblems(fields);
      const orderQty = quantity(lineQty.control.value);
      const unitPriceDiscount = percentFraction(lineDiscount.control.value);
      if (orderQty === undefined) lineQty.setError(QTY_ERROR);
      if (unitPriceDiscount === undefined) lineDiscount.setError(DISCOUNT_ERROR);
      if (orderQty === undefined || unitPriceDiscount === undefined) {
        say(`The line of ${name} was not saved: correct the marked fields.`, 'failed');
        return focusElement(orderQty === undefined ? lineQty.control : lineDiscount.control);
      }
      if (orderQty === saved.orderQty && unitPriceDiscount === (saved.unitPriceDiscount ?? 0)) return say(`The line of ${name} has no changes to save.`, 'note');
      // A merge patch of the two fields a row edits, with the order's revision as the guard.
      const output = await write(() => guarded(salesOrders.patchLine(host.orderId, id, { orderQty, unitPriceDiscount, revisionNumber: host.revision() })));
      const result = outcome(output, fields, `Saving the line of ${name}`);
      if (!result) return;
      fill({ ...saved, orderQty, unitPriceDiscount, lineTotal: result.lineTotal ?? saved.lineTotal });
      say(`Line saved: ${name}. ${totals(result)}`);
    }

    async function remove(): Promise<void> {
      if (writing) return;
      clearProblems(fields);
      const output = await write(() => guarded(salesOrders.deleteLine(host.orderId, id, host.revision())));
      const result = outcome(output, fields, `Removing the line of ${name}`);
      if (!result) return;
      // Focus goes to the next line's quantity (or the previous one's, or the add form) so the keyboard stays in place.
      const next = (tr.nextElementSibling ?? tr.previousElementSibling) as HTMLElement | null;
      tr.remove();
      if (!tbody.querySelector('tr[data-line-id]')) tbody.replaceChildren(emptyRow());
      say(`Line removed: ${name}. ${totals(result)}`);
      focusElement(next?.querySelector<HTMLElement>('input') ?? product.control);
    }

    saveButton.addEventListener('click', () => void save());
    removeButton.addEventListener('click', () => void remove());
    tr.addEventListener('keydown', (event) => {
      if (!(event.target instanceof HTMLInputElement)) return;
      if (event.key === 'Enter') {
        event.preventDefault();
        void save();
      } else if (event.key === 'Escape') {
        event.preventDefault();
        clearProblems(fields);
        fill(saved);
        say(`Changes to the line of ${name} undone.`, 'note');
      }
    });
    return tr;
  }

  const resetAdd = () => {
    clearProblems(addFields);
    product.control.value = '';
    qty.control.value = '1';
    price.control.value = '';
    discount.control.value = '';
  };

  addForm.addEventListener('keydown', (event) => {
    if (event.key !== 'Escape') return;
    event.preventDefault();
    resetAdd();
    say('');
  });

  addForm.addEventListener('submit', async (event) => {
    event.preventDefault();
    if (writing) return;
    clearProblems(addFields);
    say('');
    const productId = product.control.value;
    const orderQty = quantity(qty.control.value);
    const unitPriceDiscount = percentFraction(discount.control.value);
    const unitPrice = price.control.value.trim() === '' ? undefined : moneyValue(price.control.value);
    if (!productId) product.setError('Choose a product.');
    if (orderQty === undefined) qty.setError(QTY_ERROR);
    if (unitPrice === undefined && price.control.value.trim() !== '') price.setError(PRICE_ERROR);
    if (unitPriceDiscount === undefined) discount.setError(DISCOUNT_ERROR);
    const invalid = Object.values(addFields).find((f) => f.control.getAttribute('aria-invalid') === 'true');
    if (invalid) {
      say('The line was not added: correct the marked fields.', 'failed');
      return focusElement(invalid.control);
    }
    const data = {
      productId: Number(productId), orderQty: orderQty!, unitPriceDiscount: unitPriceDiscount!, revisionNumber: host.revision(),
      ...(unitPrice === undefined ? {} : { unitPrice }),
    };
    const output = await write(() => guarded(salesOrders.createLine(host.orderId, data)));
    const result = outcome(output, addFields, 'Adding the line');
    if (!result) return;
    // The new line as stored (its unit price may be the product's list price): read back, or the whole list again.
    const added = result.salesOrderDetailId === undefined ? undefined : await guarded(salesOrders.readLine(host.orderId, result.salesOrderDetailId));
    if (added?.result) {
      tbody.querySelector('tr.empty')?.remove();
      tbody.append(row(added.result));
    } else {
      const all = await guarded(salesOrders.readLines(host.orderId));
      if (all?.result) renderRows(all.result);
    }
    const name = products?.text(data.productId) ?? 'the product';
    resetAdd();
    say(`Line added: ${name}. ${totals(result)}`);
    focusElement(product.control);
  });

  function renderRows(lines: Line[]): void {
    tbody.replaceChildren(...(lines.length ? lines.map(host.editable ? row : readOnlyRow) : [emptyRow()]));
  }

  return {
    el,
    show(lines, table) {
      products = table;
      // New lines take active products only; old lines keep theirs (shown by name).
      const active = table.items.filter((i) => i.isActive);
      options(product.control as HTMLSelectElement, active.map((i) => ({ value: String(i.id), text: i.text })), 'Choose a product');
      problems.replaceChildren();
      say('');
      resetAdd();
      renderRows(lines);
    },
  };
}
