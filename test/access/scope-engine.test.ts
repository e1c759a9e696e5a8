import { expect } from 'chai';
import { type Kysely, Output, ServiceError, sql, withErrorScope, writeDocument, writeParent } from 'restlayer';
import { orderDocument } from '../support/order-document.js';
import type { SalesTables } from '../../services/sales-order/sales-order-tables.js';
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

  it('a document write that would move its parent out of the caller\'s scope: 403 Security_Forbidden, rolled back', async () => {
    const storage = server.infrastructure.storage;
    const db = storage.db as unknown as Kysely<unknown>;
    const id = (await unscoped({ take: 1, salesPersonId: { operator: 'EQ', values: [salesPersonId] } } as unknown as Criteria)).result![0].salesOrderId;
    const other = salesPersonId === 275 ? 276 : 275;
    const thrown = await asCaller(
      { permission: 'sales-order.update', scopes: ['own'], attributes: { salesPersonId: String(salesPersonId) } },
      () => writeDocument(storage, storage.db.withTables<SalesTables>(), orderDocument(storage, server.config.Documents.MaxLines), { parentId: id },
        (trx) => sql`update sales_order set sales_person_id = ${other}, comment = 'moved' where sales_order_id = ${id}`.execute(trx)),
    ).then(() => undefined, (err: unknown) => err);
    expect(thrown).to.be.instanceOf(ServiceError);
    expect((thrown as ServiceError).messages.map((m) => m.code)).to.deep.equal(['Security_Forbidden']);
    const { rows } = await sql<{ sales_person_id: number; comment: string | null }>`select sales_person_id, comment from sales_order where sales_order_id = ${id}`.execute(db);
    expect(rows[0].sales_person_id).to.equal(salesPersonId);
    expect(rows[0].comment).to.not.equal('moved');
  });

  it('a parent write (writeParent) that would move it out of the caller\'s scope: 403 Security_Forbidden, nothing written, no audit entry', async () => {
    const storage = server.infrastructure.storage;
    const db = storage.db as unknown as Kysely<unknown>;
    const id = (await unscoped({ take: 1, skip: 1, salesPersonId: { operator: 'EQ', values: [salesPersonId] } } as unknown as Criteria)).result![0].salesOrderId;
    const other = salesPersonId === 275 ? 276 : 275;
    const entries = async () => Number((await sql<{ n: number | string }>`select count(*) as n from audit_entry
      where entity = 'sales-order' and record_id = ${String(id)}`.execute(db)).rows[0].n);
    const audited = await entries();
    const caller = { permission: 'sales-order.update', scopes: ['own'], attributes: { salesPersonId: String(salesPersonId) } };
    const write = (salesPerson: number, comment: string) => asCaller(caller, () => writeParent(storage, storage.db.withTables<SalesTables>(),
      orderDocument(storage, server.config.Documents.MaxLines), { parentId: id }, {
        columns: () => ({ sales_person_id: salesPerson, comment }),
        audit: () => ({ entity: 'sales-order', recordId: id, operation: 'update', changes: [{ field: 'comment', new: comment }] }),
      }));
    const thrown = await write(other, 'moved').then(() => undefined, (err: unknown) => err);
    expect(thrown).to.be.instanceOf(ServiceError);
    expect((thrown as ServiceError).messages.map((m) => m.code)).to.deep.equal(['Security_Forbidden']);
    const { rows } = await sql<{ sales_person_id: number; comment: string | null }>`select sales_person_id, comment from sales_order where sales_order_id = ${id}`.execute(db);
    expect(rows[0].sales_person_id).to.equal(salesPersonId);
    expect(rows[0].comment).to.not.equal('moved');
    expect(await entries()).to.equal(audited);
    // The same write staying in scope is stored, with its entry: the refusal above was the scope's, not the write's.
    const kept = await write(salesPersonId, 'kept');
    expect(kept?.after).to.include({ comment: 'kept' });
    expect(await entries()).to.equal(audited + 1);
  });
});
