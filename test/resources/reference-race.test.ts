import { expect } from 'chai';
import { type TestServer, startTestServer } from 'restlayer/testing';
import { whileHeld } from '../support/held-row.js';
import { describeStores } from '../support/stores.js';
import { suiteProbeApplication } from '../testing/suite-probe/suite-probe-module.js';

/**
 * A create or update naming a record of a resource without soft delete (a probe's owner) while that record is deleted:
 * one of them wins with its own answer — the write's 400 for an unknown owner (its foreign key refused it, and the
 * reference is read again), or the delete's 409 Entity_InUse — never the foreign key's failure as a 500.
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

  it('an update moving a record to a reference being deleted: the update is a 400 on it, or the delete a 409; never a 500', async () => {
    const owner = async (name: string) => (await server.call('/suite-owner', { method: 'POST', body: { name } })).body.result.suiteOwnerId as number;
    const [kept, going] = [await owner('Kept owner'), await owner('Going owner')];
    const probe = await server.call('/suite-probe', { method: 'POST', body: { code: `MOVE-${going}`, quantity: 1, price: 2, ownerId: kept } });
    expect(probe.status, probe.text).to.equal(201);
    const path = `/suite-probe/${probe.body.result.suiteProbeId as number}`;
    const [deleted, moved] = await whileHeld(server, 'suite_owner', 'suite_owner_id', going, () => [
      server.call(`/suite-owner/${going}`, { method: 'DELETE' }),
      new Promise<void>((resolve) => setTimeout(resolve, 250)).then(() => server.call(path, {
        method: 'PATCH', body: { ownerId: going }, headers: { 'Content-Type': 'application/merge-patch+json' },
      })),
    ]);
    expect([[200, 400], [409, 200]], `${deleted.text} ${moved.text}`).to.deep.include([deleted.status, moved.status]);
    if (moved.status === 400) expect(moved.body.messages.map((m: { property?: string }) => m.property)).to.deep.equal(['ownerId']);
    expect((await server.call(path)).body.result.ownerId).to.equal(moved.status === 200 ? going : kept);
  });
});
