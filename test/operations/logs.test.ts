import { join } from 'node:path';
import { expect } from 'chai';
import { createLogger } from 'restlayer';
import { callUrl } from '../support/http.js';
import { killChildren, sqliteServeEnv, startServe } from '../support/processes.js';
import { routeFolder } from '../support/route-fixtures.js';
import { makeTempDir, removeTempDirs, writeFiles } from '../support/temp.js';
import { newKey } from '../support/tokens.js';

/**
 * The log (pino): JSON lines with the old logger's fields, secrets redacted by field name, and nothing lost when
 * the process ends on a defect nobody caught. (test/hardening/logging.test.ts covers the request lines and that no
 * password, token or cookie a real process handled reaches its log.)
 */

type Line = Record<string, unknown>;

describe('operations: logs', function () {
  this.timeout(60_000);

  describe('a logger', () => {
    const logged = (level: 'debug' | 'info' | 'warn' | 'error' = 'info') => {
      const lines: string[] = [];
      return { lines, log: createLogger(level, (line) => lines.push(line)) };
    };

    it('writes one JSON object per line: time (ISO), level by name, msg, then the fields', () => {
      const { lines, log } = logged();
      log.info('request', { method: 'GET', status: 200 });
      log.warn('slow', { durationMs: 12.5 });
      expect(lines).to.have.length(2);
      const [first, second] = lines.map((l) => JSON.parse(l) as Line);
      expect(first).to.have.keys('time', 'level', 'msg', 'method', 'status');
      expect(first).to.include({ level: 'info', msg: 'request', method: 'GET', status: 200 });
      expect(new Date(first.time as string).toISOString()).to.equal(first.time);
      expect(second).to.include({ level: 'warn', msg: 'slow', durationMs: 12.5 });
      expect(lines.every((l) => !l.includes('\n'))).to.equal(true);
    });

    it('leaves out lines below its level', () => {
      const { lines, log } = logged('warn');
      log.debug('d');
      log.info('i');
      log.warn('w');
      log.error('e');
      expect(lines.map((l) => (JSON.parse(l) as Line).level)).to.deep.equal(['warn', 'error']);
    });

    it('redacts passwords, tokens, authorization and cookie headers by field name', () => {
      const { lines, log } = logged();
      log.info('careless', {
        userName: 'alice', password: 'pw-secret-1', token: 'tok-secret-2', accessToken: 'acc-secret-3', refreshToken: 'ref-secret-4',
        authorization: 'Bearer auth-secret-5', cookie: 'sid=cookie-secret-6', 'set-cookie': 'sid=cookie-secret-7', 'x-api-key': 'key-secret-8',
        headers: { authorization: 'Basic hdr-secret-9', cookie: 'sid=hdr-secret-10', accept: 'application/json' },
      });
      const [line] = lines;
      expect(line).to.not.match(/secret/);
      const parsed = JSON.parse(line) as Line;
      expect(parsed).to.include({ userName: 'alice', password: '[redacted]', authorization: '[redacted]', 'set-cookie': '[redacted]' });
      expect(parsed.headers).to.deep.equal({ authorization: '[redacted]', cookie: '[redacted]', accept: 'application/json' });
    });
  });

  describe('a process that crashes', () => {
    afterEach(killChildren);
    after(removeTempDirs);

    it('writes its last lines and the defect as a JSON line before it exits 1', async () => {
      // An application whose route throws outside any request's reach: an uncaught exception ends the process.
      const routes = routeFolder({
        'crash.js': 'export const GET = route({ summary: \'crash\', anonymous: true, handle: async () => { '
          + 'setImmediate(() => { throw new Error(\'crash-probe: nobody catches this\'); }); return new Output({ ok: true }); } });\n',
      });
      const app = writeFiles(makeTempDir('restlayer-crash-'), {
        'main.js': `import { runCli } from '${import.meta.resolve('restlayer')}';\n`
          + `await runCli({ modules: [], routesDir: ${JSON.stringify(routes)} });\n`,
      });
      const server = await startServe(['--port', '0', '--host', '127.0.0.1'], { cli: join(app, 'main.js'), cwd: app, env: sqliteServeEnv(join(app, 'crash.db'), newKey()) });
      const reply = await callUrl(`${server.url}/crash`, { headers: { 'X-Request-Id': 'just-before-the-crash' } });
      expect(reply.status).to.equal(200);
      expect((await server.exited).code).to.equal(1);
      const lines = server.stderr().split('\n').filter(Boolean).map((l) => {
        try {
          return JSON.parse(l) as Line;
        } catch {
          return expect.fail(`a stderr line that is not JSON: ${l}`);
        }
      });
      expect(lines.find((l) => l.requestId === 'just-before-the-crash')).to.include({ msg: 'request', status: 200 });
      const crash = lines.at(-1)!;
      expect(crash).to.include({ level: 'error', msg: 'crashed: uncaught exception' });
      expect(crash.error).to.match(/crash-probe: nobody catches this\n\s+at /);
    });
  });
});
