import { expect } from 'chai';
import { cliEnv, expectCliFailure } from '../support/cli-env.js';
import { killChildren, runCli } from '../support/processes.js';
import { type TestServer, startTestServer } from '../support/server.js';
import { describeStores } from '../support/stores.js';
import { addUser } from '../support/users.js';

const userNames = async (env: NodeJS.ProcessEnv) => {
  const run = await runCli(['user', 'list', '--json'], { env });
  expect(run.code, run.stderr).to.equal(0);
  return (JSON.parse(run.stdout) as { userName: string }[]).map((u) => u.userName);
};

describeStores('restlayer db reset: the development database starts over', function () {
  this.timeout(120_000);
  let server: TestServer;
  let env: NodeJS.ProcessEnv;

  before(async () => {
    server = await startTestServer({ sampleData: false, logLevel: 'error' });
    env = cliEnv(server);
    await addUser(server, 'bob', 'bob-password-1');
  });
  after(async () => {
    await killChildren();
    await server?.stop();
  });

  it('is refused in production, one line, and the database keeps its records', async () => {
    const run = await runCli(['db', 'reset', '--yes'], { env: { ...env, NODE_ENV: 'production' } });
    expectCliFailure(run, 1, 'db reset deletes every record and is refused in production (NODE_ENV=production)');
    expect(await userNames(env)).to.deep.equal(['bob']);
  });

  it('without a terminal to ask at, needs --yes (a usage error otherwise) and changes nothing', async () => {
    const run = await runCli(['db', 'reset'], { env });
    expectCliFailure(run, 2, 'db reset deletes every record: pass --yes to confirm');
    expect(await userNames(env)).to.deep.equal(['bob']);
  });

  it('--yes: every record goes, users included, and the schema and sample data are made as on a first start', async () => {
    const run = await runCli(['db', 'reset', '--yes', '--json'], { env: { ...env, Storage__SampleData: 'true' }, timeoutMs: 90_000 });
    expect(run.code, run.stderr).to.equal(0);
    const out = JSON.parse(run.stdout) as { reset: string; done: string; made: string[] };
    expect(out.done).to.equal(server.config.Storage.Provider === 'sqlite' ? 'made anew' : 'every table dropped and made anew');
    expect(out.made[0]).to.match(/^database schema updated: /);
    expect(out.made[1]).to.match(/^empty database: loaded \d+ sample sales orders$/);
    expect(await userNames(env)).to.deep.equal([]);
    // Made like a first start: a second reset finds the same schema to make again.
    const again = await runCli(['db', 'reset', '--yes'], { env, timeoutMs: 90_000 });
    expect(again.code, again.stderr).to.equal(0);
    expect(again.stdout).to.match(/: (made anew|every table dropped and made anew); schema made \(\d+ migrations\)\n/);
  });
});
