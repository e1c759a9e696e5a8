#!/usr/bin/env node
import { existsSync } from 'node:fs';
// Tracing starts before the server's modules are imported: its instrumentations patch them as they load.
import { startTracing } from '../lib/telemetry/tracing.js';

if (process.argv[2] === 'serve') {
  // The one error it has for a person (an OpenTelemetry package missing) is a line, like every error of the CLI.
  await startTracing().catch((err: Error) => {
    process.stderr.write(`restlayer: ${err.message}\n`);
    process.exit(1);
  });
}
const { runCli } = await import('../lib/cli/run-cli.js');
// The sample application, imported only by a command that needs it. It is this repository's: the package a
// dependent project installs has none, and its commands that need one say so (the project runs its own CLI).
const sample = new URL('../services/index.js', import.meta.url);
await runCli(existsSync(sample) ? () => import(sample.href).then((m: typeof import('../services/index.js')) => m.application) : undefined);
