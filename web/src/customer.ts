import type { ErrorMessage } from 'restlayer/client';
import type { CreateInput, PatchInput, Read } from 'restlayer/client';
import type { customer as customerResource } from '../../services/customer/customer.js';

type Customer_CreateInput_Data = CreateInput<typeof customerResource>;
type Customer_PatchInput_Data = PatchInput<typeof customerResource>;
type Customer_ReadOutput = Read<typeof customerResource>;
import { type Lookups, customers, errorsOf, guarded, loadLookups } from './api.js';
import { confirmDialog } from './confirm-dialog.js';
import { announce, focusElement, h, options } from './dom.js';
import { showStamp } from './format.js';
import { can } from './permissions.js';
import { customerHash } from './routes.js';
import { type Field, type View, conflictBox, field, messageBox, notAllowed, setReadOnly, showFieldErrors } from './view.js';

/** What the form holds, as the controls hold it (territory as the select's value, '' for none). */
interface FormValues {
  name: string;
  accountNumber: string;
  territoryId: string;
}

/**
 * Unsaved input kept across the end of a session: the next login brings it back. `base` is what the form was
 * loaded with, so the save still sends only what the user changed (and `revisionNumber` still guards against a
 * change made meanwhile). `id` is 'new' for the create form.
 */
export interface CustomerDraft {
  id: number | 'new';
  revisionNumber: number;
  base: FormValues;
  values: FormValues;
}

export interface CustomerOptions {
  /** The list page to go back to (with its filters). */
  backHash: string;
  draft?: CustomerDraft;
}

const EMPTY: FormValues = { name: '', accountNumber: '', territoryId: '' };
const same = (a: FormValues, b: FormValues) => a.name === b.name && a.accountNumber === b.accountNumber && a.territoryId === b.territoryId;

/** The merge patch of what changed (contract part 3): only those fields, '' as null (clears), and the revision. */
export function patchOf(base: FormValues, values: FormValues, revisionNumber: number): Customer_PatchInput_Data {
  const patch: Customer_PatchInput_Data = { revisionNumber };
  if (values.name !== base.name) patch.name = values.name;
  if (values.accountNumber !== base.accountNumber) patch.accountNumber = values.accountNumber || null;
  if (values.territoryId !== base.territoryId) patch.territoryId = values.territoryId ? Number(values.territoryId) : null;
  return patch;
}

function createData(values: FormValues): Customer_CreateInput_Data {
  const data: Customer_CreateInput_Data = { name: values.name };
  if (values.accountNumber) data.accountNumber = values.accountNumber;
  if (values.territoryId) data.territoryId = Number(values.territoryId);
  return data;
}

const valuesOf = (c: Customer_ReadOutput): FormValues => ({
  name: c.name,
  accountNumber: c.accountNumber ?? '',
  territoryId: c.territoryId === undefined ? '' : String(c.territoryId),
});

/**
 * One customer: read and edit (PATCH of the changed fields with the revision, so a stale save is a 409 with a way to
 * reload), delete after a confirmation (a customer with orders is refused: 409 Entity_InUse), or, with no id, the
 * form that creates one (POST) and then becomes that customer's screen.
 */
export function customerView(initialId: number | undefined, opts: CustomerOptions): View {
  let id = initialId;
  let loads = 0;
  let customer: Customer_ReadOutput | undefined;
  let base: FormValues = EMPTY;
  let revision = 0;

  const heading = h('h1', { id: 'customer-heading', tabindex: '-1' }, id ? 'Customer' : 'New customer');
  const back = h('a', { href: opts.backHash, class: 'back' }, '← Back to the customers');
  const top = h('div', { class: 'customer-messages', id: 'customer-messages' });
  const facts = h('dl', { class: 'facts card' });
  const body = h('div', { class: 'customer-body' });
  const el = h('section', { class: 'screen customer-screen', 'aria-labelledby': 'customer-heading' },
    h('p', { class: 'back-line' }, back), heading, top, body);

  const name = field('customer-name', 'Name', h('input', { type: 'text', name: 'name', autocomplete: 'off', required: true }), 'Required, up to 100 characters');
  const account = field('customer-account', 'Account number', h('input', { type: 'text', name: 'accountNumber', autocomplete: 'off' }), 'Up to 15 characters');
  const territory = field('customer-territory', 'Territory', h('select', { name: 'territoryId' }));
  const fields: Record<string, Field<HTMLInputElement | HTMLSelectElement>> = { name, accountnumber: account, territoryid: territory };
  const save = h('button', { type: 'submit', class: 'primary', id: 'customer-save' });
  const remove = h('button', { type: 'button', class: 'danger', id: 'customer-delete' }, 'Delete the customer…');
  const saved = h('p', { class: 'save-status', id: 'save-status', role: 'status' });
  const formHeading = h('h2', { id: 'customer-form-heading' });
  const cancel = h('a', { href: opts.backHash, class: 'button-link secondary' }, 'Cancel');
  const readOnlyNote = h('p', { class: 'hint read-only-note', id: 'customer-read-only' }, 'You can view this customer but not change it.');
  const form = h('form', { class: 'customer-form card', id: 'customer-form', novalidate: true, 'aria-labelledby': 'customer-form-heading' },
    formHeading,
    h('div', { class: 'form-grid' }, name.wrap, account.wrap, territory.wrap),
    readOnlyNote,
    h('div', { class: 'actions' }, save, cancel, remove),
    saved);

  // The delete confirmation: the safe choice focused first; the outcome takes focus once it has closed.
  const dialog = confirmDialog({
    heading: 'Delete this customer?', keepLabel: 'Keep the customer', confirmLabel: 'Yes, delete it', opener: remove,
    confirm: () => deleteCustomer(),
  });
  el.append(dialog.el);

  /** The line under the form: what happened to the last save (`ok`), why it did not happen (`failed`), or a note. */
  const say = (text: string, kind: 'ok' | 'failed' | 'note' = 'ok') => {
    saved.className = `save-status ${kind === 'ok' ? '' : kind}`.trim();
    announce(saved, text);
  };

  const readForm = (): FormValues => ({ name: name.control.value, accountNumber: account.control.value, territoryId: territory.control.value });
  const fillForm = (values: FormValues) => {
    name.control.value = values.name;
    account.control.value = values.accountNumber;
    territory.control.value = values.territoryId;
  };
  const clearErrors = () => {
    for (const f of Object.values(fields)) f.setError(undefined);
    top.replaceChildren();
  };

  /** Active territories, plus the customer's own when it is no longer active (marked so). */
  const fillTerritories = (l: Lookups, ...current: string[]) => {
    const items = l.territory.items.filter((i) => i.isActive || current.includes(String(i.id)))
      .map((i) => ({ value: String(i.id), text: i.isActive ? i.text : `${i.text} (inactive)` }));
    options(territory.control, items, 'No territory');
  };

  /** May the user save this form: change the customer (customer.update), or create one (customer.create)? */
  const writable = () => can(id ? 'customer.update' : 'customer.create');

  /** Create or edit, and what the user may do: only the buttons their permissions allow; a read-only form else. */
  const renderMode = () => {
    save.textContent = id ? 'Save changes' : 'Create the customer';
    formHeading.textContent = !id ? 'The new customer' : writable() ? 'Edit the customer' : 'The customer';
    save.hidden = !writable();
    cancel.hidden = !writable();
    readOnlyNote.hidden = writable();
    setReadOnly(Object.values(fields).map((f) => f.control), !writable());
    remove.hidden = !id || !can('customer.delete');
  };

  const renderFacts = () => {
    if (!customer) return;
    const fact = (term: string, value: string, key: string) => [h('dt', {}, term), h('dd', { 'data-fact': key }, value)];
    facts.replaceChildren(
      ...fact('Customer number', String(customer.customerId), 'customerId'),
      ...fact('Revision', String(revision), 'revisionNumber'),
      ...fact('Last modified', showStamp(customer.modifiedDate), 'modifiedDate'),
    );
  };

  const showName = (text: string) => {
    heading.textContent = `Customer ${text}`;
    document.title = `Customer ${text} – restlayer orders`;
  };

  /** Reads the customer (again) and shows it; `draft` puts unsaved changes kept over a new login back in the form. */
  async function load(draft?: CustomerDraft): Promise<boolean> {
    const mine = ++loads;
    if (!id && !writable()) {
      // The create screen reached by its address (#/customers/new) by a user who may not create: say so, offer no form.
      body.replaceChildren(notAllowed('Your account may not create customers.'));
      el.dataset.loaded = 'not-allowed';
      return false;
    }
    form.setAttribute('aria-busy', 'true');
    const [l, output] = await Promise.all([loadLookups(), id ? guarded(customers.read(id)) : Promise.resolve(undefined)]);
    if (mine !== loads || l === undefined || (id && output === undefined)) return false;
    form.removeAttribute('aria-busy');
    if (Array.isArray(l)) {
      body.replaceChildren(messageBox(l, 'The customer could not be shown.'));
      return false;
    }
    renderMode();
    clearErrors();
    say('');
    if (id && output) {
      const errors = errorsOf(output);
      if (errors.length || !output.result) {
        heading.textContent = `Customer ${id}`;
        body.replaceChildren(messageBox(errors, 'The customer could not be shown.'));
        return false;
      }
      customer = output.result;
      revision = customer.revisionNumber;
      base = valuesOf(customer);
      showName(customer.name);
    }
    fillTerritories(l, base.territoryId, draft?.values.territoryId ?? '');
    fillForm(base);
    // Changes kept over a new login go back only into a form the user may still save.
    if (draft && draft.id === (id ?? 'new') && writable()) {
      base = draft.base;
      revision = draft.revisionNumber;
      fillForm(draft.values);
      say(`Your unsaved ${id ? 'changes were' : 'customer was'} kept while you logged in again. Check ${id ? 'them' : 'it'} and save.`, 'note');
    }
    renderFacts();
    body.replaceChildren(...(id ? [facts] : []), form);
    el.dataset.loaded = id ? String(revision) : 'new';
    return true;
  }

  const showConflict = () => {
    const box = conflictBox('customer', async () => {
      if (!(await load())) return false;
      say(`Reloaded: this is the current version (revision ${revision}). Your changes were discarded.`, 'note');
      focusElement(name.control);
      return true;
    });
    top.replaceChildren(box);
    focusElement(box);
  };

  /** Messages with a property go next to their field, the rest above the form; focus goes to the first of them. */
  const showErrors = (errors: ErrorMessage[], what: string) => {
    const general = showFieldErrors(errors, fields);
    if (general.length) top.replaceChildren(messageBox(general, `The customer was not ${what}.`));
    say(general.length ? `The customer was not ${what}.` : `The customer was not ${what}: correct the marked fields.`, 'failed');
    focusElement(general.length ? top.firstElementChild as HTMLElement : form.querySelector<HTMLElement>('[aria-invalid="true"]'));
  };

  async function submit(values: FormValues) {
    save.disabled = true;
    form.setAttribute('aria-busy', 'true');
    try {
      if (!id) {
        const output = await guarded(customers.create(createData(values)));
        if (!output) return;
        const errors = errorsOf(output);
        if (errors.length || !output.result) return showErrors(errors, 'created');
        // The form becomes the new customer's screen; the hash is replaced so Back does not lead to an empty form.
        id = output.result.customerId;
        history.replaceState(history.state, '', customerHash(id));
        if (await load()) {
          say(`Customer created (customer number ${id}).`);
          focusElement(heading);
        }
        return;
      }
      const patch = patchOf(base, values, revision);
      if (Object.keys(patch).length === 1) return say('There are no changes to save.', 'note');
      const output = await guarded(customers.patch(id, patch));
      if (!output) return;
      const errors = errorsOf(output);
      if (errors.some((m) => m.type === 'Concurrency' || m.code === 'Entity_Concurrency')) return showConflict();
      if (errors.length || !output.result) return showErrors(errors, 'saved');
      revision = output.result.revisionNumber;
      base = values;
      customer = { ...customer!, name: values.name, revisionNumber: revision, modifiedDate: output.result.modifiedDate };
      showName(values.name);
      renderFacts();
      el.dataset.loaded = String(revision);
      say(`Changes saved (revision ${revision}).`);
    } finally {
      save.disabled = false;
      form.removeAttribute('aria-busy');
    }
  }

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    if (save.disabled || !writable() || (id && !customer)) return;
    clearErrors();
    say('');
    const values = readForm();
    // The server accepts any non-empty text; a name of spaces only is refused here.
    if (!values.name.trim()) {
      name.setError('Enter a name: every customer has one.');
      return focusElement(name.control);
    }
    void submit(values);
  });

  remove.addEventListener('click', () => {
    if (!customer) return;
    dialog.open(`${customer.name} (customer number ${customer.customerId}) will be deleted. It can be restored from the deleted customers.`);
  });

  /** Sends the DELETE; answers what the screen shows once the dialog has closed (undefined: the session ended). */
  async function deleteCustomer(): Promise<(() => void) | undefined> {
    if (!id || !customer) return undefined;
    const output = await guarded(customers.delete(id));
    if (!output) return undefined;
    const errors = errorsOf(output);
    if (errors.length) {
      // Refused: in use (409), or no longer allowed (403, the user's roles changed): the server's words, form usable.
      const inUse = errors.some((m) => m.code === 'Entity_InUse');
      return () => {
        top.replaceChildren(messageBox(errors, inUse ? 'The customer was not deleted: sales orders still refer to it.' : 'The customer was not deleted.'));
        (top.firstElementChild as HTMLElement).id = 'delete-refused';
        focusElement(top.firstElementChild as HTMLElement);
      };
    }
    el.dataset.deleted = String(id);
    const gone = customer.name;
    customer = undefined;
    return () => {
      heading.textContent = 'Customer deleted';
      document.title = 'Customer deleted – restlayer orders';
      top.replaceChildren();
      // The back link above the heading stays: the way on from here.
      body.replaceChildren(h('p', { class: 'message-box info', role: 'status', id: 'customer-deleted' }, `${gone} (customer number ${id}) was deleted.`));
      focusElement(heading);
    };
  }

  renderMode();
  body.replaceChildren(h('p', { class: 'loading', role: 'status' }, id ? 'Loading the customer…' : 'Loading…'));
  void load(opts.draft);

  return {
    el,
    title: id ? `Customer ${id}` : 'New customer',
    focus: () => focusElement(heading),
    snapshot(): CustomerDraft | undefined {
      if ((id && !customer) || el.dataset.loaded === undefined) return undefined;
      const values = readForm();
      return same(values, base) ? undefined : { id: id ?? 'new', revisionNumber: revision, base, values };
    },
    dispose() {
      loads++;
      dialog.close();
    },
  };
}
