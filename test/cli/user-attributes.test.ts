import { expect } from 'chai';
import { withErrorScope } from 'restlayer';
import { cliEnv, expectCliFailure, lines } from '../support/cli-env.js';
import { killChildren, runCli } from '../support/processes.js';
import { type TestServer, startTestServer } from '../support/server.js';
import { FAST_HASH, addUser } from '../support/users.js';
import { describeStores } from '../support/stores.js';

/** `restlayer user set-attribute`, `remove-attribute`, `add --attribute` and `list`, as real processes (contract part 8). */
describeStores('restlayer user attributes (a real process against a running server)', function () {
  this.timeout(120_000);
  let server: TestServer;
  const cli = (args: string[]) => runCli(['user', ...args], { env: cliEnv(server) });
  const stored = async (name: string) => (await withErrorScope(() => server.services.users.read(name))).result;

  before(async () => {
    server = await startTestServer({ config: { Authentication: FAST_HASH.Authentication } });
    await addUser(server, 'ava', 'ava-password-1', ['Clerk']);
  });
  after(async () => {
    await killChildren();
    await server?.stop();
  });

  it('set-attribute sets (exit 0, one line); the same value again changes nothing; --json says which', async () => {
    const run = await cli(['set-attribute', 'AVA', 'salesPersonId', '279']);
    expect(run.code, run.stderr).to.equal(0);
    expect(run.stderr).to.equal('');
    expect(lines(run.stdout)).to.deep.equal(['attribute salesPersonId of user AVA set to 279']);
    expect((await stored('ava'))?.attributes).to.deep.equal({ salesPersonId: '279' });

    const again = await cli(['set-attribute', 'ava', 'salesPersonId', '279']);
    expect(lines(again.stdout)).to.deep.equal(['user ava already has salesPersonId=279; nothing changed']);
    const json = await cli(['set-attribute', 'ava', 'team.name', 'North & South', '--json']);
    expect(json.code, json.stderr).to.equal(0);
    expect(JSON.parse(json.stdout)).to.deep.equal({ userName: 'ava', key: 'team.name', value: 'North & South', changed: true });
    expect((await stored('ava'))?.attributes).to.deep.equal({ salesPersonId: '279', 'team.name': 'North & South' });
  });

  it('set-attribute: an unknown user is exit 1, one line; a bad key or value is exit 2 (usage), nothing stored', async () => {
    expectCliFailure(await cli(['set-attribute', 'nobody-here', 'salesPersonId', '1']), 1, "User 'nobody-here' not found.");
    const json = await cli(['set-attribute', 'nobody-here', 'salesPersonId', '1', '--json']);
    expect(json.code).to.equal(1);
    expect(JSON.parse(json.stdout)).to.deep.equal({ error: "User 'nobody-here' not found.", exitCode: 1 });

    expectCliFailure(await cli(['set-attribute', 'ava', 'sales person', '1']), 2, "attribute key 'sales person' must be 1 to 64 letters, digits, '_', '.' or '-'");
    expectCliFailure(await cli(['set-attribute', 'ava', 'k'.repeat(65), '1']), 2, 'must be 1 to 64 letters');
    expectCliFailure(await cli(['set-attribute', 'ava', 'note', 'x'.repeat(257)]), 2, "value of attribute 'note' is longer than 256 characters");
    expectCliFailure(await cli(['set-attribute', 'ava', 'note', 'a\u001b[2Kb']), 2, "value of attribute 'note' holds control characters");
    expectCliFailure(await cli(['set-attribute', 'ava', 'note', '']), 2, "to remove it use 'user remove-attribute'");
    expectCliFailure(await cli(['set-attribute', 'ava', 'note']), 2, "missing required argument 'value'");
    // The longest key and value are fine.
    const longest = await cli(['set-attribute', 'ava', 'k'.repeat(64), 'é'.repeat(256)]);
    expect(longest.code, longest.stderr).to.equal(0);
    expect((await stored('ava'))?.attributes).to.not.have.property('note');
    expect((await stored('ava'))?.attributes['k'.repeat(64)]).to.equal('é'.repeat(256));
  });

  it('remove-attribute removes (exit 0); a key the user lacks changes nothing; unknown user exit 1; bad key exit 2', async () => {
    await cli(['set-attribute', 'ava', 'region', 'west']);
    const run = await cli(['remove-attribute', 'ava', 'region']);
    expect(run.code, run.stderr).to.equal(0);
    expect(lines(run.stdout)).to.deep.equal(['attribute region of user ava removed']);
    expect((await stored('ava'))?.attributes).to.not.have.property('region');
    const again = await cli(['remove-attribute', 'ava', 'region', '--json']);
    expect(again.code, again.stderr).to.equal(0);
    expect(JSON.parse(again.stdout)).to.deep.equal({ userName: 'ava', key: 'region', changed: false });
    expect(lines((await cli(['remove-attribute', 'ava', 'region'])).stdout)).to.deep.equal(['user ava has no attribute region; nothing changed']);
    expectCliFailure(await cli(['remove-attribute', 'nobody-here', 'region']), 1, "User 'nobody-here' not found.");
    expectCliFailure(await cli(['remove-attribute', 'ava', 'no/such']), 2, "attribute key 'no/such' must be");
  });

  it('add --attribute KEY=VALUE (repeatable, split at the first =): stored with the user, in the output and --json', async () => {
    const run = await cli(['add', 'bea', '--role', 'Clerk', '--attribute', 'salesPersonId=280', '--attribute', 'formula=a=b', '--password', 'bea-password-1']);
    expect(run.code, run.stderr).to.equal(0);
    expect(lines(run.stdout)).to.deep.equal(['user bea created with roles Clerk and attributes formula=a=b, salesPersonId=280']);
    expect((await stored('bea'))?.attributes).to.deep.equal({ formula: 'a=b', salesPersonId: '280' });
    const json = await cli(['add', 'cal', '--role', 'Clerk', '--attribute', 'salesPersonId=281', '--password', 'cal-password-1', '--json']);
    expect(json.code, json.stderr).to.equal(0);
    expect(JSON.parse(json.stdout)).to.deep.include({ userName: 'cal', attributes: { salesPersonId: '281' } });
  });

  it('add with a bad --attribute: exit 2, one line, and no user created', async () => {
    const add = (attribute: string) => cli(['add', 'dex', '--role', 'Clerk', '--attribute', attribute, '--password', 'dex-password-1']);
    expectCliFailure(await add('salesPersonId'), 2, "--attribute 'salesPersonId' must be KEY=VALUE");
    expectCliFailure(await add('=279'), 2, "attribute key '' must be 1 to 64");
    expectCliFailure(await add('bad key=1'), 2, "attribute key 'bad key' must be");
    expectCliFailure(await add('note='), 2, "attribute 'note' needs a value");
    expectCliFailure(await cli(['add', 'dex', '--role', 'Clerk', '--attribute', 'a=1', '--attribute', 'a=2', '--password', 'dex-password-1']), 2, "--attribute 'a' is given twice");
    expect(await stored('dex')).to.equal(undefined);
  });

  it('list shows attributes: a fifth column for users that have some (others keep four), and attributes in --json', async () => {
    await addUser(server, 'eli', 'eli-password-1', ['Clerk']);
    await cli(['set-attribute', 'eli', 'salesPersonId', '283']);
    await cli(['set-attribute', 'eli', 'region', 'east']);
    await addUser(server, 'fay', 'fay-password-1', ['Clerk']);
    const run = await cli(['list']);
    expect(run.code, run.stderr).to.equal(0);
    const out = lines(run.stdout);
    expect(out).to.include('eli\teli\tClerk\tactive\tregion=east, salesPersonId=283');
    expect(out).to.include('fay\tfay\tClerk\tactive');
    const json = JSON.parse((await cli(['list', '--json'])).stdout) as { userName: string; attributes: Record<string, string> }[];
    expect(json.find((u) => u.userName === 'eli')?.attributes).to.deep.equal({ region: 'east', salesPersonId: '283' });
    expect(json.find((u) => u.userName === 'fay')?.attributes).to.deep.equal({});
  });
});
