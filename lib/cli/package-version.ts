import { readFileSync } from 'node:fs';
import { packagePath } from '../package-paths.js';

/** restlayer's own version, from its package.json. */
export function packageVersion(): string {
  const file = packagePath('package.json');
  return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
}
