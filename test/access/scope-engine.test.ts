import { expect } from 'chai';
import { Output, withErrorScope } from 'restlayer';
import { asCaller } from 'restlayer/testing';
import type { SalesOrder_ReadListInput_Criteria, SalesOrder_ReadListOutput } from '../../services/sales-order/sales-order-models.js';
import { growOrders } from '../support/grow-orders.js';
import { type TestServer, startTestServer } from '../support/server.js';
import { testProvider } from '../support/test-stores.js';
import { describeStores } from '../support/stores.js';

type Criteria = SalesOrder_ReadListInput_Criteria;

/**
 * The list engine under a record scope, without HTTP (restlayer/testing's asCaller): the scoped list of a sales
 * person equals the unscoped list filtered by that sales person, for filters, sorts, offsets, deep pages read from
 * the end and cursors. The HTTP suites (scopes*.test.ts) prove the same through the routes.
 */
describeStores(`record scopes in the list engine (${testProvider})`, function () {
  this.timeout(120_000);
  let server: TestServer;
  let salesPersonId: number;

  const service = () => (server.services as unknown as { salesOrder: { readList(c: Criteria): Promise<Output<SalesOrder_ReadListOutput[]>> } }).salesOrder;
  const scoped = (id: string | undefined, criteria: Criteria) => asCaller({
    permission: 'sales-order.read', scopes: ['own'], attributes: id === undefined ? {} : { salesPersonId: id },
  }, () => service().readList(criteria));
  const unscoped = (criteria: Criteria) => withErrorScope(() => service().readList(criteria));

  before(async () => {
    server = await startTestServer({ logLevel: 'error' });
    // Four copies of the sample: the busiest sales person has 1,600 orders, so a deep page is read from the end.
    await growOrders(server.infrastructure.storage, 48_000);
    let most = 0;
    for (let id = 274; id <= 290; id++) {
      const { totalCount } = await unscoped({ take: 0, salesPersonId: { operator: 'EQ', values: [id] }, getTotalCount: true } as unknown as Criteria);
      if (totalCount! > most) [most, salesPersonId] = [totalCount!, id];
    }
    expect(most).to.be.greaterThan(1_500);
  });
  after(() => server?.stop());

  const cases: [string, Criteria][] = [
    ['first page', { take: 50 }],
    ['status, newest first, with the count', { take: 20, status: { operator: 'EQ', values: [5] }, sort: [{ fieldName: 'orderDate', sortDirection: 'Descending' }], getTotalCount: true }],
    ['total due GT, by total due', { take: 30, totalDue: { operator: 'GT', values: [1000] }, sort: [{ fieldName: 'totalDue', sortDirection: 'Ascending' }], getTotalCount: true }],
    ['customer name contains', { take: 30, customerName: { operator: 'CN', values: ['a'] }, getTotalCount: true }],
    ['a deep page (past the middle: read from the end)', { skip: 1_300, take: 25, getTotalCount: true }],
    ['a deep page by total due descending', { skip: 1_000, take: 25, sort: [{ fieldName: 'totalDue', sortDirection: 'Descending' }] }],
  ] as unknown as [string, Criteria][];

  for (const [name, criteria] of cases) {
    it(`${name}: the scoped list is the list filtered by the sales person`, async () => {
      const mine = await scoped(String(salesPersonId), criteria);
      const filtered = await unscoped({ ...criteria, salesPersonId: { operator: 'EQ', values: [salesPersonId] } } as Criteria);
      expect(mine.messages).to.deep.equal([]);
      expect(filtered.result).to.have.length.greaterThan(0);
      expect(mine.result!.length).to.equal(filtered.result!.length);
      expect(mine.result).to.deep.equal(filtered.result);
      expect(mine.totalCount).to.equal(filtered.totalCount);
      expect(mine.result!.every((o) => o.salesPersonId === salesPersonId)).to.equal(true);
    });
  }

  it('no attribute: nothing, and a count of 0', async () => {
    const none = await scoped(undefined, { take: 10, getTotalCount: true } as Criteria);
    expect(none.result).to.deep.equal([]);
    expect(none.totalCount).to.equal(0);
  });
});
