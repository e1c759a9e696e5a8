import { Command, CommanderError } from 'commander';
import type { Application } from '../server.js';
import { setCliApplication } from './application-context.js';
import { CliError } from './cli-error.js';
import { configCommand } from './config-check.js';
import { lookupCommand } from './lookup.js';
import { newCommand } from './new-service.js';
import { openapiCommand } from './openapi.js';
import { serveCommand } from './serve.js';
import { tokenCommand } from './token.js';
import { userCommand } from './user.js';

export interface RunCliOptions {
  /** The program's name in help texts and at the start of error lines (default `restlayer`). */
  name?: string;
  description?: string;
  /** Default `process.argv`. */
  argv?: readonly string[];
}

/**
 * The server and admin CLI (`serve`, `user`, `token`, `lookup`, `openapi`, `config`) for `application`: an
 * application's bin file is `await runCli(application)`. Errors are one line on stderr with no stack: the process
 * exits 1 when the operation failed, 2 on a usage error.
 */
export async function runCli(application: Application, options: RunCliOptions = {}): Promise<void> {
  setCliApplication(application);
  const name = options.name ?? 'restlayer';
  const program = new Command()
    .name(name)
    .description(options.description ?? `${name} server and admin CLI`)
    .exitOverride();
  program.configureOutput({ writeErr: (text) => process.stderr.write(text) });
  serveCommand(program);
  configCommand(program);
  userCommand(program);
  tokenCommand(program);
  lookupCommand(program);
  openapiCommand(program);
  newCommand(program);

  try {
    await program.parseAsync([...(options.argv ?? process.argv)]);
  } catch (err) {
    if (err instanceof CommanderError) {
      process.exit(err.exitCode === 0 ? 0 : 2);
    }
    const text = err instanceof Error ? err.message : String(err);
    process.stderr.write(`${name}: ${text}\n`);
    process.exit(err instanceof CliError ? err.exitCode : 1);
  }
}
