import type { ErrorMessage } from '../../lib/envelope/error-message.js';
import { h } from './dom.js';

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
 * The box a save that lost to someone else's change shows (a 409): what happened, the server's text, and a button
 * that reloads the record. `reload` answers whether it did; the button stays usable when it did not.
 */
export function conflictBox(noun: string, messages: ErrorMessage[], reload: () => Promise<boolean>): HTMLElement {
  const button = h('button', { type: 'button', class: 'primary', id: 'conflict-reload' }, `Reload the ${noun}`);
  button.addEventListener('click', async () => {
    button.disabled = true;
    if (!(await reload())) button.disabled = false;
  });
  return h('div', { class: 'message-box conflict', role: 'alert', id: 'conflict', tabindex: '-1' },
    h('h2', {}, `Someone else changed this ${noun}`),
    h('p', {}, `Your changes were not saved, because the ${noun} was changed after you opened it. `,
      'Reload it to see the current version, then make your changes again.'),
    h('p', { class: 'server-text' }, messages.map((m) => m.message).join(' ')),
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
    wrap, control, error,
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
