/** A failure the CLI reports as one line on stderr with exit code 1 (2 for usage errors). */
export class CliError extends Error {
  constructor(message: string, readonly exitCode: 1 | 2 = 1) {
    super(message);
    this.name = 'CliError';
  }
}
