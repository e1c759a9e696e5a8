import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cliEnv } from '../support/cli-env.js';
import { childEnv, killChildren, runCli } from '../support/processes.js';
import { type TestServer, startTestServer } from '../support/server.js';
import { WHY_ONE_STORE, describeOneStore } from '../support/stores.js';
import { makeTempDir, removeTempDirs } from '../support/temp.js';

const recorder = fileURLToPath(new URL('../support/record-loads.js', import.meta.url));

/** The packages a module URL list names (`@scope/name` or `name`), and the layer's own files (`lib/...`). */
function summary(urls: string[]): { packages: Set<string>; layer: string[] } {
  const packages = new Set<string>();
  const layer: string[] = [];
  for (const url of urls) {
    const inPackage = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
    if (inPackage) packages.add(inPackage[1]);
    const own = /\/dist\/(lib\/.+)$/.exec(url);
    if (own && !inPackage) layer.push(own[1]);
  }
  return { packages, layer };
}

/** The modules one CLI command loads from start to exit. */
async function loadsOf(args: string[], env: NodeJS.ProcessEnv): Promise<{ urls: string[]; code: number | null }> {
  const record = join(makeTempDir('restlayer-loads-'), 'loads.txt');
  const run = await runCli(args, { env: { ...env, RECORD_LOADS: record, NODE_OPTIONS: `--import=${recorder}` } });
  return { urls: readFileSync(record, 'utf8').split('\n').filter(Boolean), code: run.code };
}

/** What no command but `serve` loads: the HTTP stack, the metrics client, tracing. */
const serverPackages = ['koa', '@koa/router', 'koa-body', 'koa-jwt', 'koa-session', '@koa/cors', 'helmet', 'prom-client'];

/**
 * Issue 36: the CLI loads what its command uses. `--help` is commander and the list of commands; a user command opens
 * the store but never the HTTP server, the Prometheus client, OpenTelemetry or the scaffold (the process's CPU at start,
 * measured in docs/testing.md, follows the number of modules).
 */
describeOneStore('the CLI loads what its command uses', WHY_ONE_STORE.cli, function () {
  this.timeout(60_000);
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ sampleData: false });
  });
  after(async () => {
    await server?.stop();
    await killChildren();
    removeTempDirs();
  });

  it('--help loads commander and the CLI\'s own declarations: no store, server, configuration or application', async () => {
    const { urls, code } = await loadsOf(['--help'], childEnv());
    expect(code).to.equal(0);
    const { packages, layer } = summary(urls);
    expect([...packages]).to.deep.equal(['commander']);
    expect(layer.filter((f) => !/^lib\/(cli|telemetry)\/|^lib\/(optional-package|package-paths)\.js$/.test(f)), 'layer files outside the CLI').to.deep.equal([]);
    expect(urls.some((u) => u.includes('/dist/services/')), 'the application').to.equal(false);
    expect(urls.length, urls.join('\n')).to.be.below(40);
  });

  it('user list opens the store, but loads no HTTP server, metrics, OpenTelemetry or scaffold', async () => {
    const { urls, code } = await loadsOf(['user', 'list'], cliEnv(server));
    expect(code).to.equal(0);
    const { packages, layer } = summary(urls);
    expect([...packages]).to.include.members(['kysely', 'better-sqlite3']);
    expect(serverPackages.filter((p) => packages.has(p)), 'server packages').to.deep.equal([]);
    expect([...packages].filter((p) => p.startsWith('@opentelemetry/') || p === 'typescript'), 'tracing or the compiler').to.deep.equal([]);
    expect(layer.filter((f) => /^lib\/(scaffold|metrics|docs|layer-routes)\/|^lib\/(app|server)\.js$/.test(f)), 'the server\'s and scaffold\'s own files')
      .to.deep.equal([]);
  });
});
