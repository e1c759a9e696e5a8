/** A failure the CLI reports as one line on stderr with exit code 1 (2 for usage errors). */
export class CliError extends Error {
  /** `details`: more of the failure for `--json` callers (for example every problem of a configuration). */
  constructor(message: string, readonly exitCode: 1 | 2 = 1, readonly details: Record<string, unknown> = {}) {
    super(message);
    this.name = 'CliError';
  }
}
