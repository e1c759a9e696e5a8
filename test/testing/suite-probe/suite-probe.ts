import Big from 'big.js';
import { type Change, NOTHING, type WireValue, child, field, resource, sql } from 'restlayer';

/**
 * Test-only resources for resourceSuite (test/testing/resource-suite.test.ts): one field of every input type the
 * suite generates values for, a reference, a read-through, a derived amount, a default, a create-only field and a
 * record scope; and a resource whose rule refuses the values the suite would generate, tested with a `sample`.
 */

/** What a probe refers to: the suite makes its records from its fields too. */
export const suiteOwner = resource({
  name: 'suite-owner',
  fields: {
    name: field.text({ max: 20 }).required().sortable().filter(),
  },
});

/** The probe's lookup table of text ids (grades A, B, C; X is kept but inactive). */
export const SUITE_GRADES = ['A', 'B', 'C'];

export const suiteProbe = resource({
  name: 'suite-probe',
  fields: {
    code: field.text({ max: 12 }).required().sortable().filter().unique(),
    quantity: field.integer({ min: 0, max: 100_000 }).required().sortable().filter(),
    weight: field.decimal().sortable().filter(),
    price: field.money().required().sortable().filter(),
    madeOn: field.date().sortable().filter(),
    active: field.boolean().sortable().filter(),
    grade: field.lookup('suite-grade', { id: 'text', max: 3 }).sortable().filter(),
    ownerId: field.reference(suiteOwner).required().sortable().filter(),
    ownerName: field.via('ownerId', suiteOwner.fields.name),
    serial: field.text({ max: 10 }).createOnly(),
    note: field.text({ max: 20 }).default('none'),
    total: field.money().derived(['quantity', 'price'], (v) => new Big(v.quantity).times(v.price)).sortable(),
  },
  scopes: {
    // The probes of the caller's grade (user attribute `grade`).
    graded: {
      description: "probes whose grade is the caller's user attribute grade",
      where: (alias, attributes) => (attributes.grade ? sql<boolean>`${sql.ref(`${alias}.grade`)} = ${attributes.grade}` : NOTHING),
    },
  },
});

/** A rule the suite's generated values break: a code starts with R-, a quantity is even. */
export const suiteRuled = resource({
  name: 'suite-ruled',
  fields: {
    code: field.text({ max: 12 }).required().sortable().filter().unique(),
    quantity: field.integer().required().sortable().filter(),
  },
  rules: [
    (change) => {
      if (!String(change.after.code).startsWith('R-')) change.fail('SuiteRuled_Code', 'A code starts with R-.', { property: 'code' });
      if (Number(change.after.quantity) % 2) change.fail('SuiteRuled_Quantity', 'A quantity is even.', { property: 'quantity' });
    },
  ],
});

/** A header with lines: the lines' amounts derived, their total kept on the header. */
export const suiteOrder = resource({
  name: 'suite-order',
  fields: {
    reference: field.text({ max: 20 }).required().sortable().filter(),
    totalDue: field.money().sum('lines', 'lineTotal').sortable().filter(),
  },
  children: {
    lines: child({
      item: 'line',
      fields: {
        description: field.text({ max: 40 }).required(),
        quantity: field.integer({ min: 1, max: 1000 }).required(),
        unitPrice: field.money().required(),
        lineTotal: field.money().derived(['quantity', 'unitPrice'], (v) => new Big(v.quantity).times(v.unitPrice)),
      },
    }),
  },
  actions: {
    // Renames the order: its own permission (suite-order.rename), route and audit operation.
    rename: {
      input: { reference: field.text({ max: 20 }).required() },
      // Typed by hand: resource() does not give an action's run its parameter's type from the context.
      run(change: Change & { readonly input: { readonly [name: string]: WireValue | undefined } }) {
        change.after.reference = change.input.reference;
      },
    },
    // A multi-word action: its key renameUpper, its path, permission and audit operation rename-upper.
    renameUpper: {
      input: { reference: field.text({ max: 20 }).required() },
      run(change: Change & { readonly input: { readonly [name: string]: WireValue | undefined } }) {
        change.after.reference = String(change.input.reference).toUpperCase();
      },
    },
  },
  scopes: {
    // The orders whose reference starts with the caller's user attribute prefix.
    prefixed: {
      description: "orders whose reference starts with the caller's user attribute prefix",
      where: (alias, attributes) => (attributes.prefix ? sql<boolean>`${sql.ref(`${alias}.reference`)} like ${`${attributes.prefix}%`}` : NOTHING),
    },
  },
});
