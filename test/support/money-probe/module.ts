import {
  type DbMoney, Decimal, type Kysely, Output, type ServicesOf, field, integer, listIndexes, model, money, resource, routeFor, roundMoney, serviceModule, sql,
  text, trackListChanges,
} from 'restlayer';

/**
 * Test-only (docs/money.md): a table with one money column, declared, with what the declaration cannot say in its
 * `service`: a create from the decimal sum of parts, the store's own SUM, a line's total. It stores what it computes in
 * decimal arithmetic (`Decimal`), and its declared list takes `moneyRange` criteria on the amount, so
 * test/core/money.test.ts can check every step over HTTP, on SQLite (integer ten-thousandths) and PostgreSQL (numeric).
 */
export const moneyProbe = resource({
  name: 'money-probe',
  key: 'probeId',
  fields: {
    label: field.text({ max: 50 }).required().filter(),
    amount: field.money().required().sortable().filter(),
  },
  service: (defaults, { storage }) => ({
    /**
     * Stores `amount`, or the sum of `parts` computed in decimal arithmetic (0.1 + 0.2 + 0.3 is 0.6, not
     * 0.6000000000000001): a sum beyond the money range is a 400 Amount_TooLarge on `parts`. Answers the record read.
     */
    async createFrom(label: string, amount: number | undefined, parts: readonly number[]) {
      const total = amount !== undefined ? new Decimal(amount) : parts.reduce((sum, part) => sum.plus(part), new Decimal(0));
      // Throws the ServiceError of Amount_TooLarge on the property the total came from, when it is out of range.
      storage.values.money(total, amount !== undefined ? 'amount' : 'parts');
      const created = await defaults.create({ label, amount: total.toNumber() });
      // Nothing created: the create's messages are recorded already (Output.of answers them).
      return created.result ? defaults.read(created.result.probeId) : Output.of<never>();
    },

    /** The store's own SUM of the rows labelled `label` (exact on both stores), 0 when there are none. */
    async sum(label: string): Promise<Output<{ total: number; count: number }>> {
      const { rows } = await sql<{ total: DbMoney | null; count: number | string }>`select sum(amount) as total, count(*) as count
        from money_probe where label = ${label}`.execute(storage.db);
      return Output.of({ total: storage.values.toMoney(rows[0].total), count: Number(rows[0].count) });
    },

    /** A line's total as the contract computes it: orderQty × unitPrice × (1 − discount), rounded half away from zero. */
    async lineTotal(orderQty: number, unitPrice: number, discount: number): Promise<Output<{ lineTotal: number }>> {
      return Output.of({ lineTotal: roundMoney(new Decimal(orderQty).times(unitPrice).times(new Decimal(1).minus(discount))) });
    },
  }),
});

/** What the probe's hand-written routes answer: the record's wire fields. */
export const ProbeRowModel = model({ probeId: integer(), label: text(), amount: money() });

export const moneyProbeModule = serviceModule({
  name: 'money-probe',
  resources: [moneyProbe],
  migrations: (dialect) => ({
    '0001-money-probe': {
      async up(db: Kysely<unknown>) {
        await db.schema.createTable('money_probe')
          .addColumn('probe_id', 'integer', (c) => dialect.identity(c))
          .addColumn('label', 'varchar(50)', (c) => c.notNull())
          .addColumn('amount', dialect.types.money, (c) => c.notNull())
          .addColumn('revision_number', 'integer', (c) => c.notNull())
          .addColumn('modified_date', dialect.types.date, (c) => c.notNull())
          .execute();
        // Ranges and the sort on the amount are served by this index (test/core/money.test.ts reads the plan).
        await listIndexes(db, dialect, 'money_probe', 'probe_id').createListIndex('ix_money_probe_amount', 'amount');
        await trackListChanges(db, dialect, 'money_probe');
      },
    },
  }),
});

const modules = [moneyProbeModule] as const;
/** `route` for the probe's own routes: they reach its service as `services.moneyProbe`. */
export const probeRoute = routeFor<ServicesOf<typeof modules>>();
