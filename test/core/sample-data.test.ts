import { expect } from 'chai';
import { countOrders, listOrders } from '../support/api.js';
import { type TestServer, startTestServer } from '../support/server.js';
import { describeStores } from '../support/stores.js';

describeStores('sample data (contract part 9)', () => {
  let server: TestServer;
  let total: number;
  before(async () => {
    server = await startTestServer();
    total = await countOrders(server);
  });
  after(() => server.stop());

  it('holds at least 10,000 orders', () => {
    expect(total).to.be.at.least(10_000);
  });

  it('spreads the orders over several years', async () => {
    const [first] = await listOrders(server, 'sort[0].fieldName=orderDate&take=1');
    const [last] = await listOrders(server, 'sort[0].fieldName=orderDate&sort[0].sortDirection=Descending&take=1');
    const from = new Date(first.orderDate).getUTCFullYear();
    const to = new Date(last.orderDate).getUTCFullYear();
    expect(to - from).to.be.at.least(3);
    const perYear: number[] = [];
    for (let year = from; year <= to; year++) perYear.push(await countOrders(server, `orderDate=${year}-01-01&orderDate=${year}-12-31T23:59:59.999Z`));
    expect(perYear.every((n) => n > 0), perYear.join()).to.equal(true);
    expect(perYear.reduce((a, b) => a + b, 0)).to.equal(total);
    expect(Math.max(...perYear)).to.be.below(total * 0.6);
  });

  it('uses every status of the lookup table', async () => {
    const statuses = (await server.call('/lookup-table/sales-order-status')).body.result.data.map((s: { id: number }) => s.id);
    const counts = await Promise.all(statuses.map((s: number) => countOrders(server, `status=${s}`)));
    expect(counts.every((n) => n > 0), counts.join()).to.equal(true);
    expect(counts.reduce((a, b) => a + b, 0)).to.equal(total);
  });

  it('spreads the orders over the territories', async () => {
    const territories = (await server.call('/lookup-table/sales-territory')).body.result.data.map((t: { id: number }) => t.id);
    const counts: number[] = await Promise.all(territories.map((t: number) => countOrders(server, `territoryId=${t}`)));
    expect(counts.filter((n) => n > 0).length).to.be.at.least(5);
    expect(Math.max(...counts)).to.be.below(total / 2);
  });

  it('spreads the orders over the sales people, and has orders without one', async () => {
    const people = (await server.call('/lookup-table/sales-person')).body.result.data.map((p: { id: number }) => p.id);
    const counts: number[] = await Promise.all(people.map((p: number) => countOrders(server, `salesPersonId=${p}`)));
    expect(counts.filter((n) => n > 0).length).to.be.at.least(5);
    const withPerson = counts.reduce((a, b) => a + b, 0);
    expect(withPerson).to.be.within(1, total - 1);
    expect(await countOrders(server, 'salesPersonId.operator=NL')).to.equal(total - withPerson);
  });

  it('has online and offline orders, with and without a ship date', async () => {
    const online = await countOrders(server, 'onlineOrderFlag=true');
    expect(online).to.be.within(1, total - 1);
    const shipped = await listOrders(server, 'status=5&take=20');
    expect(shipped.every((o) => typeof o.shipDate === 'string')).to.equal(true);
    const open = await listOrders(server, 'status=1&take=20');
    expect(open.length).to.equal(20);
  });
});
