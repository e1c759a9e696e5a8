import { Command, CommanderError } from 'commander';
import { type ApplicationSource, setCliApplication } from './application-context.js';
import { CliError } from './cli-error.js';
import { declareCommands } from './commands.js';
import { packageVersion } from './package-version.js';
import { printJson } from './print-json.js';
import { printable } from './terminal-text.js';

/** Commander's usage error with its suggestion on the same line: `error: unknown command 'ad' (did you mean add?)`. */
const withSuggestion = (text: string) => text.replace(/\n\(Did you mean (.*)\?\)/, ' (did you mean $1?)');

export interface RunCliOptions {
  /** The program's name in help texts and at the start of error lines (default `restlayer`). */
  name?: string;
  description?: string;
  /** Default `process.argv`. */
  argv?: readonly string[];
  /** What `--version` prints (default restlayer's own version). */
  version?: string;
}

/**
 * The server and admin CLI (`serve`, `user`, `token`, `lookup`, `openapi`, `config`) for `application`: an
 * application's bin file is `await runCli(() => import('./app.js').then((m) => m.application))`, which imports the
 * application only for a command that needs it (`--help` and `keys` start in a fraction of the time), or
 * `await runCli(application)`. Errors are one line on stderr with no stack: the process exits 1 when the operation
 * failed, 2 on a usage error.
 */
export async function runCli(application: ApplicationSource | undefined, options: RunCliOptions = {}): Promise<void> {
  setCliApplication(application);
  const name = options.name ?? 'restlayer';
  const program = new Command()
    .name(name)
    .description(options.description ?? `${name} server and admin CLI`)
    .version(options.version ?? packageVersion(), '--version', 'print the version')
    .exitOverride();
  // Commander's messages quote the arguments given: a control character among them is shown, not obeyed. Its
  // suggestion ("(Did you mean add?)") comes on a line of its own: joined to the error, which stays one line (contract
  // part 8). Subcommands inherit both.
  program.configureOutput({
    writeErr: (text) => process.stderr.write(text.split('\n').map(printable).join('\n')),
    outputError: (text, write) => write(withSuggestion(text)),
  });
  declareCommands(program);

  const argv = [...(options.argv ?? process.argv)];
  // A caller that asked for JSON reads stdout: it gets the failure there too, besides the line on stderr.
  const json = argv.slice(2).includes('--json');
  try {
    await program.parseAsync(argv);
  } catch (err) {
    if (err instanceof CommanderError) {
      if (err.exitCode !== 0 && json) printJson({ error: withSuggestion(err.message).replace(/^error: /, '').trimEnd(), exitCode: 2 });
      process.exit(err.exitCode === 0 ? 0 : 2);
    }
    const text = err instanceof Error ? err.message : String(err);
    const exitCode = err instanceof CliError ? err.exitCode : 1;
    if (json) printJson({ error: text, exitCode, ...(err instanceof CliError ? err.details : {}) });
    // The message may quote what was typed or stored (a user name): escaped, each of its lines (an invalid
    // configuration has one per problem) stays a line that changes nothing around it.
    process.stderr.write(`${name}: ${text.split('\n').map(printable).join('\n')}\n`);
    process.exit(exitCode);
  }
}
