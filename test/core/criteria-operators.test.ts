import { expect } from 'chai';
import { countOrders, expectError, expectOk, qs } from '../support/api.js';
import { type SampleOrder, asListItem, sampleOrder, sampleOrders } from '../support/sample-oracle.js';
import { type TestServer, startTestServer } from '../support/server.js';
import { describeStores } from '../support/stores.js';

const PAGE = 100;
const ALL = 12_000;
const day = (iso: string) => new Date(iso).getTime();
const has = (text: string, part: string) => text.toLowerCase().includes(part.toLowerCase());
const starts = (text: string, part: string) => text.toLowerCase().startsWith(part.toLowerCase());

/**
 * Each case: a query, the predicate it means (applied to the sample data rebuilt in JavaScript), and whether an
 * empty or a full result is the point of the case (otherwise it must select some but not all orders).
 */
type Case = [query: string, predicate: (o: SampleOrder) => boolean, extent?: 'none' | 'all'];

const anOrder = sampleOrder(43700);
const cases: Record<string, Case[]> = {
  'EQ (one value, or the operator named)': [
    ['status=4', (o) => o.status === 4],
    ['status.operator=EQ&status=6', (o) => o.status === 6],
    [qs({ customerName: 'Luis Powell' }), (o) => o.customerName === 'Luis Powell'],
    ['salesOrderNumber=SO43700', (o) => o.salesOrderNumber === 'SO43700'],
    [`totalDue=${anOrder.totalDue}`, (o) => o.totalDue === anOrder.totalDue],
    ['orderDate=2024-11-15', (o) => o.orderDate.getTime() === day('2024-11-15')],
    ['dueDate.operator=EQ&dueDate=2024-11-27T00:00:00Z', (o) => o.dueDate.getTime() === day('2024-11-27')],
    ['territoryId=9', (o) => o.territoryId === 9],
    ['salesPersonId=276', (o) => o.salesPersonId === 276],
    ['onlineOrderFlag=false', (o) => !o.onlineOrderFlag],
  ],
  'NEQ (orders without a value count as not equal)': [
    ['status.operator=NEQ&status=5', (o) => o.status !== 5],
    ['salesPersonId.operator=NEQ&salesPersonId=276', (o) => o.salesPersonId !== 276],
    ['territoryId.operator=NEQ&territoryId=1', (o) => o.territoryId !== 1],
    [qs({ 'customerName.operator': 'NEQ', customerName: 'Luis Powell' }), (o) => o.customerName !== 'Luis Powell'],
    ['onlineOrderFlag.operator=NEQ&onlineOrderFlag=true', (o) => !o.onlineOrderFlag],
  ],
  'In (repeated values of a list field, or the operator named)': [
    ['status=1&status=2', (o) => o.status === 1 || o.status === 2],
    ['status=1&status=2&status=3&status=4', (o) => o.status >= 1 && o.status <= 4],
    ['status.operator=In&status=3', (o) => o.status === 3],
    ['territoryId=1&territoryId=9&territoryId=10', (o) => [1, 9, 10].includes(o.territoryId!)],
    ['salesPersonId=275&salesPersonId=290', (o) => o.salesPersonId === 275 || o.salesPersonId === 290],
    ['salesOrderNumber.operator=In&salesOrderNumber=SO43700&salesOrderNumber=SO50000', (o) => ['SO43700', 'SO50000'].includes(o.salesOrderNumber)],
  ],
  NIn: [
    ['status.operator=NIn&status=5&status=6', (o) => o.status !== 5 && o.status !== 6],
    ['salesPersonId.operator=NIn&salesPersonId=275&salesPersonId=276', (o) => o.salesPersonId !== 275 && o.salesPersonId !== 276],
  ],
  'LT LE GT GE': [
    ['totalDue.operator=LT&totalDue=100', (o) => o.totalDue < 100],
    [`totalDue.operator=LE&totalDue=${anOrder.totalDue}`, (o) => o.totalDue <= anOrder.totalDue],
    [`totalDue.operator=LT&totalDue=${anOrder.totalDue}`, (o) => o.totalDue < anOrder.totalDue],
    ['totalDue.operator=GT&totalDue=50000.5', (o) => o.totalDue > 50000.5],
    [`totalDue.operator=GE&totalDue=${anOrder.totalDue}`, (o) => o.totalDue >= anOrder.totalDue],
    ['orderDate.operator=LT&orderDate=2021-06-01', (o) => o.orderDate.getTime() < day('2021-06-01')],
    ['orderDate.operator=LE&orderDate=2021-06-01', (o) => o.orderDate.getTime() <= day('2021-06-01')],
    ['orderDate.operator=GT&orderDate=2025-12-01', (o) => o.orderDate.getTime() > day('2025-12-01')],
    ['orderDate.operator=GE&orderDate=2025-12-01', (o) => o.orderDate.getTime() >= day('2025-12-01')],
    ['dueDate.operator=GE&dueDate=2026-01-01', (o) => o.dueDate.getTime() >= day('2026-01-01')],
    ['status.operator=LT&status=3', (o) => o.status < 3],
    ['territoryId.operator=GE&territoryId=8', (o) => o.territoryId! >= 8],
  ],
  'BW (two values of a range field, or the operator named; both ends inclusive)': [
    ['totalDue=100&totalDue=200', (o) => o.totalDue >= 100 && o.totalDue <= 200],
    ['orderDate=2024-11-15&orderDate=2024-11-16', (o) => o.orderDate.getTime() >= day('2024-11-15') && o.orderDate.getTime() <= day('2024-11-16')],
    ['orderDate.operator=BW&orderDate=2023-01-01&orderDate=2023-01-31', (o) => o.orderDate.getTime() >= day('2023-01-01') && o.orderDate.getTime() <= day('2023-01-31')],
    ['dueDate=2022-02-01&dueDate=2022-02-28T23:59:59Z', (o) => o.dueDate.getTime() >= day('2022-02-01') && o.dueDate.getTime() <= day('2022-02-28T23:59:59Z')],
    ['status.operator=BW&status=2&status=4', (o) => o.status >= 2 && o.status <= 4],
  ],
  NBW: [
    ['totalDue.operator=NBW&totalDue=100&totalDue=150000', (o) => o.totalDue < 100 || o.totalDue > 150000],
    ['orderDate.operator=NBW&orderDate=2022-01-01&orderDate=2025-06-30', (o) => o.orderDate.getTime() < day('2022-01-01') || o.orderDate.getTime() > day('2025-06-30')],
  ],
  'CN NCN SW NSW': [
    ['customerName.operator=CN&customerName=Powell', (o) => has(o.customerName, 'Powell')],
    [qs({ 'customerName.operator': 'CN', customerName: 'Bike World' }), (o) => has(o.customerName, 'Bike World')],
    ['customerName.operator=NCN&customerName=ell', (o) => !has(o.customerName, 'ell')],
    ['customerName.operator=SW&customerName=Luis', (o) => starts(o.customerName, 'Luis')],
    ['customerName.operator=NSW&customerName=L', (o) => !starts(o.customerName, 'L')],
    ['salesOrderNumber.operator=SW&salesOrderNumber=SO437', (o) => o.salesOrderNumber.startsWith('SO437')],
    ['salesOrderNumber.operator=CN&salesOrderNumber=999', (o) => o.salesOrderNumber.includes('999')],
    ['salesOrderNumber.operator=NSW&salesOrderNumber=SO4', (o) => !o.salesOrderNumber.startsWith('SO4')],
  ],
  'CN and SW take % and _ literally': [
    ['customerName.operator=CN&customerName=%25', () => false, 'none'],
    ['customerName.operator=CN&customerName=_', () => false, 'none'],
    ['customerName.operator=CN&customerName=Lu_s', () => false, 'none'],
    ['customerName.operator=SW&customerName=L%25', () => false, 'none'],
    ['customerName.operator=SW&customerName=%25', () => false, 'none'],
    ['salesOrderNumber.operator=SW&salesOrderNumber=SO4_', () => false, 'none'],
    ['customerName.operator=CN&customerName=%5C', () => false, 'none'],
    ['customerName.operator=NCN&customerName=%25', () => true, 'all'],
    ['customerName.operator=NSW&customerName=_', () => true, 'all'],
  ],
  'NL NNL': [
    ['salesPersonId.operator=NL', (o) => o.salesPersonId === undefined],
    ['salesPersonId.operator=NNL', (o) => o.salesPersonId !== undefined],
    ['territoryId.operator=NL', (o) => o.territoryId === undefined, 'none'],
    ['territoryId.operator=NNL', (o) => o.territoryId !== undefined, 'all'],
    ['onlineOrderFlag.operator=NNL', () => true, 'all'],
  ],
  'booleans in any case': [
    ['onlineOrderFlag=true', (o) => o.onlineOrderFlag],
    ['onlineOrderFlag=TRUE', (o) => o.onlineOrderFlag],
    ['onlineOrderFlag=True', (o) => o.onlineOrderFlag],
    ['onlineOrderFlag=FALSE', (o) => !o.onlineOrderFlag],
    ['onlineOrderFlag=fAlSe', (o) => !o.onlineOrderFlag],
  ],
  'dates in ISO 8601 forms': [
    [qs({ 'orderDate.operator': 'GE', orderDate: '2025-06-01T02:00:00+02:00' }), (o) => o.orderDate.getTime() >= day('2025-06-01')],
    [qs({ 'orderDate.operator': 'GE', orderDate: '2025-06-01T00:00:00.000Z' }), (o) => o.orderDate.getTime() >= day('2025-06-01')],
    [qs({ 'orderDate.operator': 'GT', orderDate: '2025-05-31T23:59:59.999-00:00' }), (o) => o.orderDate.getTime() >= day('2025-06-01')],
    [qs({ orderDate: '2024-11-14T19:00:00-05:00' }), (o) => o.orderDate.getTime() === day('2024-11-15')],
    [qs({ orderDate: '2024-11-15T00:00' }), (o) => o.orderDate.getTime() === day('2024-11-15')],
  ],
  'several criteria together (all must hold)': [
    ['status=5&territoryId=9&onlineOrderFlag=false&totalDue.operator=GT&totalDue=10000', (o) => o.status === 5 && o.territoryId === 9 && !o.onlineOrderFlag && o.totalDue > 10000],
    ['orderDate.operator=GE&orderDate=2025-01-01&salesPersonId.operator=NL&customerName.operator=SW&customerName=A', (o) => o.orderDate.getTime() >= day('2025-01-01') && o.salesPersonId === undefined && starts(o.customerName, 'A')],
  ],
};

describeStores('list criteria: every operator (contract part 3)', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.stop());

  /** The server's totalCount and first page (by id) equal what the predicate selects from the sample data. */
  async function expectMatches(query: string, predicate: (o: SampleOrder) => boolean): Promise<number> {
    const expected = sampleOrders().filter(predicate).sort((a, b) => a.salesOrderId - b.salesOrderId);
    const reply = await server.call(`/sales-order?${query}&sort[0].fieldName=salesOrderId&take=${PAGE}&getTotalCount=true`);
    expectOk(reply);
    expect(reply.body.totalCount, query).to.equal(expected.length);
    expect(reply.body.result, query).to.deep.equal(expected.slice(0, PAGE).map(asListItem));
    return expected.length;
  }

  it('checks against sample data that matches the server', async () => {
    expect(await countOrders(server)).to.equal(sampleOrders().length);
    const first = await server.call('/sales-order?take=50');
    expect(first.body.result).to.deep.equal(sampleOrders().slice(0, 50).map(asListItem));
  });

  for (const [group, list] of Object.entries(cases)) {
    describe(group, () => {
      for (const [query, predicate, extent] of list) {
        it(decodeURIComponent(query), async () => {
          const count = await expectMatches(query, predicate);
          if (extent === 'none') expect(count).to.equal(0);
          else if (extent === 'all') expect(count).to.equal(ALL);
          else expect(count).to.be.within(1, ALL - 1);
        });
      }
    });
  }

  describe('boundaries', () => {
    it('BW includes both ends: orders exactly at the bounds are listed', async () => {
      const [low, high] = [sampleOrder(43659), sampleOrder(43660)].map((o) => o.totalDue).sort((a, b) => a - b);
      const ids = new Set((await server.call(`/sales-order?totalDue=${low}&totalDue=${high}&take=1000`)).body.result.map((o: { salesOrderId: number }) => o.salesOrderId));
      expect(ids.has(43659) && ids.has(43660)).to.equal(true);
      const dates = await server.call('/sales-order?orderDate=2024-11-15&orderDate=2024-11-16&getTotalCount=true&take=0');
      const onEach = await Promise.all(['2024-11-15', '2024-11-16'].map((d) => countOrders(server, `orderDate=${d}`)));
      expect(onEach.every((n) => n > 0)).to.equal(true);
      expect(dates.body.totalCount).to.equal(onEach[0] + onEach[1]);
    });

    it('LE minus LT is EQ, and a value with its negation covers every order', async () => {
      const v = anOrder.totalDue;
      const [le, lt, eq, neq] = await Promise.all(['LE', 'LT', 'EQ', 'NEQ'].map((op) => countOrders(server, `totalDue.operator=${op}&totalDue=${v}`)));
      expect(eq).to.be.at.least(1);
      expect(le - lt).to.equal(eq);
      expect(eq + neq).to.equal(ALL);
      const [bw, nbw] = await Promise.all(['BW', 'NBW'].map((op) => countOrders(server, `totalDue.operator=${op}&totalDue=500&totalDue=5000`)));
      expect(bw + nbw).to.equal(ALL);
      const [cn, ncn] = await Promise.all(['CN', 'NCN'].map((op) => countOrders(server, `customerName.operator=${op}&customerName=an`)));
      expect(cn + ncn).to.equal(ALL);
      const [nl, nnl] = await Promise.all(['NL', 'NNL'].map((op) => countOrders(server, `salesPersonId.operator=${op}`)));
      expect(nl + nnl).to.equal(ALL);
      expect(nl).to.be.within(1, ALL - 1);
    });
  });

  describe('operator names are case-insensitive', () => {
    const spellings: [string, string[]][] = [
      ['NIn', ['nin', 'NIN', 'nIn']],
      ['BW', ['bw', 'Bw']],
      ['CN', ['cn', 'Cn']],
      ['NNL', ['nnl', 'Nnl']],
      ['GE', ['ge', 'gE']],
    ];
    const queryOf: Record<string, (op: string) => string> = {
      NIn: (op) => `status.operator=${op}&status=5&status=6`,
      BW: (op) => `totalDue.operator=${op}&totalDue=100&totalDue=200`,
      CN: (op) => `customerName.operator=${op}&customerName=Powell`,
      NNL: (op) => `salesPersonId.operator=${op}`,
      GE: (op) => `orderDate.operator=${op}&orderDate=2025-01-01`,
    };
    for (const [canonical, others] of spellings) {
      it(`${canonical} = ${others.join(' = ')}`, async () => {
        const expected = await countOrders(server, queryOf[canonical](canonical));
        expect(expected).to.be.within(1, ALL - 1);
        for (const op of others) expect(await countOrders(server, queryOf[canonical](op)), op).to.equal(expected);
      });
    }
  });

  describe('refused criteria', () => {
    it('answers 400 Operator_NotSupported to an unknown operator, naming the field', async () => {
      for (const op of ['LIKE', 'EQUALS', 'Between', '', '=']) {
        expectError(await server.call(`/sales-order?status.operator=${encodeURIComponent(op)}&status=1`), 400, 'Operator_NotSupported', 'status.operator');
      }
    });

    it('answers 400 Operator_NotSupported to an operator the field does not support', async () => {
      expectError(await server.call('/sales-order?status.operator=CN&status=1'), 400, 'Operator_NotSupported', 'status.operator');
      expectError(await server.call('/sales-order?onlineOrderFlag.operator=GT&onlineOrderFlag=true'), 400, 'Operator_NotSupported', 'onlineOrderFlag.operator');
      expectError(await server.call('/sales-order?orderDate.operator=SW&orderDate=2024'), 400, 'Operator_NotSupported', 'orderDate.operator');
    });

    it('reports an unknown operator next to other problems', async () => {
      const reply = await server.call('/sales-order?status.operator=XX&status=1&take=-1');
      expect(reply.status).to.equal(400);
      expect(reply.body.messages.map((m) => [m.code, m.property]).sort()).to.deep.equal([['Input_OutOfRange', 'take'], ['Operator_NotSupported', 'status.operator']]);
    });

    it('answers 400 with the field as property when the number of values does not fit the operator', async () => {
      for (const query of [
        'totalDue.operator=BW&totalDue=1',
        'totalDue.operator=BW&totalDue=1&totalDue=2&totalDue=3',
        'salesPersonId.operator=NL&salesPersonId=1',
        'status.operator=EQ&status=1&status=2',
        'totalDue=1&totalDue=2&totalDue=3',
        'onlineOrderFlag=true&onlineOrderFlag=false',
        'status.operator=In',
      ]) {
        const reply = await server.call(`/sales-order?${query}`);
        expect(reply.status, query).to.equal(400);
        expect(reply.body.messages.map((m) => m.property), query).to.deep.equal([query.split(/[.=]/)[0]]);
      }
    });

    it('answers 400 to a value of the wrong type for the field', async () => {
      expectError(await server.call('/sales-order?status=five'), 400, 'Input_InvalidType', 'status');
      expectError(await server.call('/sales-order?orderDate=2024-02-30'), 400, 'Input_InvalidType', 'orderDate');
      expectError(await server.call('/sales-order?orderDate=15.11.2024'), 400, 'Input_InvalidType', 'orderDate');
      expectError(await server.call('/sales-order?onlineOrderFlag=1'), 400, 'Input_InvalidType', 'onlineOrderFlag');
      expectError(await server.call('/sales-order?onlineOrderFlag=yes'), 400, 'Input_InvalidType', 'onlineOrderFlag');
    });

    it('answers 400 to an operator given twice', async () => {
      expectError(await server.call('/sales-order?status.operator=EQ&status.operator=NEQ&status=1'), 400, 'Input_Duplicate', 'status.operator');
    });
  });
});
