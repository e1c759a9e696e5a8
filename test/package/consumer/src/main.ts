#!/usr/bin/env node
import { runCli } from 'restlayer';
import { application } from './app.js';

await runCli(application, { name: 'notes' });
