#!/usr/bin/env node
import { Command, CommanderError } from 'commander';
import { CliError } from './cli-error.js';
import { configCommand } from './commands/config-check.js';
import { lookupCommand } from './commands/lookup.js';
import { newCommand } from './commands/new-service.js';
import { openapiCommand } from './commands/openapi.js';
import { serveCommand } from './commands/serve.js';
import { tokenCommand } from './commands/token.js';
import { userCommand } from './commands/user.js';

const program = new Command()
  .name('restlayer')
  .description('restlayer server and admin CLI')
  .exitOverride();
program.configureOutput({ writeErr: (text) => process.stderr.write(text) });
serveCommand(program);
configCommand(program);
userCommand(program);
tokenCommand(program);
lookupCommand(program);
openapiCommand(program);
newCommand(program);

/** Errors are one line on stderr with no stack: exit 1 when the operation failed, 2 on a usage error. */
try {
  await program.parseAsync(process.argv);
} catch (err) {
  if (err instanceof CommanderError) {
    process.exit(err.exitCode === 0 ? 0 : 2);
  }
  const text = err instanceof Error ? err.message : String(err);
  process.stderr.write(`restlayer: ${text}\n`);
  process.exit(err instanceof CliError ? err.exitCode : 1);
}
