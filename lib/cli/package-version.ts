import { readFileSync } from 'node:fs';

/** restlayer's own version, from its package.json (dist/lib/cli/ is three folders below it, in a package or here). */
export function packageVersion(): string {
  const file = new URL('../../../package.json', import.meta.url);
  return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
}
