import { expect } from 'chai';
import { expectError, expectOk, readOrder } from '../support/api.js';
import { type TestServer, startTestServer } from '../support/server.js';
import { describeStores } from '../support/stores.js';

const mergePatch = { 'Content-Type': 'application/merge-patch+json' };

describeStores('PATCH /sales-order/{id}: JSON merge patch (contract part 3)', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.stop());

  const patch = (id: number, body: unknown, headers: Record<string, string> = mergePatch) =>
    server.call(`/sales-order/${id}`, { method: 'PATCH', body, headers });

  it('changes only the fields the body names and answers what PUT answers', async () => {
    const before = await readOrder(server, 43660);
    const reply = await patch(43660, { comment: 'Leave at the gate.' });
    const { result } = expectOk(reply);
    expect(Object.keys(result)).to.have.members(['revisionNumber', 'modifiedDate']);
    expect(result.revisionNumber).to.equal((before.revisionNumber as number) + 1);
    const after = await readOrder(server, 43660);
    expect(after).to.deep.equal({ ...before, comment: 'Leave at the gate.', revisionNumber: result.revisionNumber, modifiedDate: result.modifiedDate });
  });

  it('null clears an optional field; property names match case-insensitively', async () => {
    const before = await readOrder(server, 43659);
    expect(before.purchaseOrderNumber).to.be.a('string');
    expectOk(await patch(43659, { PurchaseOrderNumber: null, COMMENT: 'no PO' }));
    const after = await readOrder(server, 43659);
    expect(after).to.not.have.property('purchaseOrderNumber');
    expect(after.comment).to.equal('no PO');
    expect(after.status).to.equal(before.status);
    expect(after.accountNumber).to.equal(before.accountNumber);
  });

  it('null on a required field is a 400 on that property, and nothing is written', async () => {
    const before = await readOrder(server, 43662);
    const m = expectError(await patch(43662, { status: null }), 400, 'Input_Required', 'status');
    expect(m.message).to.match(/status/);
    expect(await readOrder(server, 43662)).to.deep.equal(before);
  });

  it('each field is checked as PUT checks it: every problem reported, unknown properties refused', async () => {
    const reply = await patch(43662, { comment: 'C'.repeat(129), status: 99, colour: 'red' });
    expect(reply.status).to.equal(400);
    expect(reply.body.messages.map((m) => m.property)).to.have.members(['comment', 'colour']);
  });

  it('checks the merged order as an update does (a status outside the lookup table)', async () => {
    const before = await readOrder(server, 43662);
    expectError(await patch(43662, { status: 99 }), 400, 'SalesOrder_InvalidStatus', 'status');
    expect(await readOrder(server, 43662)).to.deep.equal(before);
  });

  it('a stale revisionNumber is a 409 Entity_Concurrency and nothing is written', async () => {
    const before = await readOrder(server, 43663);
    expectOk(await patch(43663, { comment: 'first', revisionNumber: before.revisionNumber }));
    const after = await readOrder(server, 43663);
    expectError(await patch(43663, { comment: 'second', revisionNumber: before.revisionNumber }), 409, 'Entity_Concurrency', 'revisionNumber');
    expect(await readOrder(server, 43663)).to.deep.equal(after);
  });

  it('an unknown order is a 404 Entity_NotFound', async () => {
    expectError(await patch(5, { comment: 'x' }), 404, 'Entity_NotFound');
  });

  it('plain application/json is read as a merge patch; JSON Patch (application/json-patch+json) is a 415', async () => {
    expectOk(await patch(43664, { comment: 'as json' }, { 'Content-Type': 'application/json' }));
    expect((await readOrder(server, 43664)).comment).to.equal('as json');
    const m = expectError(await patch(43664, [{ op: 'replace', path: '/comment', value: 'x' }], { 'Content-Type': 'application/json-patch+json' }),
      415, 'Request_UnsupportedMediaType');
    expect(m.message).to.include('application/merge-patch+json');
  });

  it('concurrent patches of different fields lose none of them: every success is one revision, the last values stay', async () => {
    const id = 43665;
    const before = await readOrder(server, id);
    const comments = Array.from({ length: 10 }, (_, i) => `comment ${i}`);
    const accounts = Array.from({ length: 10 }, (_, i) => `ACC-${i}`);
    const replies = await Promise.all([
      ...comments.map((comment) => patch(id, { comment }).then((r) => ({ r, comment }))),
      ...accounts.map((accountNumber) => patch(id, { accountNumber }).then((r) => ({ r, accountNumber }))),
    ]);
    for (const { r } of replies) expect([200, 409], r.text).to.include(r.status);
    const ok = replies.filter(({ r }) => r.status === 200);
    const after = await readOrder(server, id);
    expect(after.revisionNumber).to.equal((before.revisionNumber as number) + ok.length);
    // The highest revision written is the order's state: both fields hold a value some successful patch wrote.
    const okComments = ok.filter((o) => 'comment' in o).map((o) => (o as { comment: string }).comment);
    const okAccounts = ok.filter((o) => 'accountNumber' in o).map((o) => (o as { accountNumber: string }).accountNumber);
    expect(okComments.length + okAccounts.length).to.be.greaterThan(0);
    if (okComments.length) expect(okComments).to.include(after.comment);
    else expect(after.comment).to.equal(before.comment);
    if (okAccounts.length) expect(okAccounts).to.include(after.accountNumber);
    else expect(after.accountNumber).to.equal(before.accountNumber);
  });

  describe('the key rules of PUT hold for PATCH (contract part 3; issue 20, defect 3: patchModel checked a plain object())', () => {
    const raw = (id: number, body: string) => server.call(`/sales-order/${id}`, { method: 'PATCH', body, headers: mergePatch });

    it('two keys naming one property, in any case or spelled alike, are a 400 Input_Duplicate on it, and nothing is written', async () => {
      const before = await readOrder(server, 43666);
      expectError(await raw(43666, '{"comment":"A","COMMENT":"B"}'), 400, 'Input_Duplicate', 'comment');
      expectError(await raw(43666, '{"comment":"A","comment":"B"}'), 400, 'Input_Duplicate', 'comment');
      expect(await readOrder(server, 43666)).to.deep.equal(before);
    });

    it('a stale revisionNumber cannot pass the check through a second spelling that asks for none', async () => {
      const id = 43667;
      expectOk(await patch(id, { comment: 'current' }));
      const before = await readOrder(server, id);
      expect(before.revisionNumber).to.be.above(1);
      expectError(await raw(id, '{"revisionNumber":1,"comment":"stale","REVISIONNUMBER":null}'), 400, 'Input_Duplicate', 'revisionNumber');
      expect(await readOrder(server, id)).to.deep.equal(before);
    });

    it('__proto__, constructor and prototype are a 400 Input_ReservedName on that property (was dropped silently), and nothing is written', async () => {
      const before = await readOrder(server, 43668);
      for (const name of ['__proto__', 'constructor', 'Prototype']) {
        expectError(await raw(43668, `{"${name}":{"comment":"x"},"comment":"y"}`), 400, 'Input_ReservedName', name);
      }
      expect(await readOrder(server, 43668)).to.deep.equal(before);
    });

    it('converts values as PUT does: "2" and "TRUE" are taken where PUT takes them', async () => {
      expectOk(await server.call('/sales-order/43669', { method: 'PUT', body: { status: '2', onlineOrderFlag: 'TRUE' } }));
      expect(await readOrder(server, 43669)).to.include({ status: 2, onlineOrderFlag: true });
      expectOk(await patch(43670, { status: '3', onlineOrderFlag: 'FALSE', revisionNumber: String((await readOrder(server, 43670)).revisionNumber) }));
      expect(await readOrder(server, 43670)).to.include({ status: 3, onlineOrderFlag: false });
    });

    it('an empty patch writes nothing and keeps the revision; a stale revisionNumber alone is still a 409', async () => {
      const before = await readOrder(server, 43671);
      const { result } = expectOk(await patch(43671, {}));
      expect(result).to.deep.equal({ revisionNumber: before.revisionNumber, modifiedDate: before.modifiedDate });
      expectOk(await patch(43671, { revisionNumber: before.revisionNumber }));
      expectOk(await patch(43671, { revisionNumber: null }));
      expect(await readOrder(server, 43671)).to.deep.equal(before);
      expectOk(await patch(43671, { comment: 'changed' }));
      const after = await readOrder(server, 43671);
      expectError(await patch(43671, { revisionNumber: before.revisionNumber }), 409, 'Entity_Concurrency', 'revisionNumber');
      expect(await readOrder(server, 43671)).to.deep.equal(after);
      expectError(await patch(5, {}), 404, 'Entity_NotFound');
    });
  });

  it('is described in the OpenAPI document with an application/merge-patch+json body (plain JSON taken as one too)', async () => {
    const doc = (await server.call('/openapi.json')).body.result;
    const op = doc.paths['/sales-order/{salesOrderId}'].patch;
    expect(op.operationId).to.equal('ISalesOrderService.patch');
    expect(Object.keys(op.requestBody.content)).to.deep.equal(['application/merge-patch+json', 'application/json']);
  });
});
