import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { type TestServer, startTestServer } from '../support/server.js';
import { testProvider } from '../support/test-stores.js';
import { describeStores } from '../support/stores.js';

/**
 * Contract part 3, "Duplicates": a unique value refused answers 409 Entity_Duplicate (type Concurrency) on its
 * property, also when the competing writes arrive at once: the service's own check cannot see a write still in
 * flight, so the store's unique index decides, and the layer answers its violation the same way (never a 500).
 */
describeStores(`customer accountNumber is unique, ignoring case (${testProvider})`, function () {
  this.timeout(60_000);
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(async () => server?.stop());

  const create = (accountNumber: string) => server.call('/customer', { method: 'POST', body: { name: 'Race Test', accountNumber } });

  it('30 concurrent creates of one account number: exactly one 201, every other 409 Entity_Duplicate on accountNumber', async () => {
    const accountNumber = `RC${randomBytes(4).toString('hex')}`;
    const replies = await Promise.all(Array.from({ length: 30 }, (_, i) => create(i % 2 ? accountNumber : accountNumber.toLowerCase())));
    const statuses = replies.map((r) => r.status);
    const refused = replies.filter((r) => r.status === 409);
    // Which refusals the index made (the service's own check had not seen the winner yet): the race was real.
    const byIndex = refused.filter((r) => r.body.messages[0].message.includes('must be unique') && !r.body.messages[0].message.includes('already has account number'));
    console.log(`      ${statuses.filter((s) => s === 201).length} × 201, ${refused.length} × 409 (${byIndex.length} by the unique index)`);
    expect(statuses.filter((s) => s === 201)).to.have.length(1);
    expect(statuses.filter((s) => s !== 201 && s !== 409), 'never a 500').to.deep.equal([]);
    for (const r of refused) {
      expect(r.body.messages).to.have.length(1);
      expect(r.body.messages[0]).to.deep.include({ code: 'Entity_Duplicate', type: 'Concurrency', property: 'accountNumber' });
    }
    const listed = await server.call(`/customer?accountNumber=${accountNumber}`);
    expect(listed.status).to.equal(200);
  });

  it('an update to another customer\'s account number (other case) answers 409 Entity_Duplicate on accountNumber', async () => {
    const accountNumber = `RU${randomBytes(4).toString('hex')}`;
    expect((await create(accountNumber)).status).to.equal(201);
    const other = await create(`${accountNumber}X`);
    const id = other.body.result.customerId as number;
    const reply = await server.call(`/customer/${id}`, { method: 'PUT', body: { name: 'Race Test', accountNumber: accountNumber.toLowerCase() } });
    expect(reply.status).to.equal(409);
    expect(reply.body.messages[0]).to.deep.include({ code: 'Entity_Duplicate', property: 'accountNumber' });
  });
});

describeStores(`a service without a check of its own: the unique index's violation is the 409 (${testProvider})`, function () {
  this.timeout(60_000);
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ routesDir: fileURLToPath(new URL('../support/unique-routes/', import.meta.url)) });
  });
  after(async () => server?.stop());

  it('30 concurrent inserts of one value: exactly one 201, every other 409 Entity_Duplicate on the declared property', async () => {
    const accountNumber = `UN${randomBytes(4).toString('hex')}`;
    const replies = await Promise.all(Array.from({ length: 30 }, () => server.call('/unchecked-customer', { method: 'POST', body: { accountNumber } })));
    expect(replies.filter((r) => r.status === 201)).to.have.length(1);
    expect(replies.filter((r) => r.status !== 201).map((r) => [r.status, r.body.messages[0]?.code, r.body.messages[0]?.property, r.body.messages[0]?.type]))
      .to.deep.equal(Array(29).fill([409, 'Entity_Duplicate', 'accountNumber', 'Concurrency']));
  });
});

describeStores(`inTransaction: a service's writes stand or fall together (${testProvider})`, function () {
  this.timeout(60_000);
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ routesDir: fileURLToPath(new URL('../support/unique-routes/', import.meta.url)) });
  });
  after(async () => server?.stop());

  const fresh = (tag: string) => `${tag}${randomBytes(4).toString('hex')}`;
  const pair = (body: Record<string, unknown>) => server.call('/customer-pair', { method: 'POST', body });
  const stored = async (accountNumber: string) => {
    const reply = await server.call(`/customer-pair/${accountNumber}`);
    expect(reply.status, reply.text).to.equal(200);
    return reply.body.result.count as number;
  };

  it('commits both writes when the work resolves', async () => {
    const [first, second] = [fresh('TA'), fresh('TB')];
    const reply = await pair({ first, second });
    expect(reply.status, reply.text).to.equal(200);
    expect(reply.body.result.customerIds).to.have.length(2);
    expect([await stored(first), await stored(second)]).to.deep.equal([1, 1]);
  });

  it('a unique key broken by the second write: 409 Entity_Duplicate on the property, and the first write is gone too', async () => {
    const taken = fresh('TT');
    expect((await pair({ first: taken, second: fresh('TU') })).status).to.equal(200);
    const first = fresh('TC');
    const reply = await pair({ first, second: taken.toLowerCase() });
    expect(reply.status, reply.text).to.equal(409);
    expect(reply.body.messages).to.have.length(1);
    expect(reply.body.messages[0]).to.deep.include({ code: 'Entity_Duplicate', type: 'Concurrency', property: 'accountNumber' });
    expect(await stored(first)).to.equal(0);
  });

  it('an error recorded and aborted on inside: its answer, and neither write stays', async () => {
    const [first, second] = [fresh('TD'), fresh('TE')];
    const reply = await pair({ first, second, refuse: true });
    expect(reply.status, reply.text).to.equal(400);
    expect(reply.body.messages.map((m) => m.code)).to.deep.equal(['Pair_Refused']);
    expect([await stored(first), await stored(second)]).to.deep.equal([0, 0]);
  });
});
