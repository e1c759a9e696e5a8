import { relative } from 'node:path';
import { StarterError, writeStarter } from '../starter/write-starter.js';
import { CliError } from './cli-error.js';
import { packageVersion } from './package-version.js';
import { printJson } from './print-json.js';

interface InitOptions {
  restlayer?: string;
  json?: boolean;
}

/** `restlayer init <folder>` (declared in commands.ts): a new project of one's own, and the commands that run it. */
export function initProject(folder: string, opts: InitOptions): void {
  let made: ReturnType<typeof writeStarter>;
  try {
    made = writeStarter(folder, opts.restlayer ?? `^${packageVersion()}`);
  } catch (err) {
    if (err instanceof StarterError) throw new CliError(err.message, 2);
    throw err;
  }
  if (opts.json) return printJson(made);
  const at = relative(process.cwd(), made.root) || '.';
  process.stdout.write([
    `restlayer init: made ${made.name} in ${at} (${made.files.length} files: README.md says what each is). Next:`,
    '',
    `  cd ${at}`,
    '  npm install',
    '  npm test        # builds and runs the example\'s tests against a real server, on SQLite',
    '  npm run dev     # serves http://127.0.0.1:8080 and serves every saved change again',
    '',
  ].join('\n'));
}
