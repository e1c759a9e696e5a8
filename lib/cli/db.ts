import { createInterface } from 'node:readline/promises';
import { resetStorage, storageName } from '../storage/reset.js';
import { allModules } from '../create-services.js';
import { cliApplication } from './application-context.js';
import { CliError } from './cli-error.js';
import { configOrFail } from './config-context.js';
import { printJson } from './print-json.js';

/** Asks the person at the terminal; answers whether they typed yes. */
async function confirmed(question: string): Promise<boolean> {
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return /^y(es)?$/i.test((await rl.question(question)).trim());
  } finally {
    rl.close();
  }
}

/**
 * `restlayer db reset [--yes]` (declared in commands.ts): the development database starts over. Every record goes
 * (users included), then the schema and the sample data are made as on a first start. Never in production; at a
 * terminal it asks first, elsewhere it needs --yes.
 */
export async function resetDatabase(opts: { yes?: boolean; json?: boolean }): Promise<void> {
  // Secrets are not needed to reset, and their absence in production must not hide the refusal below.
  const { config } = configOrFail({ writeNothing: true, secrets: false });
  const where = storageName(config);
  if (config.env === 'production') {
    throw new CliError(`db reset deletes every record and is refused in production (NODE_ENV=production): ${where} is left as it is`);
  }
  if (!opts.yes) {
    if (!process.stdin.isTTY) throw new CliError('db reset deletes every record: pass --yes to confirm (no terminal to ask at)', 2);
    if (!(await confirmed(`Delete every record of ${where}, users included, and load the sample data again? (y/N) `))) {
      throw new CliError(`not confirmed: ${where} is left as it is`);
    }
  }
  const application = await cliApplication();
  const made: string[] = [];
  const done = await resetStorage(config, allModules(application.modules), (text) => made.push(text));
  if (opts.json) return printJson({ reset: where, done, made });
  // The migrations' names are for the server's log; a person gets their number.
  const said = made.map((text) => text.replace(/^database schema updated: (.*)$/, (_, list: string) => `schema made (${list.split(', ').length} migrations)`));
  process.stdout.write(`${where}: ${done}; ${said.join('; ')}\n`
    + 'users are gone too (user add makes one); a server running on the database must be restarted (npm run dev restarts its own on SQLite)\n');
}
