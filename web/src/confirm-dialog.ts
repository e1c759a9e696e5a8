import { h } from './dom.js';

/** What a delete confirmation needs: its words, and what the confirming button does. */
export interface ConfirmOptions {
  /** The dialog's heading: "Delete this customer?". */
  heading: string;
  /** The safe choice, focused first: "Keep the customer". */
  keepLabel: string;
  /** The button that runs `confirm` ("Yes, delete it"). */
  confirmLabel: string;
  /** The button on the screen that opens the dialog, where focus returns when it is dismissed. */
  opener: HTMLElement;
  /**
   * Runs when the user confirms; the dialog stays open (its button disabled) until it settles. It answers what to show
   * once the dialog has closed (the page outside a modal dialog cannot take focus while it is open), which then takes
   * focus itself; or undefined when nothing happened (the session ended: the login form replaces the screen).
   */
  confirm(): Promise<(() => void) | undefined>;
}

export interface ConfirmDialog {
  readonly el: HTMLDialogElement;
  /** Opens the dialog (modal) with this text. */
  open(text: string): void;
  close(): void;
}

/**
 * A delete confirmation: a modal `<dialog>` (focus stays in it, Escape cancels) whose safe choice is focused first;
 * however it is dismissed, focus returns to the button that opened it.
 */
export function confirmDialog(opts: ConfirmOptions): ConfirmDialog {
  const confirmButton = h('button', { type: 'button', class: 'danger', id: 'delete-confirm' }, opts.confirmLabel);
  const keep = h('button', { type: 'button', class: 'secondary', id: 'delete-cancel', autofocus: true }, opts.keepLabel);
  const text = h('p', { id: 'delete-dialog-text' });
  const el = h('dialog', { class: 'confirm-dialog', id: 'delete-dialog', 'aria-labelledby': 'delete-dialog-heading', 'aria-describedby': 'delete-dialog-text' },
    h('h2', { id: 'delete-dialog-heading' }, opts.heading), text, h('div', { class: 'actions' }, keep, confirmButton));

  keep.addEventListener('click', () => el.close());
  // The close event comes after the outcome was shown (it is queued), so the outcome's focus is decided before it.
  let outcomeTakesFocus = false;
  el.addEventListener('close', () => {
    if (!outcomeTakesFocus && opts.opener.isConnected) opts.opener.focus();
    outcomeTakesFocus = false;
  });
  confirmButton.addEventListener('click', async () => {
    confirmButton.disabled = true;
    let outcome: (() => void) | undefined;
    try {
      outcome = await opts.confirm();
    } finally {
      confirmButton.disabled = false;
    }
    if (!outcome) return;
    outcomeTakesFocus = true;
    el.close();
    outcome();
  });

  return {
    el,
    open(value) {
      text.textContent = value;
      el.showModal();
    },
    close() {
      if (el.open) el.close();
    },
  };
}
