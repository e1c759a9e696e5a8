import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { RestClient } from 'restlayer/client';
import type { ProxyUnderTest } from 'restlayer/testing';

// The drift check itself is public (restlayer/testing); what is left here finds this project's drift files.
export { type ProxyUnderTest, driftProblems, methodsOf } from 'restlayer/testing';

/** What a drift file exports: a service's proxy with one valid call of each method. */
export type DriftProxy = (client: RestClient) => ProxyUnderTest;

/**
 * The proxies of services that bring their own drift samples: the `driftProxy` export of every `*.drift.js` in a folder
 * of the compiled tests (`restlayer new service` writes test/<service>/<service>.drift.ts), so a new service is checked
 * against its routes without an edit here.
 */
export async function driftFiles(): Promise<DriftProxy[]> {
  const tests = fileURLToPath(new URL('../', import.meta.url));
  const found: DriftProxy[] = [];
  for (const folder of readdirSync(tests, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name).sort()) {
    for (const name of readdirSync(join(tests, folder)).filter((n) => n.endsWith('.drift.js')).sort()) {
      const exports = (await import(pathToFileURL(join(tests, folder, name)).href)) as { driftProxy?: unknown };
      if (typeof exports.driftProxy !== 'function') throw new Error(`test/${folder}/${name} exports no driftProxy(client) function`);
      found.push(exports.driftProxy as DriftProxy);
    }
  }
  return found;
}

