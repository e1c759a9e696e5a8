import type { Command } from 'commander';
import { collect, parsePort, parsePositive } from './options.js';

/** `--url`, which every command that reaches a running server takes. */
const URL_OPTION_HELP = 'the API base URL of a running server (default http://127.0.0.1:<Server:Port><RestAPI:Path>; with RestAPI:Path unset, also /api as serve --web has it)';

/**
 * Every command of the CLI: its arguments, options and help. The code of an action is imported when that command
 * runs, never before: `--help`, a usage error or `user list` load only what they use (commander here; the storage,
 * not the HTTP stack, for a user command; the scaffold for `new` alone).
 */
export function declareCommands(program: Command): void {
  program
    .command('serve')
    .description('start the server (an empty database gets its schema and the sample data)')
    .option('--port <n>', 'port to listen on (also PORT; default 8080)', parsePort)
    .option('--host <h>', 'address to listen on (also HOST, Server:Host; default 127.0.0.1, in production 0.0.0.0)')
    .option('--workers <n>', 'processes sharing the port (default 1)', parsePositive)
    .option('--web', 'also serve the browser app at / (Web:Enabled); the API moves to /api unless RestAPI:Path is set')
    .action(async (opts) => (await import('./serve.js')).serve(opts));

  program
    .command('dev')
    .description('serve the project while you edit it: each saved change is compiled and the server restarted within seconds; '
      + 'the type check runs beside it; the development database stays')
    .option('--port <n>', 'port to listen on (also PORT; default 8080)', parsePort)
    .option('--host <h>', 'address to listen on (also HOST, Server:Host; default 127.0.0.1)')
    .option('--web', 'also serve the browser app at / (as serve --web)')
    .option('--project <tsconfig>', 'the tsconfig to compile with (default tsconfig.json)')
    .option('--entry <file>', 'the built file that serves the application, which calls runCli (default: package.json "bin")')
    .action(async (opts) => (await import('./dev.js')).dev(opts));

  program
    .command('purge')
    .description('remove the records deleted longer ago than DAYS (soft delete), with their lines, in short batches')
    .option('--older-than <days>', 'how long ago they were deleted, in days (a number ≥ 0; required)')
    .option('--service <name>', 'only this service\'s records (customer, sales-order, …)')
    .option('--batch <n>', `records removed per transaction (default 500)`, parsePositive)
    .option('--json', 'machine-readable output')
    .action(async (opts) => (await import('./purge.js')).purge(opts));

  const config = program.command('config').description('inspect the configuration');
  config
    .command('check')
    .description('validate the configuration (files and __ environment variables) and print it with secrets redacted')
    .option('--json', 'machine-readable output')
    .action(async (opts) => (await import('./config-check.js')).checkConfig(opts));

  program
    .command('db')
    .description('the development database')
    .command('reset')
    .description('start the database over: every record goes (users included), then the schema and sample data are made as on a first start; refused in production')
    .option('--yes', 'reset without asking (needed where there is no terminal to ask at)')
    .option('--json', 'machine-readable output')
    .action(async (opts) => (await import('./db.js')).resetDatabase(opts));

  // Usage errors are one line, like every other error (contract part 8): no help text after them.
  const user = program.command('user').description('manage users who can log in');
  user
    .command('add <name>')
    .description('create a user (password from --password-stdin, or --password)')
    .option('--role <role>', 'a role of the user (repeatable; required)', collect)
    .option('--display-name <text>', 'the name shown to people (default: the user name)')
    .option('--attribute <key=value>', 'an attribute of the user, e.g. salesPersonId=279 (repeatable)', collect)
    .option('--password-stdin', 'read the password from standard input')
    .option('--password <password>', 'the password (visible in the process list: prefer --password-stdin)')
    .option('--json', 'machine-readable output')
    .action(async (name, opts) => (await import('./user.js')).addUser(name, opts));
  user
    .command('list')
    .description('list users')
    .option('--json', 'machine-readable output')
    .action(async (opts) => (await import('./user.js')).listUsers(opts));
  user
    .command('set-attribute <name> <key> <value>')
    .description('set an attribute of a user (record scopes read them); running servers see it within Authentication:SessionRecheckSeconds, its sessions go on (tenantId: from its next login or refresh)')
    .option('--json', 'machine-readable output')
    .action(async (name, key, value, opts) => (await import('./user.js')).setAttribute(name, key, value, opts));
  user
    .command('remove-attribute <name> <key>')
    .description('remove an attribute of a user; running servers see it within Authentication:SessionRecheckSeconds')
    .option('--json', 'machine-readable output')
    .action(async (name, key, opts) => (await import('./user.js')).removeAttribute(name, key, opts));
  user
    .command('disable <name>')
    .description('disable a user; every credential it has ends (tokens, refresh tokens, cookie sessions)')
    .action(async (name) => (await import('./user.js')).disableUser(name));
  user
    .command('enable <name>')
    .description('let a disabled user log in again (what it had before the disable stays ended)')
    .action(async (name) => (await import('./user.js')).enableUser(name));
  user
    .command('set-password <name>')
    .description('change a user\'s password (from --password-stdin, or --password); its sessions end')
    .option('--password-stdin', 'read the password from standard input')
    .option('--password <password>', 'the password (visible in the process list: prefer --password-stdin)')
    .action(async (name, opts) => (await import('./user.js')).setPassword(name, opts));
  user
    .command('set-roles <name>')
    .description('replace the roles of a user; its sessions end (its tokens carry the old roles)')
    .option('--role <role>', 'a role of the user (repeatable; required)', collect)
    .option('--json', 'machine-readable output')
    .action(async (name, opts) => (await import('./user.js')).setRoles(name, opts));
  user
    .command('unlock <name>')
    .description('clear the login throttling of an account: in Redis when Cache:Redis:Url is set, else through the running server')
    .option('--url <url>', `${URL_OPTION_HELP}; the counters are cleared through it (without Cache:Redis:Url always)`)
    .option('--json', 'machine-readable output')
    .action(async (name, opts) => (await import('./user.js')).unlockUser(name, opts));
  user
    .command('unlock-address <address>')
    .description('clear the login throttling of a client address, for everyone behind it: in Redis when Cache:Redis:Url is set, else through the running server')
    .option('--url <url>', `${URL_OPTION_HELP}; the counters are cleared through it (without Cache:Redis:Url always)`)
    .option('--json', 'machine-readable output')
    .action(async (address, opts) => (await import('./user.js')).unlockAddress(address, opts));
  user
    .command('remove <name>')
    .description('delete a user; every credential it had ends')
    .action(async (name) => (await import('./user.js')).removeUser(name));

  const keys = program.command('keys').description('make secrets for the configuration');
  keys
    .command('generate')
    .description('print fresh keys as `export NAME=value` lines: every secret the variant needs in production (default: the configured variant)')
    .option('--variant <variant>', 'A or B')
    .option('--json', 'machine-readable output: { "NAME": "value" }')
    .action(async (opts) => (await import('./keys.js')).generateKeys(opts));

  const token = program.command('token').description('issue and reset tokens');
  token
    .command('issue')
    .description('variant A: print an AuthToken for a new session of the user; variant B: print a JWT')
    .option('--user <name>', 'the user the token is for (required)')
    .option('--minutes <m>', 'access token lifetime in minutes', parsePositive)
    .option('--json', 'machine-readable output')
    .action(async (opts) => (await import('./token.js')).issueToken(opts));
  token
    .command('rotate')
    .description('reset refresh tokens: those users log in again once their access token expires')
    .option('--user <name>', 'one user')
    .option('--all', 'every user')
    .option('--json', 'machine-readable output')
    .action(async (opts) => (await import('./token.js')).rotateTokens(opts));

  program
    .command('lookup')
    .description('manage lookup tables of running servers')
    .command('flush [types...]')
    .description('drop lookup tables from the cache of every running instance')
    .option('--all', 'every lookup table')
    .option('--url <url>', URL_OPTION_HELP)
    .option('--json', 'machine-readable output: { "flushed": [...] }')
    .action(async (types, opts) => (await import('./lookup.js')).flushLookups(types, opts));

  program
    .command('openapi')
    .description('print the OpenAPI 3.1 document of the API (JSON)')
    .action(async () => (await import('./openapi.js')).printOpenApi());

  program
    .command('routes')
    .description('list every route the server serves: verb, path, permission (or anonymous / authenticated), record scopes')
    .option('--json', 'machine-readable output')
    .action(async (opts) => (await import('./routes.js')).listRoutes(opts));

  program
    .command('migration')
    .description('the schema of the application\'s declarations')
    .command('make')
    .description('write the next migration of each module whose resources need a table, column or index its migrations do not build (new ones only: '
      + 'a drop or a type change needs --allow-drop); nothing to do writes nothing')
    .option('--allow-drop', 'also drop columns no field is stored in, and change a column\'s type by dropping and adding it (its values go)')
    .option('--check', 'write nothing: say what would be written, and exit 1 if anything would (for CI)')
    .option('--services <folder>', 'the folder of service modules (default: package.json "restlayer.services", else services or src/services)')
    .option('--json', 'machine-readable output')
    .action(async (opts) => (await import('./migration-make.js')).makeMigration(opts));

  program
    .command('init <folder>')
    .description('make a new project that depends on restlayer in <folder> (its name names the package and its CLI): '
      + 'package.json with build, start, dev and test, tsconfig, the application, a config folder, an example resource with its test, a README')
    .option('--restlayer <spec>', 'what the project depends on restlayer by: a version range, or a tarball, folder or git URL (default: ^ this version; from a clone of restlayer, the clone)')
    .option('--json', 'machine-readable output')
    .action(async (folder, opts) => (await import('./init.js')).initProject(folder, opts));

  program
    .command('new')
    .description('add code to the project')
    .command('service <name>')
    .description('write a service into the project in the current folder (its declaration, with --child its child collection, first migration, module, routes, proxy and test), and register it in its modules list')
    .option('--field <spec>', 'a field: name:type[:option...]; type text, integer, decimal, money, date, boolean or lookup=<table>; options required, max=N (text), sortable, filterable, unique, ids=text (a lookup whose ids are text), derived=a*b or a+b-c (computed from fields given before it) (repeatable)', collect, [])
    .option('--action <name>', "an action of the record, camelCase or kebab-case (e.g. approve, markPaid or mark-paid): the declaration's key markPaid (its proxy method), served at POST /<service>/{id}/mark-paid with permission <service>.mark-paid; its run is left for you to write (repeatable)", collect, [])
    .option('--child <name>', 'a child collection (kebab-case, e.g. line): records written with the parent as one document, served at /<service>/{id}/<name>', collect, [])
    .option('--child-field <spec>', "a field of the child: <child>:name:type[:option...]; type text, integer, decimal, money or boolean; options required, max=N, derived=a*b (repeatable)", collect, [])
    .option('--child-total <spec>', "a money total the parent keeps of a child's money field: <child>:<field>[:<name>] gives the parent <name> (default <field>Total; lineTotal gives linesTotal) (repeatable)", collect, [])
    .option('--services <folder>', 'the folder of service modules (default: package.json "restlayer.services", else services or src/services)')
    .option('--routes <folder>', "the application's routes folder (default: \"restlayer.routes\", else routes or src/routes)")
    .option('--tests <folder>', 'the folder of tests (default: "restlayer.tests", else test or src/test)')
    .option('--modules <file>', 'the file exporting modules, route and application (default: "restlayer.modules", else services/index.ts or src/app.ts)')
    .option('--force', 'overwrite the generated files of an existing service of that name')
    .option('--json', 'machine-readable output')
    .action(async (name, opts) => (await import('./new-service.js')).newService(name, opts));
}
