import { expect } from 'chai';
import { expectCliFailure, lines } from '../support/cli-env.js';
import { childEnv, runCli } from '../support/processes.js';
import { type StandInAnswer, standIn } from '../support/stand-in.js';
import { newKey } from '../support/tokens.js';

/**
 * Issue 37 finding 9: every CLI call through a running server (`lookup flush`, `user unlock` without Redis) answers a
 * reply that is not what a restlayer server sends (no envelope, or no result where the command reads one) with one
 * line naming the URL: never a TypeError, a second line or a claimed success.
 */
describe('the CLI through a server: one clear line for an unexpected reply', function () {
  this.timeout(60_000);
  const env = childEnv({
    Authentication__Schemes__Bearer__SigningKeys__0__Issuer: 'restlayer',
    Authentication__Schemes__Bearer__SigningKeys__0__Value: newKey(),
  });
  const answering = async (answer: StandInAnswer, args: string[]) => {
    const server = await standIn(answer);
    try {
      return await runCli([...args, '--url', server.url], { env });
    } finally {
      await server.close();
    }
  };

  it('user unlock at a server answering {"messages":[]}: exit 1, the result it lacks, no "Cannot read properties"', async () => {
    const run = await answering({ status: 200, type: 'application/json', body: '{"messages":[]}' }, ['user', 'unlock', 'sp275']);
    expectCliFailure(run, 1, 'answered 200 without the result the CLI reads (cleared, true or false)');
    expect(run.stderr).to.not.include('Cannot read properties');
  });

  it('lookup flush at a server answering 200 with a web page: exit 1 (not "flushed"), naming the URL', async () => {
    const run = await answering({ status: 200, type: 'text/html', body: '<html><body>Welcome</body></html>' }, ['lookup', 'flush', '--all']);
    expectCliFailure(run, 1, 'answered 200 (text/html) without a restlayer envelope: is http://127.0.0.1:');
  });

  it('an answer that is no envelope (a gateway\'s 502, a JSON array, messages that are no list, an empty 500): one line each', async () => {
    for (const answer of [
      { status: 502, type: 'text/plain', body: 'Bad gateway' },
      { status: 200, type: 'application/json', body: '[]' },
      { status: 200, type: 'application/json', body: '{"messages":{"message":"x"}}' },
      { status: 500, body: '' },
    ]) {
      const run = await answering(answer, ['user', 'unlock', 'sp275']);
      expectCliFailure(run, 1, `answered ${answer.status}`);
      expect(run.stderr, answer.body).to.include('without a restlayer envelope');
    }
  });

  it('a refusal whose text holds line breaks and escapes stays one line, escaped', async () => {
    const body = JSON.stringify({ messages: [{ code: 'X', message: 'first\nsecond\u001b[2J', severity: 'Error', type: 'Functional' }] });
    const run = await answering({ status: 400, type: 'application/json', body }, ['user', 'unlock', 'sp275']);
    expectCliFailure(run, 1);
    expect(lines(run.stderr)).to.deep.equal(['restlayer: first\\nsecond\\x1b[2J']);
  });
});
