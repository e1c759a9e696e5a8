import { createHash } from 'node:crypto';
import { hostname } from 'node:os';
import { expect } from 'chai';
import pg from 'pg';
import { dropTestDatabases, pgAdminUrl, startTestServer } from 'restlayer/testing';
import { application } from '../../services/index.js';
import { requireServices } from '../support/hooks.js';
import { WHY_ONE_STORE, describeOneStore } from '../support/stores.js';

/** restlayer/testing as an application's tests use it: the store it is asked for, fresh and dropped; metrics; cleanup of its own. */
describeOneStore('restlayer/testing: the test server and its stores', WHY_ONE_STORE.testingPackage, function () {
  this.timeout(180_000);

  async function databases(): Promise<string[]> {
    const client = new pg.Client({ connectionString: pgAdminUrl });
    await client.connect();
    try {
      return (await client.query<{ datname: string }>("SELECT datname FROM pg_database WHERE datname LIKE 'restlayer\\_t%'")).rows.map((r) => r.datname);
    } finally {
      await client.end();
    }
  }

  it('serves Prometheus metrics on a port of its own when asked (metricsUrl), and none otherwise', async () => {
    const server = await startTestServer({ application, metrics: true, storage: 'sqlite' });
    try {
      expect(server.metricsUrl).to.match(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
      expect((await server.call('/sales-order?take=1')).status).to.equal(200);
      const scraped = await fetch(server.metricsUrl!);
      expect(scraped.status).to.equal(200);
      expect(await scraped.text()).to.include('http_server_request_duration_seconds');
    } finally {
      await server.stop();
    }
    const plain = await startTestServer({ application, storage: 'sqlite' });
    await plain.stop();
    expect(plain.metricsUrl).to.equal(undefined);
  });

  describe('on PostgreSQL', () => {
    before(async function () {
      await requireServices(this, ['postgres'], 'restlayer/testing on PostgreSQL');
    });

    it("env Storage__Provider=postgres is obeyed: each server gets a fresh database, and stop() drops it", async () => {
      const first = await startTestServer({ application, env: { Storage__Provider: 'postgres' } });
      expect(first.storage).to.equal('postgres');
      const created = await first.call('/customer', { method: 'POST', body: { name: 'Only in the first', accountNumber: 'AW-FIRST-1' } });
      expect(created.status, created.text).to.equal(201);
      const second = await startTestServer({ application, storage: 'postgres' });
      try {
        expect(second.databaseUrl).to.not.equal(first.databaseUrl);
        const listed = await second.call('/customer?getTotalCount=true&take=0');
        expect(listed.body.totalCount, listed.text).to.equal(0);
      } finally {
        await second.stop();
      }
      const name = new URL(first.databaseUrl!).pathname.slice(1);
      expect(await databases()).to.include(name);
      await first.stop();
      expect(await databases()).to.not.include(name);
    });

    it("cleanup drops only its own databases and a dead process's of this host: a live run's and another host's stay", async () => {
      const host = createHash('sha256').update(hostname()).digest('hex').slice(0, 6);
      const dead = 2 ** 22 + 17; // above Linux's largest pid: no such process
      const names = {
        dead: `restlayer_t_${host}_${dead}_0badc0de`,
        live: `restlayer_t_${host}_${process.ppid}_0badc0de`,
        otherHost: `restlayer_t_ffffff_${dead}_0badc0de`,
      };
      const client = new pg.Client({ connectionString: pgAdminUrl });
      await client.connect();
      try {
        for (const name of Object.values(names)) await client.query(`CREATE DATABASE ${name}`);
        // This run makes a database of its own, so the cleanup has a server to look at.
        const server = await startTestServer({ application, storage: 'postgres', sampleData: false });
        await server.stop();
        await dropTestDatabases();
        const left = await databases();
        expect(left).to.not.include(names.dead);
        expect(left).to.include.members([names.live, names.otherHost]);
      } finally {
        for (const name of Object.values(names)) await client.query(`DROP DATABASE IF EXISTS ${name}`);
        await client.end();
      }
    });
  });
});
