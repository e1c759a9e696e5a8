import { expect } from 'chai';
import { action, child } from './declaration.js';
import { field } from './field.js';
import { resource } from './resource.js';

const run = () => {};
const declare = (actions: Record<string, ReturnType<typeof action>>, path?: string) => resource({
  name: 'sales-invoice',
  fields: { paid: field.boolean() },
  children: { lines: child({ item: 'line', ...(path ? { path } : {}), fields: { note: field.text({ max: 9 }) } }) },
  actions,
});

describe('an action\'s names: its key camelCase (methods), its wire names kebab-case (path, permission, audit)', () => {
  it('markPaid is served at mark-paid, needs sales-invoice.mark-paid and is audited as mark-paid; its routes group is its key', () => {
    const invoice = declare({ pay: action({ run }), markPaid: action({ run }), sendReminder2: action({ permission: 'sales-invoice.remind', audit: 'remind', run }) });
    const names = Object.values(invoice.model.actions).map(({ name, path, permission, audit }) => ({ name, path, permission, audit }));
    expect(names).to.deep.equal([
      // A one-word action's names are its key, as before.
      { name: 'pay', path: 'pay', permission: 'sales-invoice.pay', audit: 'pay' },
      { name: 'markPaid', path: 'mark-paid', permission: 'sales-invoice.mark-paid', audit: 'mark-paid' },
      { name: 'sendReminder2', path: 'send-reminder2', permission: 'sales-invoice.remind', audit: 'remind' },
    ]);
    const routes = invoice.routes as unknown as Record<string, { POST: { permission: string; operation: string; summary: string } }>;
    expect(routes.markPaid.POST).to.include({ permission: 'sales-invoice.mark-paid', operation: 'ISalesInvoiceService.markPaid' });
    expect(routes.markPaid.POST.summary).to.match(/^Mark paid a sales invoice;/);
    expect(routes['mark-paid']).to.equal(undefined);
  });

  it('refuses a key that is not camelCase, with an example; and an action whose path is a child collection\'s', () => {
    for (const key of ['MarkPaid', 'mark-paid', 'mark_paid', '2pay']) {
      expect(() => declare({ [key]: action({ run }) })).to.throw(`resource sales-invoice: action ${key}: its name is camelCase, letters and digits with a lower-case letter first (pay, markPaid)`);
    }
    expect(() => declare({ markPaid: action({ run }) }, 'mark-paid')).to.throw('lines: a child collection and an action have one name or path');
  });
});
