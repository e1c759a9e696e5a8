import {
  type Criteria, Decimal, type DbMoney, type Generated, type Kysely, type LayerServices, type ListDefinition, type ListLimits, Output,
  type Storage, defineCriteria, criterion, integer, listIndexes, listLimits, model, money, readListRows, routeFor, roundMoney, serviceModule, sql, text,
  trackListChanges,
} from 'restlayer';

/**
 * Test-only (docs/money.md): a table with one money column and the service a team would write over it. It stores
 * what it computes in decimal arithmetic (`Decimal`), writes through `values.money`, reads through `values.toMoney`,
 * and lists with `criterion.moneyRange()` criteria, so test/core/money.test.ts can check every step over HTTP, on SQLite
 * (integer ten-thousandths) and PostgreSQL (numeric).
 */
export type MoneyProbeTables = {
  money_probe: { probe_id: Generated<number>; label: string; amount: DbMoney };
};

type ProbeField = 'probeId' | 'label' | 'amount';

const probeList: ListDefinition<ProbeField> = {
  table: 'money_probe', alias: 'mp', id: 'mp.probe_id',
  columns: { probeId: 'mp.probe_id', label: 'mp.label', amount: 'mp.amount' },
  select: ['mp.probe_id', 'mp.label', 'mp.amount'],
  notNull: ['probeId', 'label', 'amount'],
};

export const probeCriteria = defineCriteria({ amount: criterion.moneyRange(), label: criterion.text() }, ['probeId', 'amount'] as const);
export type ProbeCriteria = Criteria<typeof probeCriteria.fields, 'probeId' | 'amount'>;

export interface ProbeRow {
  probeId: number;
  label: string;
  amount: number;
}

export const ProbeRowModel = model({ probeId: integer(), label: text(), amount: money() });

export class MoneyProbeService {
  constructor(private readonly storage: Storage, private readonly limits: ListLimits) {}

  private get db() {
    return this.storage.db.withTables<MoneyProbeTables>();
  }

  private row(r: { probe_id: number; label: string; amount: DbMoney }): ProbeRow {
    return { probeId: r.probe_id, label: r.label, amount: this.storage.values.toMoney(r.amount) };
  }

  /** Stores `amount`, or the sum of `parts` computed in decimal arithmetic (0.1 + 0.2 + 0.3 is 0.6, not 0.6000000000000001). */
  async create(label: string, amount: number | undefined, parts: readonly number[]): Promise<Output<ProbeRow>> {
    const total = amount !== undefined ? new Decimal(amount) : parts.reduce((sum, part) => sum.plus(part), new Decimal(0));
    const { probe_id } = await this.db.insertInto('money_probe')
      .values({ label, amount: this.storage.values.money(total, amount !== undefined ? 'amount' : 'parts') })
      .returning('probe_id')
      .executeTakeFirstOrThrow();
    return this.read(probe_id);
  }

  async read(probeId: number): Promise<Output<ProbeRow>> {
    const r = await this.db.selectFrom('money_probe').select(['probe_id', 'label', 'amount']).where('probe_id', '=', probeId).executeTakeFirstOrThrow();
    return Output.of(this.row(r));
  }

  async readList(criteria: ProbeCriteria): Promise<Output<ProbeRow[]>> {
    const { rows, totalCount, nextCursor } = await readListRows<ProbeField, { probe_id: number; label: string; amount: DbMoney }>(
      this.storage, probeList, criteria, this.limits);
    return Output.of(rows.map((r) => this.row(r)), totalCount, nextCursor);
  }

  /** The store's own SUM of the rows labelled `label` (exact on both stores), 0 when there are none. */
  async sum(label: string): Promise<Output<{ total: number; count: number }>> {
    const r = await this.db.selectFrom('money_probe')
      .select([sql<DbMoney | null>`sum(amount)`.as('total'), sql<number>`count(*)`.as('count')])
      .where('label', '=', label)
      .executeTakeFirstOrThrow();
    return Output.of({ total: this.storage.values.toMoney(r.total), count: Number(r.count) });
  }

  /** A line's total as the contract computes it: orderQty × unitPrice × (1 − discount), rounded half away from zero. */
  async lineTotal(orderQty: number, unitPrice: number, discount: number): Promise<Output<{ lineTotal: number }>> {
    return Output.of({ lineTotal: roundMoney(new Decimal(orderQty).times(unitPrice).times(new Decimal(1).minus(discount))) });
  }
}

export const moneyProbeModule = serviceModule({
  name: 'money-probe',
  migrations: (dialect) => ({
    '0001-money-probe': {
      async up(db: Kysely<unknown>) {
        await db.schema.createTable('money_probe')
          .addColumn('probe_id', 'integer', (c) => dialect.identity(c))
          .addColumn('label', 'varchar(50)', (c) => c.notNull())
          .addColumn('amount', dialect.types.money, (c) => c.notNull())
          .execute();
        // Ranges and the sort on the amount are served by this index (test/core/money.test.ts reads the plan).
        await listIndexes(db, dialect, 'money_probe', 'probe_id').createListIndex('ix_money_probe_amount', 'amount');
        await trackListChanges(db, dialect, 'money_probe');
      },
    },
  }),
  create: ({ storage, config }) => ({ moneyProbe: new MoneyProbeService(storage, listLimits(config)) }),
});

/** `route` for the probe's routes: they reach the service as `services.moneyProbe`. */
export const probeRoute = routeFor<LayerServices & { moneyProbe: MoneyProbeService }>();
