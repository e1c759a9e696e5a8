import { expect } from 'chai';
import { type OrderItem, countOrders, createOrder, expectError, expectOk, listOrders, pageThrough, readOrder } from '../support/api.js';
import { asListItem, sampleOrders } from '../support/sample-oracle.js';
import { type TestServer, startTestServer } from '../support/server.js';
import { describeStores } from '../support/stores.js';

const MAX_ROWS = 50;
const ids = (items: OrderItem[]) => items.map((o) => o.salesOrderId);

/** Asserts `items` are ordered by the keys, each ascending (1) or descending (-1). */
function expectSorted(items: OrderItem[], keys: [keyof OrderItem, 1 | -1][]) {
  for (let i = 1; i < items.length; i++) {
    for (const [key, direction] of keys) {
      const a = items[i - 1][key]!;
      const b = items[i][key]!;
      if (a === b) continue;
      expect((a < b ? 1 : -1) === direction, `rows ${i - 1} and ${i} by ${String(key)}: ${a} then ${b}`).to.equal(true);
      break;
    }
  }
}

describeStores('list criteria: sorting, paging and totalCount (contract part 3)', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ config: { RestAPI: { MaxRows: MAX_ROWS } } });
  });
  after(() => server.stop());

  describe('sort', () => {
    it('sorts by one key, ascending by default', async () => {
      const items = await listOrders(server, 'sort[0].fieldName=totalDue&take=40');
      expect(items).to.have.length(40);
      expectSorted(items, [['totalDue', 1]]);
      const lowest = [...sampleOrders()].sort((a, b) => a.totalDue - b.totalDue || a.salesOrderId - b.salesOrderId);
      expect(items.map((o) => o.totalDue)).to.deep.equal(lowest.slice(0, 40).map((o) => o.totalDue));
    });

    it('sorts Descending', async () => {
      const items = await listOrders(server, 'sort[0].fieldName=orderDate&sort[0].sortDirection=Descending&take=40');
      expectSorted(items, [['orderDate', -1]]);
      expect(items[0].orderDate).to.equal('2025-12-30T00:00:00.000Z');
      const asc = await listOrders(server, 'sort[0].fieldName=orderDate&sort[0].sortDirection=Ascending&take=1');
      expect(asc[0].orderDate).to.equal('2021-01-07T00:00:00.000Z');
    });

    it('sorts by several keys, each with its own direction', async () => {
      const query = 'status.operator=NEQ&status=5&sort[0].fieldName=status&sort[1].fieldName=territoryId&sort[1].sortDirection=Descending&sort[2].fieldName=totalDue';
      const { items } = await pageThrough(server, query, MAX_ROWS);
      expect(items.length).to.equal(sampleOrders().filter((o) => o.status !== 5).length);
      expectSorted(items, [['status', 1], ['territoryId', -1], ['totalDue', 1]]);
      expect(new Set(items.map((o) => o.status)).size).to.equal(5);
    });

    it('sorts by text, and a later key breaks ties of an earlier one', async () => {
      const items = await listOrders(server, `customerName.operator=SW&customerName=Luis&sort[0].fieldName=customerName&sort[0].sortDirection=Descending&sort[1].fieldName=salesOrderId&sort[1].sortDirection=Descending&take=${MAX_ROWS}`);
      expect(items.length).to.equal(MAX_ROWS);
      expectSorted(items, [['customerName', -1], ['salesOrderId', -1]]);
    });

    it('refuses an unknown sort field or direction, naming the sort entry', async () => {
      expectError(await server.call('/sales-order?sort[0].fieldName=price'), 400, 'Input_InvalidValue', 'sort[0].fieldName');
      expectError(await server.call('/sales-order?sort[0].fieldName=status&sort[0].sortDirection=Up'), 400, 'Input_InvalidValue', 'sort[0].sortDirection');
      expectError(await server.call('/sales-order?sort[1].sortDirection=Descending'), 400, 'Input_Invalid', 'sort[1].fieldName');
    });
  });

  describe('paging with skip and take', () => {
    const filter = 'territoryId=9&status=5&onlineOrderFlag=false';
    const expected = () => sampleOrders().filter((o) => o.territoryId === 9 && o.status === 5 && !o.onlineOrderFlag);

    it('pages through a filter without gaps or overlaps, and totalCount equals the rows paged through', async () => {
      const total = (await server.call(`/sales-order?${filter}&getTotalCount=true&take=1`)).body.totalCount!;
      expect(total).to.equal(expected().length);
      expect(total).to.be.greaterThan(MAX_ROWS);
      for (const size of [7, 13, MAX_ROWS]) {
        const { items, pages } = await pageThrough(server, filter, size);
        expect(items.length).to.equal(total);
        expect(new Set(ids(items)).size).to.equal(total);
        expect(pages).to.equal(Math.floor(total / size) + 1);
        expect(items).to.deep.equal(expected().map(asListItem));
      }
    });

    it('pages the same way under a sort', async () => {
      const sort = 'sort[0].fieldName=totalDue&sort[0].sortDirection=Descending';
      const { items } = await pageThrough(server, `${filter}&${sort}`, 9);
      expect(items.length).to.equal(expected().length);
      expect(new Set(ids(items)).size).to.equal(items.length);
      expectSorted(items, [['totalDue', -1]]);
    });

    it('answers an empty list when skip is at or beyond the end', async () => {
      const total = expected().length;
      for (const skip of [total, total + 1, 1_000_000]) {
        const reply = await server.call(`/sales-order?${filter}&skip=${skip}&getTotalCount=true`);
        expect(reply.body).to.deep.equal({ result: [], messages: [], totalCount: total });
      }
      const last = await listOrders(server, `${filter}&skip=${total - 1}`);
      expect(ids(last)).to.deep.equal([expected()[total - 1].salesOrderId]);
    });

    it('answers an empty list for take=0, with totalCount when asked', async () => {
      expect((await server.call('/sales-order?take=0')).body).to.deep.equal({ result: [], messages: [] });
      expect((await server.call('/sales-order?take=0&getTotalCount=true')).body).to.deep.equal({ result: [], messages: [], totalCount: 12_000 });
    });

    it('answers deep pages, their repeats and the next ones as walking does, also once a write moved the rows', async () => {
      // From skip 1,000 a page keeps where it and the next page start (lib/storage/list-positions.ts); these pages
      // start from such positions, forward and from the end, and after a write that shifts every row by one.
      type Sorted = { salesOrderId: number; totalDue: number; orderDate: Date | string };
      // By total due, and newest first (a date: PostgreSQL's kept position is its exact text), ties by id.
      const sorts: [string, (a: Sorted, b: Sorted) => number][] = [
        ['sort[0].fieldName=totalDue', (a, b) => a.totalDue - b.totalDue || a.salesOrderId - b.salesOrderId],
        ['sort[0].fieldName=orderDate&sort[0].sortDirection=Descending', (a, b) => new Date(b.orderDate).getTime() - new Date(a.orderDate).getTime() || b.salesOrderId - a.salesOrderId],
      ];
      const expectPages = async (orders: Sorted[]) => {
        for (const [sort, order] of sorts) {
          const sorted = [...orders].sort(order).map((o) => o.salesOrderId);
          for (const skip of [3_000, 3_000, 3_020, 3_031, 9_000, 9_000, 9_020]) {
            expect(ids(await listOrders(server, `${sort}&take=20&skip=${skip}`)), `${sort}, skip ${skip}`).to.deep.equal(sorted.slice(skip, skip + 20));
          }
        }
      };
      await expectPages(sampleOrders());
      // An order without lines: the smallest total due of all, so it comes before every kept position.
      const { id } = await createOrder(server);
      const created = (await readOrder(server, id)) as Sorted;
      expect(created.totalDue).to.be.below(Math.min(...sampleOrders().map((o) => o.totalDue)));
      await expectPages([...sampleOrders(), created]);
      // Soft deleted: out of the list again, and the pages as before.
      expectOk(await server.call(`/sales-order/${id}`, { method: 'DELETE' }));
      await expectPages(sampleOrders());
    });

    it('skips exactly skip rows', async () => {
      const all = await listOrders(server, 'take=30');
      expect(ids(await listOrders(server, 'skip=0&take=10'))).to.deep.equal(ids(all).slice(0, 10));
      expect(ids(await listOrders(server, 'skip=17&take=10'))).to.deep.equal(ids(all).slice(17, 27));
    });

    it('refuses negative or non-integer skip and take', async () => {
      for (const query of ['skip=-1', 'take=-1', 'skip=1.5', 'take=ten']) {
        const reply = await server.call(`/sales-order?${query}`);
        expect(reply.status, query).to.equal(400);
        expect(reply.body.messages.map((m) => m.property)).to.deep.equal([query.split('=')[0]]);
      }
    });
  });

  describe('RestAPI:MaxRows', () => {
    const expectMaxRowsWarning = (reply: Awaited<ReturnType<TestServer['call']>>) => {
      expect(reply.status).to.equal(200);
      expect(reply.body.result).to.have.length(MAX_ROWS);
      expect(reply.body.messages).to.have.length(1);
      expect(reply.body.messages[0]).to.include({ code: 'Service_MaxRows', severity: 'Warning' });
      expect(reply.body.messages[0]).to.not.have.property('property');
    };

    it('is the default take, with a Warning Service_MaxRows when the result is cut there', async () => {
      const reply = await server.call('/sales-order');
      expectMaxRowsWarning(reply);
      expect(ids(reply.body.result)).to.deep.equal(sampleOrders().slice(0, MAX_ROWS).map((o) => o.salesOrderId));
    });

    it('caps a larger take, with the Warning', async () => {
      for (const take of [MAX_ROWS + 1, 100, 5000]) expectMaxRowsWarning(await server.call(`/sales-order?take=${take}`));
    });

    it('keeps totalCount exact when the page is capped', async () => {
      const reply = await server.call('/sales-order?take=500&getTotalCount=true&status=4');
      expectMaxRowsWarning(reply);
      expect(reply.body.totalCount).to.equal(sampleOrders().filter((o) => o.status === 4).length);
    });

    it('gives no warning when the caller\'s own take cut the result', async () => {
      for (const take of [1, 10, MAX_ROWS - 1, MAX_ROWS]) {
        const reply = await server.call(`/sales-order?take=${take}`);
        expectOk(reply);
        expect(reply.body.result).to.have.length(take);
      }
    });

    it('gives no warning when the whole result fits', async () => {
      const fitting = sampleOrders().filter((o) => o.status === 3 && o.territoryId === 1).length;
      expect(fitting).to.be.within(1, MAX_ROWS - 1);
      for (const take of ['', '&take=100']) {
        const reply = await server.call(`/sales-order?status=3&territoryId=1${take}`);
        expectOk(reply);
        expect(reply.body.result).to.have.length(fitting);
      }
    });

    it('gives no warning on the last, partial page reached with skip', async () => {
      const reply = await server.call(`/sales-order?skip=${12_000 - 20}`);
      expectOk(reply);
      expect(reply.body.result).to.have.length(20);
    });
  });

  describe('getTotalCount', () => {
    it('counts every match, not only the page, and agrees with paging through', async () => {
      const query = 'salesPersonId=276&orderDate.operator=GE&orderDate=2024-01-01';
      const reply = await server.call(`/sales-order?${query}&take=3&getTotalCount=true`);
      expect(reply.body.result).to.have.length(3);
      const { items } = await pageThrough(server, query, MAX_ROWS);
      expect(reply.body.totalCount).to.equal(items.length);
      expect(items.length).to.be.greaterThan(MAX_ROWS);
      for (const item of items) {
        expect(item.salesPersonId).to.equal(276);
        expect(item.orderDate >= '2024-01-01').to.equal(true);
      }
    });

    it('accepts true and false in any case', async () => {
      expect((await server.call('/sales-order?take=1&getTotalCount=TRUE')).body.totalCount).to.equal(12_000);
      expect((await server.call('/sales-order?take=1&getTotalCount=True')).body.totalCount).to.equal(12_000);
      expect((await server.call('/sales-order?take=1&getTotalCount=FALSE')).body).to.not.have.property('totalCount');
      expectError(await server.call('/sales-order?take=1&getTotalCount=1'), 400, 'Input_InvalidType', 'getTotalCount');
    });

    it('sums over a partition: the counts per status add up to the total', async () => {
      const counts = await Promise.all([1, 2, 3, 4, 5, 6].map((s) => countOrders(server, `status=${s}`)));
      expect(counts.reduce((a, b) => a + b, 0)).to.equal(12_000);
      expect(counts).to.deep.equal([1, 2, 3, 4, 5, 6].map((s) => sampleOrders().filter((o) => o.status === s).length));
    });
  });
});

describeStores('list criteria: RestAPI:MaxRows default (contract part 3)', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.stop());

  it('defaults take to 1000 and caps it there, with the Warning', async () => {
    for (const query of ['', '?take=1001', '?take=20000&getTotalCount=true']) {
      const reply = await server.call(`/sales-order${query}`);
      expect(reply.status).to.equal(200);
      expect(reply.body.result).to.have.length(1000);
      expect(reply.body.messages.map((m) => [m.code, m.severity])).to.deep.equal([['Service_MaxRows', 'Warning']]);
    }
    expectOk(await server.call('/sales-order?take=1000'));
  });
});
