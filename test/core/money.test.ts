import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { CompiledQuery } from 'kysely';
import { Decimal, type Kysely, type ListCriteria, fractionDigits, listSql, money, roundMoney } from 'restlayer';
import { type TestServer, expectError, expectOk, startTestServer, testProvider } from 'restlayer/testing';
import { moneyProbe, moneyProbeModule } from '../support/money-probe/module.js';
import { describeStores } from '../support/stores.js';

/**
 * Contract part 3, "Amounts", through a declared probe with one money column (test/support/money-probe/): inputs with
 * more fractional digits, not finite or out of range are a 400 on the property; sums are decimal; the stored amount
 * (SQLite: integer ten-thousandths, PostgreSQL: numeric(15,4)) reads back exactly, and criteria, sorting, cursors and
 * counts on it are exact and served by its index. docs/money.md.
 */
describeStores(`money: exact amounts (${testProvider})`, function () {
  this.timeout(60_000);
  let server: TestServer;
  let run = 0;
  /** A label of its own per test, so each test lists only its rows. */
  const label = () => `probe-${++run}`;

  before(async () => {
    server = await startTestServer({
      application: { modules: [moneyProbeModule], routesDir: fileURLToPath(new URL('../support/money-probe/routes/', import.meta.url)) },
    });
  });
  after(async () => server?.stop());

  const create = (body: Record<string, unknown> | string) => server.call('/money-probe', { method: 'POST', body });
  const store = async (name: string, amounts: number[]) => {
    for (const amount of amounts) expectOk(await create({ label: name, amount }), 201);
  };
  const list = async (name: string, query: string) => {
    const reply = await server.call(`/money-probe?label=${name}&${query}`);
    return expectOk<{ probeId: number; amount: number }[]>(reply);
  };
  const amounts = async (name: string, query: string) => (await list(name, query)).result!.map((r) => r.amount);

  describe('input', () => {
    it('refuses more fractional digits than the scale, on the property, counted in the shortest form (1e-7 has 7)', async () => {
      for (const amount of [1.23456, 0.00001, 1e-7, 123.45678]) {
        const m = expectError(await create({ label: 'x', amount }), 400, 'Input_TooManyDecimals', 'amount');
        expect(m.message).to.equal('amount must have at most 4 digits after the decimal point.');
      }
      // A field of scale 2 (fee) says its own.
      const fee = expectError(await create({ label: 'x', amount: 1, fee: 10.125 }), 400, 'Input_TooManyDecimals', 'fee');
      expect(fee.message).to.equal('fee must have at most 2 digits after the decimal point.');
      // Trailing zeros are no digits: 1.50000 is the number 1.5.
      expectOk(await create('{"label":"x","amount":1.50000}'), 201);
    });

    it('refuses text, non-finite numbers and amounts beyond the range or the precision, each on its property', async () => {
      expectError(await create({ label: 'x', amount: '12.5' }), 400, 'Input_InvalidType', 'amount');
      expectError(await create({ label: 'x', amount: 'NaN' }), 400, 'Input_InvalidType', 'amount');
      const flag = expectError(await create({ label: 'x', amount: true }), 400, 'Input_InvalidType', 'amount');
      expect(flag.message).to.equal('amount must be a number.');
      // JSON.parse reads 1e400 as Infinity.
      const infinite = expectError(await create('{"label":"x","amount":1e400}'), 400, 'Input_InvalidType', 'amount');
      expect(infinite.message).to.equal('amount must be a finite number.');
      // 15 digits, 4 of them fractional: 11 whole digits at most.
      const big = expectError(await create({ label: 'x', amount: 100_000_000_000 }), 400, 'Input_OutOfRange', 'amount');
      expect(big.message).to.equal('amount must be between -99999999999.9999 and 99999999999.9999.');
      expectError(await create({ label: 'x', amount: 1, fee: -0.01 }), 400, 'Input_OutOfRange', 'fee');
      expectError(await create({ label: 'x', amount: 1, fee: 1000.01 }), 400, 'Input_OutOfRange', 'fee');
    });

    it('reports every bad amount at once, inside arrays too, and stores nothing', async () => {
      const name = label();
      const reply = await create({ label: name, parts: [0.1, 0.00001, 'x'], fee: 0.001 });
      expect(reply.status).to.equal(400);
      expect(reply.body.messages.map((m) => [m.property, m.code])).to.have.deep.members([
        ['parts[1]', 'Input_TooManyDecimals'], ['parts[2]', 'Input_InvalidType'], ['fee', 'Input_TooManyDecimals'],
      ]);
      expect(await amounts(name, '')).to.deep.equal([]);
    });

    it('list criteria take amounts as text, with the same rules, on the criterion', async () => {
      expectError(await server.call('/money-probe?amount=0.12345'), 400, 'Input_TooManyDecimals', 'amount');
      expectError(await server.call('/money-probe?amount=abc'), 400, 'Input_InvalidType', 'amount');
      expectError(await server.call('/money-probe?amount=1e400'), 400, 'Input_InvalidType', 'amount');
      expectError(await server.call('/money-probe?amount=1e12'), 400, 'Input_OutOfRange', 'amount');
    });
  });

  describe('arithmetic and storage', () => {
    it('0.1 + 0.2 + 0.3 summed in decimal is stored as 0.6 and found by amount=0.6', async () => {
      expect(0.1 + 0.2 + 0.3, 'binary floating point').to.not.equal(0.6);
      const name = label();
      const created = expectOk<{ probeId: number; amount: number }>(await create({ label: name, parts: [0.1, 0.2, 0.3] }), 201);
      expect(created.result!.amount).to.equal(0.6);
      const read = expectOk<{ amount: number }>(await server.call(`/money-probe/${created.result!.probeId}`));
      expect(read.result!.amount).to.equal(0.6);
      expect(await amounts(name, 'amount=0.6')).to.deep.equal([0.6]);
      expect(await amounts(name, 'amount.operator=EQ&amount=0.60')).to.deep.equal([0.6]);
      // The binary sum is another number, with more digits than an amount has.
      expectError(await server.call(`/money-probe?label=${name}&amount=0.6000000000000001`), 400, 'Input_TooManyDecimals', 'amount');
    });

    it('the store sums amounts exactly: rows of 0.1, 0.2 and 0.3 total 0.6 (and no rows total 0)', async () => {
      const name = label();
      await store(name, [0.1, 0.2, 0.3]);
      expect(expectOk<{ total: number; count: number }>(await server.call(`/money-probe-sum?label=${name}`)).result).to.deep.equal({ total: 0.6, count: 3 });
      expect(expectOk<{ total: number }>(await server.call('/money-probe-sum?label=none')).result!.total).to.equal(0);
    });

    it('an amount computed too large to keep is a 400 Amount_TooLarge on the property the service names, and nothing is stored', async () => {
      const name = label();
      const m = expectError(await create({ label: name, parts: [99999999999.9999, 0.0001] }), 400, 'Amount_TooLarge', 'parts');
      expect(m.message).to.equal('An amount of 100000000000 is too large to keep: amounts must be below 100000000000 (11 digits before the decimal point).');
      expectError(await create({ label: name, parts: [-99999999999.9999, -99999999999.9999] }), 400, 'Amount_TooLarge', 'parts');
      expect(await amounts(name, '')).to.deep.equal([]);
    });

    it('amounts round-trip exactly, at the edges of the precision and the scale', async () => {
      const name = label();
      const edges = [12345678901.2345, 99999999999.9999, -99999999999.9999, 0.0001, -0.0001, 0, 0.07, 1234.5, -42];
      for (const amount of edges) {
        const created = expectOk<{ probeId: number; amount: number }>(await create({ label: name, amount }), 201);
        expect(created.result!.amount, String(amount)).to.equal(amount);
        const read = await server.call(`/money-probe/${created.result!.probeId}`);
        expect(read.text).to.include(`"amount":${JSON.stringify(amount)}`);
      }
      for (const amount of edges) expect(await amounts(name, `amount=${amount}`), String(amount)).to.deep.equal([amount]);
    });

    it("a line's total is computed in decimal and rounded half away from zero to 4 digits", async () => {
      const line = async (orderQty: number, unitPrice: number, unitPriceDiscount: number) =>
        expectOk<{ lineTotal: number }>(await server.call('/money-probe-line', { method: 'POST', body: { orderQty, unitPrice, unitPriceDiscount } })).result!.lineTotal;
      expect(3 * 0.1, 'binary floating point').to.not.equal(0.3);
      expect(await line(3, 0.1, 0)).to.equal(0.3);
      expect(await line(1, 0.0005, 0.5)).to.equal(0.0003, '0.00025 rounds up');
      expect(await line(1, 0.0001, 0.5)).to.equal(0.0001, '0.00005 rounds up');
      expect(await line(3, 33.3333, 0.1)).to.equal(89.9999, '89.99991');
      expect(await line(7, 19.99, 0.15)).to.equal(118.9405);
      expect(await line(32767, 99999.9999, 0)).to.equal(3276699996.7233);
    });
  });

  describe('criteria, sorting, cursors and counts', () => {
    const stored = [0.3, 0.1, 0.2, 1.0001, 1.0002, 10, -5.5, 0.0001, 99999999999.9999];
    const ascending = [...stored].sort((a, b) => a - b);
    let name: string;
    before(async () => {
      name = label();
      await store(name, stored);
    });

    it('sorts exactly, both ways', async () => {
      expect(await amounts(name, 'sort[0].fieldName=amount')).to.deep.equal(ascending);
      expect(await amounts(name, 'sort[0].fieldName=amount&sort[0].sortDirection=Descending')).to.deep.equal([...ascending].reverse());
    });

    const cases: [string, (a: number) => boolean][] = [
      ['amount=0.1&amount=0.3', (a) => a >= 0.1 && a <= 0.3],
      ['amount.operator=NBW&amount=0.1&amount=0.3', (a) => a < 0.1 || a > 0.3],
      ['amount.operator=GT&amount=1.0001', (a) => a > 1.0001],
      ['amount.operator=GE&amount=1.0001', (a) => a >= 1.0001],
      ['amount.operator=LT&amount=0.2', (a) => a < 0.2],
      ['amount.operator=LE&amount=0.2', (a) => a <= 0.2],
      ['amount.operator=NEQ&amount=0.3', (a) => a !== 0.3],
      ['amount.operator=In&amount=0.1&amount=10&amount=-5.5', (a) => [0.1, 10, -5.5].includes(a)],
      ['amount.operator=NIn&amount=0.1&amount=10', (a) => ![0.1, 10].includes(a)],
      ['amount=99999999999.9999', (a) => a === 99999999999.9999],
      ['amount.operator=NNL', () => true],
      ['amount.operator=NL', () => false],
    ];
    for (const [query, predicate] of cases) {
      it(`${query}: exactly the amounts it names, and their count`, async () => {
        const answer = await list(name, `${query}&sort[0].fieldName=amount&getTotalCount=true`);
        const expected = ascending.filter(predicate);
        expect(answer.result!.map((r) => r.amount)).to.deep.equal(expected);
        expect(answer.totalCount).to.equal(expected.length);
      });
    }

    it('pages by cursor through the amounts in order, and the kept count follows a new row', async () => {
      const seen: number[] = [];
      let cursor = '';
      for (let page = 0; page < 10; page++) {
        const answer = await list(name, `sort[0].fieldName=amount&take=2&cursor=${encodeURIComponent(cursor)}`);
        seen.push(...answer.result!.map((r) => r.amount));
        if (!answer.nextCursor) break;
        cursor = answer.nextCursor;
      }
      expect(seen).to.deep.equal(ascending);
      const count = async () => (await list(name, 'amount.operator=GT&amount=0.2&getTotalCount=true&take=0')).totalCount;
      expect(await count()).to.equal(ascending.filter((a) => a > 0.2).length);
      await store(name, [0.2001]);
      expect(await count()).to.equal(ascending.filter((a) => a > 0.2).length + 1);
    });
  });

  it('a range of amounts is served by the index on the money column', async () => {
    const storage = server.infrastructure.storage;
    // The SQL GET /money-probe runs: the declared list, with criteria parsed as the route parses its query.
    const parsed = moneyProbe.models.criteria.parse(new URLSearchParams('amount.operator=BW&amount=0.1&amount=0.3&sort[0].fieldName=amount'));
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.messages));
    const { keys } = listSql(moneyProbe.list, parsed.value as ListCriteria<string>, storage.dialect, 10);
    const query = keys.compile(storage.db);
    const db = storage.db as unknown as Kysely<unknown>;
    let plan: string;
    if (testProvider === 'postgres') {
      // A table of a few rows is read whole by choice; with that choice taken away, the plan shows that the index can seek.
      plan = await db.transaction().execute(async (trx) => {
        await trx.executeQuery(CompiledQuery.raw('set local enable_seqscan = off'));
        const { rows } = await trx.executeQuery<{ 'QUERY PLAN': string }>(CompiledQuery.raw(`explain ${query.sql}`, [...query.parameters]));
        return rows.map((r) => r['QUERY PLAN']).join('\n');
      });
      expect(plan).to.match(/Index Cond: \(\(amount >= .*\) AND \(amount <= .*\)\)/);
    } else {
      const { rows } = await db.executeQuery<{ detail: string }>(CompiledQuery.raw(`explain query plan ${query.sql}`, [...query.parameters]));
      plan = rows.map((r) => r.detail).join('\n');
      expect(plan).to.match(/SEARCH money_probe USING COVERING INDEX ix_money_probe_amount \(amount>\? AND amount<\?\)/);
    }
    expect(query.parameters.slice(0, 2), 'bound as the column keeps them').to.deep.equal(testProvider === 'postgres' ? ['0.1000', '0.3000'] : [1000, 3000]);
  });

  it('the OpenAPI document gives an amount as a number with its range, scale and precision', async () => {
    const reply = await server.call('/openapi.json');
    expect(reply.status).to.equal(200);
    // Every schema object of the document that has the probe's `fee` property (the body of POST /money-probe).
    const schemas: Record<string, Record<string, unknown>>[] = [];
    const walk = (node: unknown): void => {
      if (typeof node !== 'object' || node === null) return;
      const properties = (node as { properties?: Record<string, Record<string, unknown>> }).properties;
      if (properties?.fee) schemas.push(properties);
      for (const child of Object.values(node)) walk(child);
    };
    walk(JSON.parse(reply.text));
    expect(schemas).to.have.length.greaterThan(0);
    const [body] = schemas;
    expect(body.amount).to.deep.include({ type: ['number', 'null'], minimum: -99999999999.9999, maximum: 99999999999.9999, 'x-scale': 4, 'x-precision': 15 });
    expect(body.fee).to.deep.include({ type: ['number', 'null'], minimum: 0, maximum: 1000, 'x-scale': 2 });
    expect(body.amount).to.not.have.property('multipleOf');
    // No format: strict validators (Postman's) refuse one they do not know (third-party.test.ts validates as Postman does).
    expect(body.amount).to.not.have.property('format');
    // The criterion's values are amounts too.
    const parameters = JSON.parse(reply.text).result.paths['/money-probe'].get.parameters as { name: string; schema: { items?: Record<string, unknown> } }[];
    expect(parameters.find((p) => p.name === 'amount')!.schema.items).to.deep.include({ type: 'number', 'x-scale': 4 });
  });

  it('a money field that asks for more than a money column keeps is a mistake of the model, thrown where it is defined', () => {
    expect(() => money({ scale: 5 })).to.throw(RangeError, /scale/);
    expect(() => money({ precision: 16 })).to.throw(RangeError, /precision/);
    expect(() => money({ min: 2, max: 1 })).to.throw(RangeError, /min/);
  });

  it('roundMoney and Decimal.roundHalfUp round half away from zero, negatives too', () => {
    expect([0.00025, -0.00025, 1.00005, -1.00005, 2.5e-5, 0.00024].map((n) => roundMoney(n))).to.deep.equal([0.0003, -0.0003, 1.0001, -1.0001, 0, 0.0002]);
    expect(roundMoney(new Decimal('0.125'), 2)).to.equal(0.13);
    const sum: Decimal = new Decimal(0.1).plus(0.2);
    expect(sum.round(4, Decimal.roundHalfUp).toNumber()).to.equal(0.3);
  });

  it('fractionDigits counts the digits of the shortest decimal form', () => {
    expect([0.1, 1e-7, 1.5e-5, 1e21, 12345678901.2345, -0.0001, 5].map(fractionDigits)).to.deep.equal([1, 7, 6, 0, 4, 4, 0]);
  });
});
