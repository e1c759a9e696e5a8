/**
 * Why a service cannot be scaffolded: `usage` when the arguments are wrong (the CLI exits 2), `conflict` when the
 * project is in the way, such as an existing module folder (exit 1).
 */
export class ScaffoldError extends Error {
  constructor(message: string, readonly kind: 'usage' | 'conflict') {
    super(message);
    this.name = 'ScaffoldError';
  }
}
