import { expect } from 'chai';
import { withErrorScope } from 'restlayer';
import { type Reply, type TestServer, startTestServer } from '../support/server.js';
import { testProvider } from '../support/test-stores.js';
import { type OrderItem, busiestSalesPerson, expectNotFound, growForScopes, listOf, scopedUser } from './support.js';
import { describeStores } from '../support/stores.js';

/** Criteria through every operator on a few fields (issue 24: "through every operator"), as query strings. */
const CRITERIA = [
  '',
  'status=5', 'status=5&status.operator=NEQ', 'status=1&status=5', 'status=5&status=6&status.operator=NIn',
  'status=5&status.operator=LT', 'status=5&status.operator=LE', 'status=1&status.operator=GT', 'status=2&status.operator=GE',
  'status=2&status=5&status.operator=BW', 'status=2&status=4&status.operator=NBW',
  'totalDue=1000&totalDue.operator=GT', 'totalDue=500&totalDue.operator=LE', 'totalDue=100&totalDue=5000',
  'totalDue=100&totalDue=5000&totalDue.operator=NBW',
  'orderDate=2024-01-01&orderDate.operator=GE', 'orderDate=2023-06-30&orderDate.operator=LT', 'orderDate=2023-01-01&orderDate=2023-12-31T23:59:59Z',
  'customerName=a&customerName.operator=CN', 'customerName=e&customerName.operator=NCN', 'customerName=B&customerName.operator=SW',
  'customerName=A&customerName.operator=NSW',
  'territoryId.operator=NL', 'territoryId.operator=NNL', 'dueDate=2024-01-01&dueDate.operator=LE', 'territoryId=1&territoryId=4&territoryId.operator=NIn', 'salesOrderNumber=SO5&salesOrderNumber.operator=SW', 'onlineOrderFlag=false',
  'status=5&sort[0].fieldName=orderDate&sort[0].sortDirection=Descending',
  'sort[0].fieldName=customerName', 'sort[0].fieldName=totalDue&sort[0].sortDirection=Descending',
  'sort[0].fieldName=shipDate&sort[0].sortDirection=Descending',
];

/**
 * Issue 24 item 2, over HTTP: a SalesPerson (attribute salesPersonId) reaches exactly the orders of that sales
 * person, and the customers with such an order, in every list, count, cursor and deep page and every read and
 * write; out of scope a record does not exist (404); without the attribute, nothing; a scope-free grant of another
 * role (Viewer) is not limited by SalesPerson's scope.
 */
describeStores(`record scopes over HTTP (${testProvider})`, function () {
  this.timeout(300_000);
  let server: TestServer;
  let me: number;
  let mine: number;
  let sam: string;
  let nobody: string;
  let both: string;
  /** An order of mine, and one of another sales person, each with lines. */
  let myOrder: number;
  let otherOrder: number;
  let otherLine: number;

  const as = (token: string) => (path: string, init: Parameters<TestServer['call']>[1] = {}) => server.call(path, { ...init, token });

  before(async () => {
    server = await startTestServer({ logLevel: 'error' });
    await growForScopes(server);
    ({ id: me, orders: mine } = await busiestSalesPerson(server));
    expect(mine).to.be.greaterThan(1_500);
    sam = await scopedUser(server, 'sam', ['SalesPerson'], { salesPersonId: String(me) });
    nobody = await scopedUser(server, 'nobody', ['SalesPerson']);
    both = await scopedUser(server, 'vera', ['SalesPerson', 'Viewer'], { salesPersonId: String(me) });
    myOrder = listOf(await server.call(`/sales-order?take=1&salesPersonId=${me}`)).items[0].salesOrderId;
    const other = listOf(await server.call(`/sales-order?take=1&salesPersonId=${me === 275 ? 276 : 275}`)).items[0];
    otherOrder = other.salesOrderId;
    otherLine = (listOf<{ salesOrderDetailId: number }>(await server.call(`/sales-order/${otherOrder}/detail`)).items[0]).salesOrderDetailId;
  });
  after(() => server?.stop());

  /** The scoped answer and the administrator's with the sales person's filter: the same page and count. */
  const expectSameAsFiltered = async (query: string, take: number) => {
    const scoped = listOf(await as(sam)(`/sales-order?take=${take}&getTotalCount=true&${query}`));
    const filtered = listOf(await server.call(`/sales-order?take=${take}&getTotalCount=true&${query}&salesPersonId=${me}`));
    expect(scoped.items, query).to.deep.equal(filtered.items);
    expect(scoped.totalCount, query).to.equal(filtered.totalCount);
    expect(scoped.items.every((o) => o.salesPersonId === me), query).to.equal(true);
    return scoped;
  };

  it('every operator, sort and count: the list and totalCount equal the administrator\'s filtered by the sales person', async () => {
    let nonEmpty = 0;
    for (const query of CRITERIA) if ((await expectSameAsFiltered(query, 60)).items.length) nonEmpty++;
    // Most criteria keep some of the orders: the comparison is not of empty lists.
    expect(nonEmpty).to.be.at.least(CRITERIA.length - 3);
  });

  it('operators on salesPersonId itself: within the scope, never past it', async () => {
    const other = me === 275 ? 276 : 275;
    const count = async (query: string) => listOf(await as(sam)(`/sales-order?take=5&getTotalCount=true&${query}`));
    expect((await count(`salesPersonId=${me}`)).totalCount).to.equal(mine);
    expect((await count(`salesPersonId=${other}`)).totalCount).to.equal(0);
    expect((await count(`salesPersonId=${me}&salesPersonId=${other}`)).totalCount).to.equal(mine);
    expect((await count(`salesPersonId=${me}&salesPersonId.operator=NEQ`)).totalCount).to.equal(0);
    expect((await count(`salesPersonId=${other}&salesPersonId.operator=NEQ`)).totalCount).to.equal(mine);
    expect((await count('salesPersonId.operator=NL')).totalCount).to.equal(0);
    expect((await count('salesPersonId.operator=NNL')).totalCount).to.equal(mine);
    expect((await count(`salesPersonId=${me}&salesPersonId.operator=LT`)).totalCount).to.equal(0);
    expect((await count(`salesPersonId=${me}&salesPersonId.operator=GE`)).totalCount).to.equal(mine);
  });

  it('the same list asked in turn by callers of other scopes, attributes or none: each gets their own, also after an attribute changes', async () => {
    // A list's SQL is kept for repeats of the same request (lib/storage/list-query.ts); the caller's scope is part of it.
    const other = me === 275 ? 276 : 275;
    const tess = await scopedUser(server, 'tess', ['SalesPerson'], { salesPersonId: String(other) });
    const query = '/sales-order?take=20&getTotalCount=true&status=5&sort[0].fieldName=orderDate&sort[0].sortDirection=Descending';
    const of = (items: OrderItem[]) => new Set(items.map((o) => o.salesPersonId));
    for (let round = 0; round < 2; round++) {
      const mineList = listOf(await as(sam)(query));
      const theirs = listOf(await as(tess)(query));
      const none = listOf(await as(nobody)(query));
      const all = listOf(await server.call(query));
      expect([...of(mineList.items)], `round ${round}`).to.deep.equal([me]);
      expect([...of(theirs.items)], `round ${round}`).to.deep.equal([other]);
      expect(none.items).to.deep.equal([]);
      expect(none.totalCount).to.equal(0);
      expect(all.totalCount).to.be.greaterThan(mineList.totalCount! + theirs.totalCount!);
    }
    const before = listOf(await as(sam)(query));
    expect((await withErrorScope(() => server.services.users.setAttribute('tess', 'salesPersonId', String(me)))).result).to.equal(true);
    const after = listOf(await as(tess)(query));
    expect(after.items).to.deep.equal(before.items);
    expect(after.totalCount).to.equal(before.totalCount);
  });

  it('the same order read in turn by callers of other scopes, attributes or none: each gets their own answer, also after an attribute changes', async () => {
    // The order's read is kept compiled (keptQuery); the caller's scope is part of what it is kept by.
    const other = me === 275 ? 276 : 275;
    const tina = await scopedUser(server, 'tina', ['SalesPerson'], { salesPersonId: String(other) });
    for (let round = 0; round < 2; round++) {
      expect((await as(sam)(`/sales-order/${myOrder}`)).status, `round ${round}`).to.equal(200);
      expectNotFound(await as(tina)(`/sales-order/${myOrder}`), `round ${round}: another sales person's order`);
      expect((await as(tina)(`/sales-order/${otherOrder}`)).status, `round ${round}`).to.equal(200);
      expectNotFound(await as(sam)(`/sales-order/${otherOrder}`), `round ${round}: another sales person's order`);
      expectNotFound(await as(nobody)(`/sales-order/${myOrder}`), `round ${round}: no attribute`);
      expect((await server.call(`/sales-order/${otherOrder}`)).status, `round ${round}`).to.equal(200);
    }
    expect((await withErrorScope(() => server.services.users.setAttribute('tina', 'salesPersonId', String(me)))).result).to.equal(true);
    expect((await as(tina)(`/sales-order/${myOrder}`)).status).to.equal(200);
    expectNotFound(await as(tina)(`/sales-order/${otherOrder}`), 'after the attribute changed');
  });

  it('deep pages (skip past 1,000, read from the end) equal the administrator\'s filtered pages', async () => {
    for (const query of ['skip=1300', `skip=${mine - 10}`, 'skip=1000&sort[0].fieldName=totalDue&sort[0].sortDirection=Descending',
      'skip=1100&sort[0].fieldName=orderDate', `skip=${mine + 5}`]) {
      await expectSameAsFiltered(query, 25);
    }
  });

  it('cursor pages, from the first and from deep in the list, walk exactly the administrator\'s filtered pages', async () => {
    for (const start of ['', 'skip=1200&', 'sort[0].fieldName=totalDue&', 'status=5&sort[0].fieldName=orderDate&sort[0].sortDirection=Descending&']) {
      let scopedCursor = '';
      let filteredCursor = '';
      for (let page = 0; page < 4; page++) {
        const scoped = listOf(await as(sam)(`/sales-order?${page ? '' : start}take=40&cursor=${encodeURIComponent(scopedCursor)}${page ? `&${start.replace(/skip=\d+&/, '')}` : ''}`));
        const filtered = listOf(await server.call(`/sales-order?${page ? '' : start}take=40&salesPersonId=${me}&cursor=${encodeURIComponent(filteredCursor)}${page ? `&${start.replace(/skip=\d+&/, '')}` : ''}`));
        expect(scoped.items.map((o) => o.salesOrderId), `${start} page ${page}`).to.deep.equal(filtered.items.map((o) => o.salesOrderId));
        expect(scoped.items.every((o) => o.salesPersonId === me)).to.equal(true);
        if (!scoped.nextCursor) break;
        scopedCursor = scoped.nextCursor;
        filteredCursor = filtered.nextCursor!;
      }
    }
  });

  it('customers: exactly those with an order of the sales person, in the list, the count and reads', async () => {
    const expected = new Set<number>();
    for (let cursor = ''; ;) {
      const page = listOf(await server.call(`/sales-order?take=1000&salesPersonId=${me}&cursor=${encodeURIComponent(cursor)}`));
      for (const o of page.items) expected.add(o.customerId);
      if (!page.nextCursor) break;
      cursor = page.nextCursor;
    }
    const seen: number[] = [];
    let totalCount: number | undefined;
    for (let cursor = ''; ;) {
      const page = listOf<{ customerId: number }>(await as(sam)(`/customer?take=200&getTotalCount=true&cursor=${encodeURIComponent(cursor)}`));
      seen.push(...page.items.map((c) => c.customerId));
      totalCount ??= page.totalCount;
      if (!page.nextCursor) break;
      cursor = page.nextCursor;
    }
    expect(seen.length).to.be.greaterThan(0);
    expect([...seen].sort((a, b) => a - b)).to.deep.equal([...expected].sort((a, b) => a - b));
    expect(totalCount).to.equal(expected.size);
    // An offset page and a filter too.
    const named = listOf<{ customerId: number }>(await as(sam)('/customer?take=20&skip=5&name=a&name.operator=CN&getTotalCount=true&sort[0].fieldName=name'));
    expect(named.items.every((c) => expected.has(c.customerId))).to.equal(true);

    const myCustomer = [...expected][0];
    expect((await as(sam)(`/customer/${myCustomer}`)).status).to.equal(200);
    const otherCustomer = listOf<{ customerId: number }>(await server.call('/customer?take=500')).items.find((c) => !expected.has(c.customerId))!.customerId;
    expectNotFound(await as(sam)(`/customer/${otherCustomer}`), 'a customer without an order of mine');
  });

  it('an order of another sales person, and its lines, do not exist: 404 for every read and write, and nothing changes', async () => {
    const before = (await server.call(`/sales-order/${otherOrder}`)).body.result as { revisionNumber: number; lines: unknown[] };
    const call = as(sam);
    const line = { productId: 707, orderQty: 1 };
    const header = { status: 1, onlineOrderFlag: false };
    expectNotFound(await call(`/sales-order/${otherOrder}`), 'GET order');
    expectNotFound(await call(`/sales-order/${otherOrder}`, { method: 'PUT', body: header }), 'PUT order');
    expectNotFound(await call(`/sales-order/${otherOrder}`, { method: 'PATCH', body: { comment: 'mine now' } }), 'PATCH order');
    expectNotFound(await call(`/sales-order/${otherOrder}/detail`), 'GET lines');
    expectNotFound(await call(`/sales-order/${otherOrder}/detail/${otherLine}`), 'GET line');
    expectNotFound(await call(`/sales-order/${otherOrder}/detail`, { method: 'POST', body: line }), 'POST line');
    expectNotFound(await call(`/sales-order/${otherOrder}/detail/${otherLine}`, { method: 'PUT', body: line }), 'PUT line');
    expectNotFound(await call(`/sales-order/${otherOrder}/detail/${otherLine}`, { method: 'PATCH', body: { orderQty: 3 } }), 'PATCH line');
    expectNotFound(await call(`/sales-order/${otherOrder}/detail/${otherLine}`, { method: 'DELETE' }), 'DELETE line');
    const after = (await server.call(`/sales-order/${otherOrder}`)).body.result as { revisionNumber: number; lines: unknown[] };
    expect(after).to.deep.equal(before);
  });

  it('the same calls on an order of mine succeed', async () => {
    const call = as(sam);
    const read = await call(`/sales-order/${myOrder}`);
    expect(read.status, read.text).to.equal(200);
    const patched = await call(`/sales-order/${myOrder}`, { method: 'PATCH', body: { comment: 'checked by sam' } });
    expect(patched.status, patched.text).to.equal(200);
    const added = await call(`/sales-order/${myOrder}/detail`, { method: 'POST', body: { productId: 707, orderQty: 2 } });
    expect(added.status, added.text).to.equal(201);
    const lineId = (added.body.result as { salesOrderDetailId: number }).salesOrderDetailId;
    expect((await call(`/sales-order/${myOrder}/detail/${lineId}`, { method: 'PATCH', body: { orderQty: 3 } })).status).to.equal(200);
    expect((await call(`/sales-order/${myOrder}/detail/${lineId}`, { method: 'DELETE' })).status).to.equal(200);
    expect(((await call(`/sales-order/${myOrder}`)).body.result as { comment: string }).comment).to.equal('checked by sam');
  });

  it('a SalesPerson without the attribute sees no orders and no customers, and reads none', async () => {
    const orders = listOf(await as(nobody)('/sales-order?getTotalCount=true'));
    expect(orders.items).to.deep.equal([]);
    expect(orders.totalCount).to.equal(0);
    const customers = listOf(await as(nobody)('/customer?getTotalCount=true'));
    expect(customers.items).to.deep.equal([]);
    expect(customers.totalCount).to.equal(0);
    expectNotFound(await as(nobody)(`/sales-order/${myOrder}`), 'GET order without the attribute');
  });

  it('SalesPerson + Viewer: reads every order (Viewer\'s grant has no scope), writes only their own', async () => {
    const all = listOf(await server.call('/sales-order?take=0&getTotalCount=true')).totalCount;
    expect(listOf(await as(both)('/sales-order?take=0&getTotalCount=true')).totalCount).to.equal(all);
    expect((await as(both)(`/sales-order/${otherOrder}`)).status).to.equal(200);
    // sales-order.update comes from SalesPerson alone: limited to their own orders.
    expectNotFound(await as(both)(`/sales-order/${otherOrder}`, { method: 'PATCH', body: { comment: 'no' } }), 'PATCH by SalesPerson + Viewer');
    expect((await as(both)(`/sales-order/${myOrder}`, { method: 'PATCH', body: { comment: 'vera was here' } })).status).to.equal(200);
  });

  it('the permission is checked first: 403 for a delete a SalesPerson may not make, in scope or not', async () => {
    for (const id of [myOrder, otherOrder]) {
      const reply: Reply = await as(sam)(`/sales-order/${id}`, { method: 'DELETE' });
      expect(reply.status, reply.text).to.equal(403);
    }
  });
});
