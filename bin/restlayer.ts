#!/usr/bin/env node
import { runCli } from '../lib/cli/run-cli.js';
import { application } from '../services/index.js';

await runCli(application);
