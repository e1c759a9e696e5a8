/**
 * `node --import dist/test/support/record-loads.js …`: writes every module the process loaded (ES modules through
 * the loader, CommonJS files through require) to the file named by RECORD_LOADS, one URL a line, when it exits.
 * For tests of what a command loads (test/cli/startup.test.ts).
 */
import Module, { register } from 'node:module';
import { writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { MessageChannel } from 'node:worker_threads';

const loaded = new Set<string>();
const { port1, port2 } = new MessageChannel();
port1.on('message', (url: string) => loaded.add(url));
port1.unref();
const hook = `let port;
export function initialize(data) { port = data.port; }
export async function load(url, context, next) { port.postMessage(url); return next(url, context); }`;
register(`data:text/javascript,${encodeURIComponent(hook)}`, import.meta.url, { data: { port: port2 }, transferList: [port2] });

// CommonJS files a package requires inside itself never pass the loader hook: they pass here.
const modules = Module as unknown as { _resolveFilename: (...args: unknown[]) => string };
const resolveFilename = modules._resolveFilename;
modules._resolveFilename = function (this: unknown, ...args: unknown[]) {
  const resolved = resolveFilename.apply(this, args);
  if (resolved.startsWith('/')) loaded.add(pathToFileURL(resolved).href);
  return resolved;
};

process.on('exit', () => {
  if (process.env.RECORD_LOADS) writeFileSync(process.env.RECORD_LOADS, [...loaded].join('\n'));
});
