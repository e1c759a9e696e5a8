import { expect } from 'chai';
import { expectError, probeRoutesDir } from '../support/api.js';
import { type TestServer, startTestServer } from '../support/server.js';
import { describeStores } from '../support/stores.js';

/** What a production server says of an unhandled exception (the contract's wording, part 2: status codes). */
const GENERIC_ERROR_TEXT = 'Unexpected server error occurred. Please contact your system administrator.';

const statusOfType: [string, number][] = [
  ['Validation', 400], ['Functional', 400], ['Security', 403], ['Data', 404],
  ['Concurrency', 409], ['External', 502], ['System', 500], ['Message', 500],
];

/** A stack frame as Node prints it, or a source position. */
const stackTrace = /\n\s+at |\bat .*\.(js|ts):\d+|node_modules|\/work\//;

describeStores('status derivation (contract part 2)', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ routesDir: probeRoutesDir, sampleData: false });
  });
  after(() => server.stop());

  for (const [type, status] of statusOfType) {
    it(`answers ${status} for one ${type} message of severity Error or Critical`, async () => {
      for (const severity of ['Error', 'Critical']) {
        const reply = await server.call(`/probe/${type}-${severity}`);
        expect(reply.status, `${type}/${severity}`).to.equal(status);
        expect(reply.body).to.deep.equal({ messages: [{ code: `Probe_${type}`, message: `A ${type} message.`, severity, type }] });
      }
    });
  }

  it('answers the highest status among the error messages', async () => {
    expect((await server.call('/probe/Data-Error-Concurrency-Error-Validation-Error')).status).to.equal(409);
    expect((await server.call('/probe/External-Error-System-Critical')).status).to.equal(502);
    expect((await server.call('/probe/Validation-Error-Data-Critical')).status).to.equal(404);
  });

  it('ignores Warning and Info messages when deriving the status', async () => {
    const reply = await server.call('/probe/System-Warning-External-Info-Validation-Error');
    expect(reply.status).to.equal(400);
    expect(reply.body.messages).to.have.length(3);
    const onlyWarnings = await server.call('/probe/System-Warning-Concurrency-Info');
    expect(onlyWarnings.status).to.equal(200);
    expect(onlyWarnings.body.result).to.deep.equal({ ok: true });
  });

  it('reports the messages a thrown service error carries', async () => {
    const reply = await server.call('/probe/service-error');
    expectError(reply, 409, 'Probe_Conflict');
    expect(reply.body.messages[0].type).to.equal('Concurrency');
  });

  it('reports an unhandled exception as 500 Exception_Unhandled, merged with the messages recorded before it, without a stack trace', async () => {
    const reply = await server.call('/probe/throw');
    expect(reply.status).to.equal(500);
    expect(reply.body).to.not.have.property('result');
    expect(reply.body.messages.map((m) => [m.code, m.severity, m.type])).to.deep.equal([
      ['Probe_Before', 'Warning', 'Message'],
      ['Exception_Unhandled', 'Error', 'System'],
    ]);
    expect(reply.body.messages[1].message.startsWith(GENERIC_ERROR_TEXT)).to.equal(true);
    expect(reply.text).to.not.match(stackTrace);
  });

  it('logs the 500 once, server-side, with the X-Request-Id of the response', async () => {
    const before = server.logs.length;
    const reply = await server.call('/probe/throw', { headers: { 'X-Request-Id': 'trace-500-a' } });
    expect(reply.status).to.equal(500);
    expect(reply.headers.get('X-Request-Id')).to.equal('trace-500-a');
    const errors = server.logs.slice(before).filter((l) => l.level === 'error');
    expect(errors).to.have.length(1);
    expect(errors[0].requestId).to.equal('trace-500-a');
    expect(String(errors[0].error)).to.contain('kaboom');
  });
});

describeStores('status derivation in production (contract part 2)', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ routesDir: probeRoutesDir, sampleData: false, env: { NODE_ENV: 'production' } });
  });
  after(() => server.stop());

  it('answers an unhandled exception with exactly the generic text', async () => {
    const reply = await server.call('/probe/throw');
    expect(reply.status).to.equal(500);
    const m = reply.body.messages.find((x) => x.code === 'Exception_Unhandled')!;
    expect(m.message).to.equal('Unexpected server error occurred. Please contact your system administrator.');
    expect(reply.text).to.not.contain('kaboom');
    expect(reply.text).to.not.match(stackTrace);
    const logged = server.logs.find((l) => l.level === 'error' && l.requestId === reply.headers.get('X-Request-Id'));
    expect(logged, 'log line with the request id').to.not.equal(undefined);
  });
});
