import { type Change, Decimal, type Kysely, Output, type StorageDialect, action, child, currentErrors, field, message, resource, serviceModule } from 'restlayer';
import { customer } from '../../services/customer/customer.js';

/**
 * Test-only: a header + lines resource declared the way a team would write an invoice (issue 39), to test what the
 * sample's orders do not use: an action with its own permission, input, audit operation, route and proxy method, and
 * a multi-word one (markPaid, whose wire names are mark-paid); a rule with the record before and after ("a paid
 * invoice cannot change"), which its lines' writes meet too; the service's own code wrapping a default operation
 * (delete); references a PATCH may change to a soft-deletable customer.
 */
type Paid = { paid?: boolean };

/** A paid invoice cannot change: a message on the record, nothing written. Paying it is the `pay` action's own check. */
function paidStays({ operation, before, fail }: Change<Paid>): void {
  if (before?.paid && operation !== 'pay') fail('Invoice_Paid', 'A paid invoice cannot change.');
}

/** When its lines last changed: a rule of the invoice's that sets a field, run by its lines' writes too. */
function linesChanged({ operation, after, now }: Change<{ linesChangedOn?: Date }>): void {
  if (operation.startsWith('line-')) after.linesChangedOn = now;
}

const lines = child({
  item: 'line',
  fields: {
    description: field.text({ max: 50 }).required(),
    quantity: field.integer({ min: 1, max: 1000 }).required(),
    unitPrice: field.money({ min: 0 }).required(),
    lineTotal: field.money().derived(['quantity', 'unitPrice'], (v) => new Decimal(v.quantity).times(v.unitPrice), { reportOn: 'unitPrice' }),
    /** Where the line ships, when not to the invoice's customer: a reference of a child, resolved per line. */
    shipTo: field.reference(customer),
  },
});

export const invoice = resource({
  name: 'invoice',
  fields: {
    number: field.text({ max: 25 }).derived(['invoiceId'], (v) => `INV${v.invoiceId}`).sortable().filter(),
    customerId: field.reference(customer).required().createOnly(),
    customerName: field.via('customerId', customer.fields.name).sortable(),
    /** Who pays, when not the customer: a reference an update may change (customerId is create-only). */
    billTo: field.reference(customer),
    paid: field.boolean().readOnly().initially(false).filter(),
    paidOn: field.date().readOnly(),
    linesChangedOn: field.date().readOnly(),
    subTotal: field.money().sum('lines', 'lineTotal'),
    freight: field.money({ min: 0 }).default(0),
    /** A lookup with text ids whose table the declaration itself brings (`lookups` below). */
    currencyCode: field.lookup('invoice-currency', { id: 'text', max: 3 }).default('EUR').filter(),
    totalDue: field.money().derived(['subTotal', 'freight'], (v) => new Decimal(v.subTotal).plus(v.freight)).sortable(),
  },
  children: { lines },
  lookups: {
    'invoice-currency': {
      caseSensitive: true,
      entries: [{ id: 'EUR', text: 'Euro' }, { id: 'USD', text: 'US dollar', attributes: { symbol: '$' } }, { id: 'FRF', text: 'French franc', isActive: false }],
    },
  },
  rules: [paidStays, linesChanged],
  actions: {
    pay: action({
      input: { paidOn: field.date().required() },
      summary: 'Record that an invoice is paid; a paid one cannot change after.',
      run({ before, after, input, fail }) {
        if (before?.paid) fail('Invoice_AlreadyPaid', 'The invoice is paid already.');
        after.paid = true;
        after.paidOn = input.paidOn;
      },
    }),
    // A multi-word action: its key markPaid is its method (routes.markPaid, proxy.markPaid); its path, default
    // permission and audit operation are mark-paid. Paid today, no input; the rule refuses it for a paid invoice.
    markPaid: action({
      run({ after, now }) {
        after.paid = true;
        after.paidOn = now;
      },
    }),
  },
  service: (defaults) => ({
    /**
     * The default delete, refused for a paid invoice (read first: its answer is the default's own 404 when unknown).
     * Deleted at the revision read (or the caller's): one paid meanwhile is then a 409, not deleted unseen.
     */
    async delete(id: number, revisionNumber?: number) {
      const current = await defaults.read(id);
      if (!current.result) return Output.of();
      if (!current.result.paid) return defaults.delete(id, revisionNumber ?? current.result.revisionNumber);
      currentErrors().add(message('Validation', 'Invoice_Paid', 'A paid invoice cannot be deleted.', { status: 409 }));
      return Output.of();
    },
  }),
});

/** The invoice tables, on either store. */
export const invoiceModule = serviceModule({
  name: 'invoice-test',
  resources: [invoice],
  migrations: (dialect: StorageDialect) => ({
    '0001-invoice': {
      async up(db: Kysely<unknown>) {
        const { date, bool, money } = dialect.types;
        await db.schema.createTable('invoice')
          .addColumn('invoice_id', 'integer', (c) => dialect.identity(c))
          .addColumn('number', 'varchar(25)', (c) => c.notNull())
          .addColumn('customer_id', 'integer', (c) => c.notNull().references('customer.customer_id'))
          .addColumn('bill_to', 'integer', (c) => c.references('customer.customer_id'))
          .addColumn('paid', bool, (c) => c.notNull())
          .addColumn('paid_on', date)
          .addColumn('lines_changed_on', date)
          .addColumn('sub_total', money, (c) => c.notNull())
          .addColumn('freight', money, (c) => c.notNull())
          .addColumn('currency_code', 'varchar(3)')
          .addColumn('total_due', money, (c) => c.notNull())
          .addColumn('revision_number', 'integer', (c) => c.notNull())
          .addColumn('modified_date', date, (c) => c.notNull())
          .execute();
        await db.schema.createTable('invoice_line')
          .addColumn('invoice_line_id', 'integer', (c) => dialect.identity(c))
          .addColumn('invoice_id', 'integer', (c) => c.notNull().references('invoice.invoice_id'))
          .addColumn('description', 'varchar(50)', (c) => c.notNull())
          .addColumn('quantity', 'integer', (c) => c.notNull())
          .addColumn('unit_price', money, (c) => c.notNull())
          .addColumn('line_total', money, (c) => c.notNull())
          .addColumn('ship_to', 'integer', (c) => c.references('customer.customer_id'))
          .execute();
        await db.schema.createIndex('ix_invoice_line_invoice_id').on('invoice_line').column('invoice_id').execute();
      },
    },
  }),
});
