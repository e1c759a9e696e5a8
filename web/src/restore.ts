import type { FieldCriterion, Output } from 'restlayer/client';
import { errorsOf, guarded } from './api.js';
import { focusElement, h } from './dom.js';
import { type Field, field, messageBox } from './view.js';

/**
 * The list criterion of the deleted view (contract part 13, `deleted=true`). The declared criteria types do not name
 * `deleted` (it is added to a soft-deletable resource's criteria at run time), so the list screens add it with this.
 */
export type DeletedCriterion = { deleted?: FieldCriterion<boolean> };
export const DELETED_ONLY: FieldCriterion<boolean> = { operator: 'EQ', values: [true] };

/** A deleted record a list row shows, in the words its Restore button and outcome use. */
export interface DeletedRecord {
  /** `Browser Bikes (customer number 30120)`, `Order SO75124 of Browser Bikes`. */
  text: string;
  /** Where the record is once restored. */
  href: string;
}

/** Where a list screen shows what a restore did, and how it lists again. */
export interface RestoreTarget {
  /** Replaced by the outcome: a message box (alert) when refused, a notice (status) when restored. */
  outcome: HTMLElement;
  /** Lists the page again (the restored record leaves the deleted list); resolves once it shows. */
  reload(): Promise<void>;
}

/**
 * The Restore button of a deleted record's row. A refusal (a 409 Entity_Duplicate when its unique value was taken
 * meanwhile, an order whose customer is deleted, a 404 when someone restored it first) shows the server's messages and
 * takes focus; a restore lists the page again, without the record, and says so with a link to it. The button's name
 * holds the record's, since every row has one (`Restore Browser Bikes (customer number 30120)`).
 */
export function restoreButton(record: DeletedRecord, restore: () => Promise<Output<unknown>>, target: RestoreTarget): HTMLButtonElement {
  const button = h('button', { type: 'button', class: 'secondary restore', 'aria-label': `Restore ${record.text}` }, 'Restore');
  button.addEventListener('click', async () => {
    button.disabled = true;
    target.outcome.replaceChildren();
    const output = await guarded(restore());
    // undefined: the session ended, and the login form replaces the screen.
    if (!output) return;
    const errors = errorsOf(output);
    if (errors.length) {
      button.disabled = false;
      const box = messageBox(errors, `${record.text} was not restored.`);
      box.id = 'restore-refused';
      target.outcome.replaceChildren(box);
      focusElement(box);
      return;
    }
    await target.reload();
    const notice = h('p', { class: 'message-box info', role: 'status', id: 'restored' },
      `${record.text} was restored. `, h('a', { href: record.href }, 'Open it'), '.');
    target.outcome.replaceChildren(notice);
    // The button went with its row: focus goes to what happened.
    focusElement(notice);
  });
  return button;
}

/** The filter that switches a list to its deleted records: a checkbox of the filter form, applied as the others are. */
export function deletedFilter(plural: string): Field<HTMLInputElement> {
  return field('filter-deleted', `Deleted ${plural}`, h('input', { type: 'checkbox', name: 'deleted' }),
    `Lists the deleted ${plural}, which can be restored, instead of the others`);
}
