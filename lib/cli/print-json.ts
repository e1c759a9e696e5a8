/** `--json` output: one JSON document on stdout (JSON escapes control characters by itself). */
export function printJson(value: unknown): void {
  process.stdout.write(JSON.stringify(value, null, 2) + '\n');
}
