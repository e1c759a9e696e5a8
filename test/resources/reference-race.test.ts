import { expect } from 'chai';
import { type TestServer, startTestServer } from 'restlayer/testing';
import { whileHeld } from '../support/held-row.js';
import { describeStores } from '../support/stores.js';
import { suiteProbeApplication } from '../testing/suite-probe/suite-probe-module.js';

/**
 * A create naming a record of a resource without soft delete (a probe's owner) while that record is deleted: the
 * create reads its references again under a lock the delete waits for, so one of them wins with its own answer — the
 * create's 400 for an unknown owner, or the delete's 409 Entity_InUse — never the foreign key's failure (a 500).
 */
describeStores('a reference deleted while a create names it (hard delete)', function () {
  this.timeout(60_000);
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ application: suiteProbeApplication, logLevel: 'error' });
  });
  after(() => server?.stop());

  it('the create is a 400 on the reference, or the delete a 409; never a 500, and never a probe without its owner', async () => {
    const owner = await server.call('/suite-owner', { method: 'POST', body: { name: 'Racing owner' } });
    expect(owner.status, owner.text).to.equal(201);
    const ownerId = owner.body.result.suiteOwnerId as number;
    // The delete takes the owner's row first (it waits for the held row), then the create, whose own check passed.
    const [deleted, created] = await whileHeld(server, 'suite_owner', 'suite_owner_id', ownerId, () => [
      server.call(`/suite-owner/${ownerId}`, { method: 'DELETE' }),
      new Promise<void>((resolve) => setTimeout(resolve, 250)).then(() => server.call('/suite-probe', {
        method: 'POST', body: { code: `RACE-${ownerId}`, quantity: 1, price: 2, ownerId },
      })),
    ]);
    const outcome = [deleted.status, created.status];
    expect([[200, 400], [409, 201]], `${deleted.text} ${created.text}`).to.deep.include(outcome);
    if (created.status === 400) expect(created.body.messages.map((m: { property?: string }) => m.property)).to.deep.equal(['ownerId']);
    expect((await server.call(`/suite-owner/${ownerId}`)).status).to.equal(deleted.status === 200 ? 404 : 200);
  });
});
