import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { packagePath } from '../package-paths.js';
import { StarterError, writeStarter } from '../starter/write-starter.js';
import { CliError } from './cli-error.js';
import { packageVersion } from './package-version.js';
import { printJson } from './print-json.js';

interface InitOptions {
  restlayer?: string;
  json?: boolean;
}

/**
 * What the new project depends on restlayer by, unless told: the published package at this version (`^0.1.0`); run
 * from a clone of restlayer's repository (its package.json has the development dependencies the published one has
 * not), the clone itself, a folder npm links (`file:/path/to/restlayer`, built as npm start or npm test builds it).
 */
function defaultSpec(): string {
  const manifest = JSON.parse(readFileSync(packagePath('package.json'), 'utf8')) as { devDependencies?: object };
  return manifest.devDependencies ? `file:${packagePath()}` : `^${packageVersion()}`;
}

/** `restlayer init <folder>` (declared in commands.ts): a new project of one's own, and the commands that run it. */
export function initProject(folder: string, opts: InitOptions): void {
  let made: ReturnType<typeof writeStarter>;
  try {
    made = writeStarter(folder, opts.restlayer ?? defaultSpec());
  } catch (err) {
    if (err instanceof StarterError) throw new CliError(err.message, 2);
    throw err;
  }
  if (opts.json) return printJson(made);
  const at = relative(process.cwd(), made.root) || '.';
  process.stdout.write([
    `restlayer init: made ${made.name} in ${at} (${made.files.length} files: README.md says what each is), depending on restlayer ${made.restlayer}. Next:`,
    '',
    `  cd ${at}`,
    '  npm install',
    '  npm test        # builds and runs the example\'s tests against a real server, on SQLite',
    '  npm run dev     # serves http://127.0.0.1:8080 and serves every saved change again',
    '',
  ].join('\n'));
}
