import { expect } from 'chai';
import { type ChildProcess, spawn } from 'node:child_process';
import { connect } from 'node:net';
import { join } from 'node:path';
import { freePort } from '../support/http.js';
import { codeBlocks, readDoc } from '../support/markdown.js';
import { childEnv, projectRoot } from '../support/processes.js';
import { makeTempDir, removeTempDirs } from '../support/temp.js';
import { until } from '../support/wait.js';

/**
 * The README's variant B block, pasted into a shell after "First steps" added the user, works: it starts its own
 * server beside the first one, waits for it, logs in, reads an order and stops the server. It runs as written, but
 * over a database file of its own and on a free port instead of 8081 (another test may hold that one).
 */

const listening = (port: number) => new Promise<boolean>((resolve) => {
  const socket = connect(port, '127.0.0.1').once('connect', () => resolve(!!socket.destroy())).once('error', () => resolve(false));
});

describe('docs: the README\'s variant B shell block runs as pasted', function () {
  this.timeout(120_000);
  let shell: ChildProcess | undefined;
  after(() => {
    // The block stops its server itself; this is for a block that hangs or fails half-way.
    if (shell?.pid && shell.exitCode === null) process.kill(-shell.pid, 'SIGKILL');
    removeTempDirs();
  });

  it('adds the user, starts a variant B server, waits until ready, gets a token and an order, and stops the server', async () => {
    const readme = readDoc('README.md');
    const blocks = codeBlocks(readme, 'sh');
    const addUser = blocks.flatMap((b) => b.code.split('\n')).find((line) => line.includes('restlayer user add alice'));
    const variantB = blocks.find((b) => b.code.includes('Authentication__Variant=B'));
    expect(addUser, 'the First steps line adding alice').to.be.a('string');
    expect(variantB, 'the variant B block').to.not.equal(undefined);
    expect(variantB!.code, 'the variant B block runs on 8081').to.include('8081');

    const port = await freePort();
    // `npx restlayer` is what the README runs; node runs the same file without npx's cached link, which loses its
    // executable bit when `npm run build` rewrites dist/bin (Permission denied until npm links it again).
    const script = `${addUser!.replace('npx restlayer', 'node dist/bin/restlayer.js')}\n${variantB!.code.replaceAll('8081', String(port))}\n`;
    const env = childEnv({ NODE_ENV: undefined, Storage__Sqlite__Path: join(makeTempDir('restlayer-readme-'), 'readme.db') });
    shell = spawn('bash', ['-e', '-c', script], { cwd: projectRoot, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    shell.stdout!.on('data', (d: Buffer) => (out += d));
    shell.stderr!.on('data', (d: Buffer) => (err += d));
    const code = await new Promise<number | null>((resolve) => shell!.once('close', resolve));

    expect(code, `exit code; stderr:\n${err.slice(-2000)}`).to.equal(0);
    expect(out).to.match(/^eyJ[\w-]+\.[\w-]+\.[\w-]+$/m);
    expect(out).to.match(/"result":\{"salesOrderId":43659,/);
    await until(async () => !(await listening(port)), 'the block\'s server to stop after kill $SERVER');
  });
});
