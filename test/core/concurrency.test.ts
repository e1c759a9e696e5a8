import { expect } from 'chai';
import { expectOk, readOrder } from '../support/api.js';
import { type TestServer, startTestServer } from '../support/server.js';
import { describeStores } from '../support/stores.js';

const PARALLEL = 20;

describeStores('concurrent updates (contract part 3)', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.stop());

  it(`lets exactly one of ${PARALLEL} parallel PUTs with the same revisionNumber win; the others get 409 and write nothing`, async () => {
    const before = await readOrder(server, 43700);
    const revision = before.revisionNumber as number;
    const replies = await Promise.all(Array.from({ length: PARALLEL }, (_, i) =>
      server.call('/sales-order/43700', { method: 'PUT', body: { status: 2, onlineOrderFlag: true, comment: `writer ${i}`, revisionNumber: revision } })));

    const statuses = replies.map((r) => r.status);
    expect(statuses.filter((s) => s === 200), statuses.join()).to.have.length(1);
    expect(statuses.filter((s) => s === 409), statuses.join()).to.have.length(PARALLEL - 1);
    for (const r of replies.filter((x) => x.status === 409)) {
      expect(r.body.messages.map((m) => m.code)).to.deep.equal(['Entity_Concurrency']);
      expect(r.body).to.not.have.property('result');
    }

    const winner = replies.findIndex((r) => r.status === 200);
    expect(replies[winner].body.result.revisionNumber).to.equal(revision + 1);
    const after = await readOrder(server, 43700);
    expect(after).to.include({ revisionNumber: revision + 1, comment: `writer ${winner}`, status: 2, modifiedDate: replies[winner].body.result.modifiedDate });
  });

  it(`loses no update when ${PARALLEL} parallel PUTs send no revisionNumber: each one counts`, async () => {
    const before = (await readOrder(server, 43701)).revisionNumber as number;
    const replies = await Promise.all(Array.from({ length: PARALLEL }, (_, i) =>
      server.call('/sales-order/43701', { method: 'PUT', body: { status: 1, onlineOrderFlag: false, comment: `blind ${i}` } })));
    for (const r of replies) expectOk(r);
    const revisions = replies.map((r) => r.body.result.revisionNumber as number).sort((a, b) => a - b);
    expect(revisions).to.deep.equal(Array.from({ length: PARALLEL }, (_, i) => before + 1 + i));
    const after = await readOrder(server, 43701);
    expect(after.revisionNumber).to.equal(before + PARALLEL);
    const last = replies.find((r) => r.body.result.revisionNumber === before + PARALLEL)!;
    expect(after.comment).to.equal(`blind ${replies.indexOf(last)}`);
  });

  it(`loses no update when ${PARALLEL} writers each retry on 409 with the revision they re-read`, async () => {
    expectOk(await server.call('/sales-order/43702', { method: 'PUT', body: { status: 1, onlineOrderFlag: false, comment: 'log:' } }));
    const start = (await readOrder(server, 43702)).revisionNumber as number;
    const writer = async (i: number) => {
      for (let attempt = 0; attempt < 100; attempt++) {
        const { revisionNumber, comment } = await readOrder(server, 43702);
        const log = `${comment as string}${i},`;
        const reply = await server.call('/sales-order/43702', { method: 'PUT', body: { status: 1, onlineOrderFlag: false, comment: log.slice(-128), revisionNumber } });
        if (reply.status === 200) return;
        expect(reply.status, reply.text).to.equal(409);
      }
      throw new Error(`writer ${i} never got through`);
    };
    await Promise.all(Array.from({ length: PARALLEL }, (_, i) => writer(i)));
    const after = await readOrder(server, 43702);
    expect(after.revisionNumber).to.equal(start + PARALLEL);
    expect(String(after.comment).startsWith('log:')).to.equal(true);
    const written = String(after.comment).slice(4).split(',').filter(Boolean).map(Number).sort((a, b) => a - b);
    expect(written).to.deep.equal(Array.from({ length: PARALLEL }, (_, i) => i));
  });
  it(`a DELETE racing ${PARALLEL} PUTs of the same order: each PUT is written before it (200) or finds it gone (404); it stays deleted`, async () => {
    const created = await server.call('/sales-order', { method: 'POST', body: { customerId: 11003, status: 1, onlineOrderFlag: false } });
    expect(created.status, created.text).to.equal(201);
    const id = created.body.result.salesOrderId as number;
    const path = `/sales-order/${id}`;
    const [deleted, ...puts] = await Promise.all([
      server.call(path, { method: 'DELETE' }),
      ...Array.from({ length: PARALLEL }, (_, i) => server.call(path, { method: 'PUT', body: { status: 2, onlineOrderFlag: true, comment: `late ${i}` } })),
    ]);
    expect(deleted.status, deleted.text).to.equal(200);
    for (const r of puts) {
      expect([200, 404], r.text).to.include(r.status);
      if (r.status === 404) expect(r.body.messages.map((m) => m.code)).to.deep.equal(['Entity_NotFound']);
    }
    const after = await server.call(path);
    expect(after.status).to.equal(404);
  });
});
