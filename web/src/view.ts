import type { ErrorMessage } from 'restlayer/client';
import { h } from './dom.js';
import { showDay } from './format.js';

/** One screen of the app. */
export interface View {
  readonly el: HTMLElement;
  readonly title: string;
  /** Where focus goes when the screen appears (its heading, or the first field of a form). */
  focus(): void;
  /** Shows a new route of the same screen in place (e.g. other filters of the list); false when it cannot. */
  update?(hash: string): boolean;
  /** Unsaved input to keep when the session ends, so it is still there after the next login. */
  snapshot?(): unknown;
  dispose?(): void;
}

/**
 * The box a save that lost to someone else's change shows (a 409): what happened, once, in plain words, and a button
 * that reloads the record (the server's own text says the same in its terms, so it is not repeated). `reload`
 * answers whether it did; the button stays usable when it did not.
 */
export function conflictBox(noun: string, reload: () => Promise<boolean>): HTMLElement {
  const button = h('button', { type: 'button', class: 'primary', id: 'conflict-reload' }, `Reload the ${noun}`);
  button.addEventListener('click', async () => {
    button.disabled = true;
    if (!(await reload())) button.disabled = false;
  });
  return h('div', { class: 'message-box conflict', role: 'alert', id: 'conflict', tabindex: '-1' },
    h('h2', {}, `Someone else changed this ${noun}`),
    h('p', {}, `Your changes were not saved: someone saved this ${noun} after you opened it. Reload it to see their version, then make your changes again.`),
    h('div', { class: 'actions' }, button));
}

/** A message box listing what the server said (`role="alert"`, so it is announced when it appears). */
export function messageBox(messages: ErrorMessage[], heading?: string): HTMLElement {
  return h('div', { class: 'message-box error', role: 'alert' },
    heading ? h('p', { class: 'message-heading' }, heading) : null,
    messages.length === 1 && !heading
      ? h('p', {}, messages[0].message)
      : h('ul', {}, messages.map((m) => h('li', { 'data-code': m.code }, m.message))));
}

/** A labelled form field with its hint and the place its error message goes (`aria-describedby` both). */
export interface Field<E extends HTMLElement> {
  /** The text of its label, which messages about the field use for its name. */
  label: string;
  wrap: HTMLElement;
  control: E;
  error: HTMLElement;
  setError(text: string | undefined): void;
}

export function field<E extends HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement>(id: string, label: string, control: E, hint?: string | HTMLElement): Field<E> {
  control.id = id;
  const hintEl = hint === undefined ? null : h('p', { class: 'hint', id: `${id}-hint` }, hint);
  const error = h('p', { class: 'field-error', id: `${id}-error`, hidden: true });
  const describe = (withError: boolean) => {
    const ids = [hintEl ? `${id}-hint` : '', withError ? `${id}-error` : ''].filter(Boolean).join(' ');
    if (ids) control.setAttribute('aria-describedby', ids);
    else control.removeAttribute('aria-describedby');
  };
  describe(false);
  const checkbox = control instanceof HTMLInputElement && control.type === 'checkbox';
  const labelEl = h('label', { for: id }, label);
  const wrap = checkbox
    ? h('div', { class: 'field checkbox' }, control, labelEl, hintEl, error)
    : h('div', { class: 'field' }, labelEl, hintEl, control, error);
  wrap.dataset.field = id;
  return {
    label, wrap, control, error,
    setError(text) {
      error.textContent = text ?? '';
      error.hidden = !text;
      wrap.classList.toggle('invalid', !!text);
      if (text) control.setAttribute('aria-invalid', 'true');
      else control.removeAttribute('aria-invalid');
      describe(!!text);
    },
  };
}

/** An ISO 8601 date or instant in a server message (`2024-11-15`, `2024-11-15T00:00:00.000Z`). */
const ISO_DATE = /\b\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:\d{2}))?\b/g;

/**
 * A server message about a field in the form's words: the API names the property by its wire name
 * ("shipDate cannot be before the order date (2024-11-15).") and writes dates in ISO 8601; the form says
 * "Ship date cannot be before the order date (15 Nov 2024).", as its label and the page's dates read.
 */
export function fieldMessage(m: ErrorMessage, label: string): string {
  const name = m.property?.split(/[.[]/)[0] ?? '';
  const text = name && m.message.toLowerCase().startsWith(name.toLowerCase()) ? label + m.message.slice(name.length) : m.message;
  return text.replace(ISO_DATE, (iso) => {
    const date = new Date(iso.length === 10 ? `${iso}T00:00:00Z` : iso);
    return Number.isNaN(date.getTime()) ? iso : showDay(date);
  });
}

/**
 * Puts each message about one of `fields` (keyed by lower-case property name) next to it, in the form's words; the
 * first message wins a field. Answers the messages about no field, for the box above the form.
 */
export function showFieldErrors(errors: ErrorMessage[], fields: Record<string, Field<HTMLElement>>): ErrorMessage[] {
  return errors.filter((m) => {
    const target = m.property ? fields[m.property.split(/[.[]/)[0].toLowerCase()] : undefined;
    if (target && !target.error.textContent) target.setError(fieldMessage(m, target.label));
    return !target;
  });
}

/**
 * Makes a form's fields read-only (or editable again) for a user who may not change the record: text fields stay
 * focusable and readable (`readonly`); lists, checkboxes and dates, which `readonly` does not stop, are disabled.
 */
export function setReadOnly(controls: (HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement)[], readOnly: boolean): void {
  for (const control of controls) {
    const locked = control instanceof HTMLSelectElement || (control instanceof HTMLInputElement && (control.type === 'checkbox' || control.type === 'date'));
    if (locked) control.disabled = readOnly;
    else control.readOnly = readOnly;
  }
}

/** Said instead of a screen the user's permissions do not allow (reached by its address, since no link offers it). */
export function notAllowed(text: string): HTMLElement {
  return h('p', { class: 'message-box info', id: 'not-allowed' }, text);
}
