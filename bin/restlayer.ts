#!/usr/bin/env node
// Tracing starts before the server's modules are imported: its instrumentations patch them as they load.
import { startTracing } from '../lib/telemetry/tracing.js';

if (process.argv[2] === 'serve') await startTracing();
const { runCli } = await import('../lib/cli/run-cli.js');
const { application } = await import('../services/index.js');
await runCli(application);
