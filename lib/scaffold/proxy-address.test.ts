import { expect } from 'chai';
import ts from 'typescript';
import { action } from '../resources/declaration.js';
import { field } from '../resources/field.js';
import { resource } from '../resources/resource.js';
import { proxyAddressEdits } from './proxy-address.js';

const invoice = resource({
  name: 'invoice',
  fields: { paid: field.boolean() },
  actions: { pay: action({ run: () => {} }), refund: action({ run: () => {} }) },
  softDelete: true,
});
const edit = (source: string) => proxyAddressEdits(ts, source, invoice.model);

describe('migration make: the proxy address of what a declaration serves', () => {
  it('adds the actions and softDelete to a one-line address', () => {
    const source = "export const InvoiceProxy = resourceProxy<typeof invoice>({ name: 'invoice', key: 'invoiceId', dates: { modifiedDate: true } });\n";
    expect(edit(source)).to.deep.equal({
      text: "export const InvoiceProxy = resourceProxy<typeof invoice>({ name: 'invoice', key: 'invoiceId', dates: { modifiedDate: true }, actions: { pay: true, refund: true }, softDelete: true });\n",
      added: ['actions.pay', 'actions.refund', 'softDelete'],
    });
  });

  it('adds a multi-word action under its key (markPaid: true), which the proxy serves at its path (mark-paid)', () => {
    const billed = resource({ name: 'bill', fields: { paid: field.boolean() }, actions: { pay: action({ run: () => {} }), markPaid: action({ run: () => {} }) } });
    const source = "export const BillProxy = resourceProxy<typeof bill>({ name: 'bill', key: 'billId', dates: { modifiedDate: true }, actions: { pay: true } });\n";
    expect(proxyAddressEdits(ts, source, billed.model)).to.deep.equal({
      text: "export const BillProxy = resourceProxy<typeof bill>({ name: 'bill', key: 'billId', dates: { modifiedDate: true }, actions: { pay: true, markPaid: true } });\n",
      added: ['actions.markPaid'],
    });
  });

  it('adds a missing action to the listed ones, and a line of its own to an address of one property a line (trailing comma kept)', () => {
    const source = [
      'export const InvoiceProxy = resourceProxy<typeof invoice, \'x\'>({',
      "  name: 'invoice',",
      '  actions: { pay: true },',
      '});',
    ].join('\n');
    expect(edit(source)!.text).to.equal([
      'export const InvoiceProxy = resourceProxy<typeof invoice, \'x\'>({',
      "  name: 'invoice',",
      '  actions: { pay: true, refund: true },',
      '  softDelete: true,',
      '});',
    ].join('\n'));
  });

  it('puts a new line after a comment that ends the line of the last property, and gives that property its comma (no trailing comma)', () => {
    const source = [
      'export const InvoiceProxy = resourceProxy<typeof invoice>({',
      "  name: 'invoice',",
      "  actions: { pay: true, refund: true } // what the declaration serves",
      '});',
    ].join('\n');
    expect(edit(source)!.text).to.equal([
      'export const InvoiceProxy = resourceProxy<typeof invoice>({',
      "  name: 'invoice',",
      "  actions: { pay: true, refund: true }, // what the declaration serves",
      '  softDelete: true',
      '});',
    ].join('\n'));
  });

  it('puts a new property before a block comment after the last one, never inside it, and before a closing brace on its line', () => {
    const source = [
      'resourceProxy<typeof invoice>({',
      "  name: 'invoice',",
      '  actions: { pay: true, refund: true }, /* retired:',
      '  old: true, */',
      '});',
    ].join('\n');
    expect(edit(source)!.text).to.equal([
      'resourceProxy<typeof invoice>({',
      "  name: 'invoice',",
      '  actions: { pay: true, refund: true },',
      '  softDelete: true, /* retired:',
      '  old: true, */',
      '});',
    ].join('\n'));
    expect(edit("resourceProxy<typeof invoice>({\n  name: 'invoice',\n  actions: { pay: true, refund: true } });")!.text)
      .to.equal("resourceProxy<typeof invoice>({\n  name: 'invoice',\n  actions: { pay: true, refund: true },\n  softDelete: true });");
  });

  it('leaves an address that has everything, and a file with no address of this resource', () => {
    expect(edit("resourceProxy<typeof invoice>({ name: 'invoice', actions: { pay: true, refund: true }, softDelete: true });")).to.equal(undefined);
    expect(edit("resourceProxy<typeof customer>({ name: 'customer' });")).to.equal(undefined);
  });
});
