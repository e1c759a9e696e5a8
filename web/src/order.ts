import type { SalesOrder_ReadOutput, SalesOrder_UpdateInput_Data } from '../../services/sales-order/sales-order-models.js';
import { type Lookups, errorsOf, guarded, loadLookups, salesOrders } from './api.js';
import { confirmDialog } from './confirm-dialog.js';
import { announce, focusElement, h, options } from './dom.js';
import { dayStart, isoDay, moneyText, moneyValue, showDay, showMoney, showStamp } from './format.js';
import { type HistoryPanel, historyPanel } from './order-history.js';
import { linesEditor } from './order-lines.js';
import { can } from './permissions.js';
import { customerHash } from './routes.js';
import { type Field, type View, conflictBox, field, messageBox, setReadOnly, showFieldErrors } from './view.js';

/** What the edit form holds, as the controls hold it. */
interface FormValues {
  status: string;
  onlineOrderFlag: boolean;
  purchaseOrderNumber: string;
  accountNumber: string;
  dueDate: string;
  shipDate: string;
  comment: string;
  taxAmt: string;
  freight: string;
}

/** Unsaved changes kept across the end of a session: the next login brings them back. */
export interface OrderDraft {
  id: number;
  revisionNumber: number;
  values: FormValues;
}

export interface OrderOptions {
  /** The list page to go back to (with its filters). */
  backHash: string;
  draft?: OrderDraft;
}

const COMMENT_MAX = 128;
const AMOUNT_ERROR = 'Enter an amount like 12.50 (at most 4 decimals), or 0.';

/** One sales order: its facts and an edit form (validation next to the fields, conflicts with a way to reload). */
export function orderView(id: number, opts: OrderOptions): View {
  let loads = 0;
  let order: SalesOrder_ReadOutput | undefined;
  let loaded: FormValues | undefined;
  let revision = 0;

  const heading = h('h1', { id: 'order-heading', tabindex: '-1' }, 'Order');
  const back = h('a', { href: opts.backHash, class: 'back' }, '← Back to the orders');
  const top = h('div', { class: 'order-messages', id: 'order-messages' });
  const facts = h('dl', { class: 'facts card' });
  const body = h('div', { class: 'order-body' }, h('p', { class: 'loading', role: 'status' }, 'Loading the order…'));
  const el = h('section', { class: 'screen order-screen', 'aria-labelledby': 'order-heading' },
    h('p', { class: 'back-line' }, back), heading, top, body);

  // The form, built once; filled when the order arrives.
  const status = field('order-status', 'Status', h('select', { name: 'status', required: true }));
  const online = field('order-online', 'Online order', h('input', { type: 'checkbox', name: 'onlineOrderFlag' }));
  const po = field('order-po', 'Purchase order number', h('input', { type: 'text', name: 'purchaseOrderNumber', autocomplete: 'off' }), 'Up to 25 characters');
  const account = field('order-account', 'Account number', h('input', { type: 'text', name: 'accountNumber', autocomplete: 'off' }), 'Up to 15 characters');
  const due = field('order-due', 'Due date', h('input', { type: 'date', name: 'dueDate', required: true }));
  const ship = field('order-ship', 'Ship date', h('input', { type: 'date', name: 'shipDate' }), 'Empty while the order has not shipped');
  const commentHint = h('span');
  const comment = field('order-comment', 'Comment', h('textarea', { name: 'comment', rows: 3 }), commentHint);
  const tax = field('order-tax', 'Tax amount', h('input', { type: 'text', name: 'taxAmt', inputmode: 'decimal', autocomplete: 'off' }));
  const freight = field('order-freight', 'Freight', h('input', { type: 'text', name: 'freight', inputmode: 'decimal', autocomplete: 'off' }));
  const fields: Record<string, Field<HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement>> = {
    status, onlineorderflag: online, purchaseordernumber: po, accountnumber: account, duedate: due, shipdate: ship, comment,
    taxamt: tax, freight,
  };
  // What the user may do here (the session's permissions): without sales-order.update the form is read only and the
  // lines cannot be changed; without sales-order.delete there is no delete button.
  const editable = can('sales-order.update');
  const deletable = can('sales-order.delete');
  const save = h('button', { type: 'submit', class: 'primary' }, 'Save changes');
  const remove = h('button', { type: 'button', class: 'danger', id: 'order-delete' }, 'Delete the order…');
  const saved = h('p', { class: 'save-status', id: 'save-status', role: 'status' });
  const form = h('form', { class: 'order-form card', id: 'order-form', novalidate: true, 'aria-labelledby': 'edit-heading' },
    h('h2', { id: 'edit-heading' }, editable ? 'Edit the order' : 'The order'),
    editable ? null : h('p', { class: 'hint read-only-note', id: 'order-read-only' }, 'You can view this order but not change it.'),
    h('div', { class: 'form-grid' }, status.wrap, online.wrap, po.wrap, account.wrap, due.wrap, ship.wrap, tax.wrap, freight.wrap, comment.wrap),
    editable || deletable
      ? h('div', { class: 'actions' }, editable ? save : null, editable ? h('a', { href: opts.backHash, class: 'button-link secondary' }, 'Cancel') : null, deletable ? remove : null)
      : null,
    saved);
  setReadOnly(Object.values(fields).map((f) => f.control), !editable);

  const dialog = confirmDialog({
    heading: 'Delete this order?', keepLabel: 'Keep the order', confirmLabel: 'Yes, delete it', opener: remove,
    confirm: () => deleteOrder(),
  });
  el.append(dialog.el);

  /** The line under the form: what happened to the last save (`ok`), why it did not happen (`failed`), or a note. */
  const say = (text: string, kind: 'ok' | 'failed' | 'note' = 'ok') => {
    saved.className = `save-status ${kind === 'ok' ? '' : kind}`.trim();
    announce(saved, text);
  };

  const countComment = () => {
    const used = comment.control.value.length;
    commentHint.textContent = `Up to ${COMMENT_MAX} characters (${used} used)`;
  };
  comment.control.addEventListener('input', countComment);

  const readForm = (): FormValues => ({
    status: status.control.value,
    onlineOrderFlag: (online.control as HTMLInputElement).checked,
    purchaseOrderNumber: po.control.value,
    accountNumber: account.control.value,
    dueDate: due.control.value,
    shipDate: ship.control.value,
    comment: comment.control.value,
    taxAmt: tax.control.value,
    freight: freight.control.value,
  });

  const fillForm = (values: FormValues) => {
    status.control.value = values.status;
    (online.control as HTMLInputElement).checked = values.onlineOrderFlag;
    po.control.value = values.purchaseOrderNumber;
    account.control.value = values.accountNumber;
    due.control.value = values.dueDate;
    ship.control.value = values.shipDate;
    comment.control.value = values.comment;
    tax.control.value = values.taxAmt;
    freight.control.value = values.freight;
    countComment();
  };

  const valuesOf = (o: SalesOrder_ReadOutput): FormValues => ({
    status: String(o.status),
    onlineOrderFlag: o.onlineOrderFlag,
    purchaseOrderNumber: o.purchaseOrderNumber ?? '',
    accountNumber: o.accountNumber ?? '',
    dueDate: isoDay(o.dueDate),
    shipDate: isoDay(o.shipDate),
    comment: o.comment ?? '',
    taxAmt: moneyText(o.taxAmt),
    freight: moneyText(o.freight),
  });

  const clearErrors = () => {
    for (const f of Object.values(fields)) f.setError(undefined);
    top.replaceChildren();
  };

  const renderFacts = (o: SalesOrder_ReadOutput, l: Lookups) => {
    const fact = (term: string, value: string | Node, name: string) => [h('dt', {}, term), h('dd', { 'data-fact': name }, value)];
    facts.replaceChildren(
      ...fact('Customer', h('a', { href: customerHash(o.customerId) }, o.customerName), 'customerName'),
      ...fact('Order date', showDay(o.orderDate), 'orderDate'),
      ...fact('Subtotal', showMoney(o.subTotal), 'subTotal'),
      ...fact('Tax amount', showMoney(o.taxAmt), 'taxAmt'),
      ...fact('Freight', showMoney(o.freight), 'freight'),
      ...fact('Total due', showMoney(o.totalDue), 'totalDue'),
      ...fact('Territory', l.territory.text(o.territoryId), 'territory'),
      ...fact('Sales person', l.person.text(o.salesPersonId), 'salesPerson'),
      ...fact('Revision', String(revision), 'revisionNumber'),
      ...fact('Last modified', showStamp(o.modifiedDate), 'modifiedDate'),
    );
  };

  // The lines: each write answers the order's new totals and revision, which the facts and the form take from it.
  const lines = linesEditor({
    orderId: id,
    editable,
    revision: () => revision,
    written(result) {
      revision = result.revisionNumber;
      if (order) order = { ...order, subTotal: result.subTotal, totalDue: result.totalDue, revisionNumber: revision };
      el.dataset.loaded = String(revision);
      void refreshFacts();
      void refreshModified(revision);
      orderHistory?.refresh();
    },
    conflict: () => showConflict(),
  });

  /** The order's history (made once the lookups are there: it shows statuses and products by name). */
  let orderHistory: HistoryPanel | undefined;

  const refreshFacts = async () => {
    const l = await loadLookups();
    if (order && l && !Array.isArray(l)) renderFacts(order, l);
  };

  /**
   * A line write moves the order's modified date too, which its answer does not carry: read it, and show it when the
   * order is still at that revision (a later write refreshes it again).
   */
  const refreshModified = async (at: number) => {
    const again = await guarded(salesOrders.read(id));
    if (!order || !again?.result || again.result.revisionNumber !== at || revision !== at) return;
    order = { ...order, modifiedDate: again.result.modifiedDate };
    await refreshFacts();
  };

  /** Reads the order (again) and shows it; `draft` puts unsaved changes kept over a new login back in the form. */
  async function load(draft?: OrderDraft): Promise<boolean> {
    const mine = ++loads;
    form.setAttribute('aria-busy', 'true');
    const [l, output] = await Promise.all([loadLookups(), guarded(salesOrders.read(id))]);
    if (mine !== loads || l === undefined || output === undefined) return false;
    form.removeAttribute('aria-busy');
    if (Array.isArray(l)) {
      body.replaceChildren(messageBox(l, 'The order could not be shown.'));
      return false;
    }
    const errors = errorsOf(output);
    if (errors.length || !output.result) {
      heading.textContent = `Order ${id}`;
      body.replaceChildren(messageBox(errors, 'The order could not be shown.'));
      return false;
    }
    order = output.result;
    revision = order.revisionNumber;
    heading.textContent = `Order ${order.salesOrderNumber}`;
    document.title = `Order ${order.salesOrderNumber} – restlayer orders`;
    const statuses = l.status.items.filter((i) => i.isActive || String(i.id) === String(order!.status));
    options(status.control as HTMLSelectElement, statuses.map((i) => ({ value: String(i.id), text: i.text })));
    loaded = valuesOf(order);
    fillForm(loaded);
    clearErrors();
    say('');
    // Changes kept over a new login go back only into a form the user may still save.
    if (draft && draft.id === id && editable) {
      fillForm(draft.values);
      revision = draft.revisionNumber;
      say('Your unsaved changes were kept while you logged in again. Check them and save.', 'note');
    }
    renderFacts(order, l);
    lines.show(order.lines, l.product);
    orderHistory ??= historyPanel(id, l);
    orderHistory.refresh();
    // The header's form before the lines: a keyboard user reaches "Save changes" past the order's own fields, not
    // past every line's controls (an order of many lines took more than 40 Tab presses: issue 42).
    body.replaceChildren(facts, form, lines.el, orderHistory.el);
    el.dataset.loaded = String(revision);
    return true;
  }

  /** The update body: PUT replaces the order, so every field is sent; revisionNumber makes a stale save a 409. */
  const updateData = (values: FormValues): SalesOrder_UpdateInput_Data => {
    // Checked before (badAmounts in the submit handler): an empty amount is 0, the default.
    // A date left as it was keeps its time of day; a changed one is that day at midnight UTC.
    const dateOf = (value: string, original: Date | null | undefined) =>
      !value ? null : original && isoDay(original) === value ? original : dayStart(value) ?? null;
    return {
      status: Number(values.status),
      onlineOrderFlag: values.onlineOrderFlag,
      purchaseOrderNumber: values.purchaseOrderNumber || null,
      accountNumber: values.accountNumber || null,
      dueDate: dateOf(values.dueDate, order?.dueDate),
      shipDate: dateOf(values.shipDate, order?.shipDate),
      comment: values.comment || null,
      taxAmt: moneyValue(values.taxAmt || '0') ?? 0,
      freight: moneyValue(values.freight || '0') ?? 0,
      revisionNumber: revision,
    };
  };

  const showConflict = () => {
    const box = conflictBox('order', async () => {
      if (!(await load())) return false;
      say(`Reloaded: this is the current version (revision ${revision}). Your changes were discarded.`, 'note');
      focusElement(status.control);
      return true;
    });
    top.replaceChildren(box);
    focusElement(box);
  };

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    if (!order || !editable || save.disabled) return;
    clearErrors();
    say('');
    const values = readForm();
    if (!values.dueDate) {
      due.setError('Enter a due date: every order has one.');
      return focusElement(due.control);
    }
    const badAmounts = ([[tax, values.taxAmt], [freight, values.freight]] as const).filter(([, text]) => text.trim() !== '' && moneyValue(text) === undefined);
    for (const [f] of badAmounts) f.setError(AMOUNT_ERROR);
    if (badAmounts.length) {
      say('The order was not saved: correct the marked fields.', 'failed');
      return focusElement(badAmounts[0][0].control);
    }
    save.disabled = true;
    form.setAttribute('aria-busy', 'true');
    let output;
    try {
      output = await guarded(salesOrders.update(id, updateData(values)));
    } finally {
      save.disabled = false;
      form.removeAttribute('aria-busy');
    }
    if (!output) return;
    const errors = errorsOf(output);
    if (errors.some((m) => m.type === 'Concurrency' || m.code === 'Entity_Concurrency')) return showConflict();
    if (errors.length || !output.result) {
      // Each message with a property goes next to its field; the rest above the form.
      const general = showFieldErrors(errors, fields);
      if (general.length) top.replaceChildren(messageBox(general, 'The order was not saved.'));
      const invalid = form.querySelector<HTMLElement>('[aria-invalid="true"]');
      say(general.length ? 'The order was not saved.' : 'The order was not saved: correct the marked fields.', 'failed');
      return focusElement(general.length ? top.firstElementChild as HTMLElement : invalid);
    }
    const sent = updateData(values);
    revision = output.result.revisionNumber;
    order = { ...order, ...updateDataAsRead(sent), revisionNumber: revision, modifiedDate: output.result.modifiedDate };
    loaded = valuesOf(order);
    // Tax and freight change the total due, which the server computes: the facts show the order as read again.
    const again = await guarded(salesOrders.read(id));
    if (again?.result && again.result.revisionNumber === revision) order = { ...order, subTotal: again.result.subTotal, totalDue: again.result.totalDue };
    await refreshFacts();
    el.dataset.loaded = String(revision);
    const notes = output.messages.filter((m) => m.severity === 'Warning' || m.severity === 'Info').map((m) => ` ${m.message}`).join('');
    say(`Changes saved (revision ${revision}).${notes}`);
    orderHistory?.refresh();
  });

  remove.addEventListener('click', () => {
    if (!order) return;
    dialog.open(`Order ${order.salesOrderNumber} of ${order.customerName} will be deleted with its lines. It can be restored from the deleted orders.`);
  });

  /** Sends the DELETE; answers what the screen shows once the dialog has closed (undefined: the session ended). */
  async function deleteOrder(): Promise<(() => void) | undefined> {
    if (!order) return undefined;
    const output = await guarded(salesOrders.delete(id));
    if (!output) return undefined;
    const errors = errorsOf(output);
    if (errors.length) {
      // Refused (no longer allowed: a 403 after the user's roles changed; or gone meanwhile): the server's words.
      return () => {
        top.replaceChildren(messageBox(errors, 'The order was not deleted.'));
        (top.firstElementChild as HTMLElement).id = 'delete-refused';
        focusElement(top.firstElementChild as HTMLElement);
      };
    }
    const number = order.salesOrderNumber;
    order = undefined;
    loads++;
    el.dataset.deleted = String(id);
    return () => {
      heading.textContent = 'Order deleted';
      document.title = 'Order deleted – restlayer orders';
      top.replaceChildren();
      // The back link above the heading stays: the way on from here. The history of a deleted order stays readable
      // by whoever may delete orders (the server's rule), so its panel stays, with the deletion on top when shown.
      body.replaceChildren(h('p', { class: 'message-box info', role: 'status', id: 'order-deleted' }, `Order ${number} was deleted.`),
        ...(orderHistory ? [orderHistory.el] : []));
      orderHistory?.refresh();
      focusElement(heading);
    };
  }

  void load(opts.draft);

  return {
    el,
    title: `Order ${id}`,
    focus: () => focusElement(heading),
    snapshot(): OrderDraft | undefined {
      if (!order || !loaded) return undefined;
      const values = readForm();
      return JSON.stringify(values) === JSON.stringify(loaded) ? undefined : { id, revisionNumber: revision, values };
    },
    dispose() {
      loads++;
      dialog.close();
    },
  };
}

/** What was saved, in the read model's shape (the due date is always sent: the form requires it). */
function updateDataAsRead(data: SalesOrder_UpdateInput_Data): Partial<SalesOrder_ReadOutput> {
  const read: Partial<SalesOrder_ReadOutput> = {
    status: data.status,
    onlineOrderFlag: data.onlineOrderFlag,
    purchaseOrderNumber: data.purchaseOrderNumber ?? undefined,
    accountNumber: data.accountNumber ?? undefined,
    shipDate: data.shipDate ?? undefined,
    comment: data.comment ?? undefined,
    taxAmt: data.taxAmt ?? undefined,
    freight: data.freight ?? undefined,
  };
  if (data.dueDate) read.dueDate = data.dueDate;
  return read;
}
