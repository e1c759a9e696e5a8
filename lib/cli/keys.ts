import { variantSecrets } from '../config/secrets.js';
import { CliError } from './cli-error.js';
import { configOrFail } from './config-context.js';
import { printJson } from './print-json.js';

/** `restlayer keys generate` (declared in commands.ts): fresh values for every secret a variant needs in production, ready for a shell. */
export function generateKeys(opts: { variant?: string; json?: boolean }): void {
  // Missing secrets are what this command is for: they must not stop it (production without keys yet).
  const variant = opts.variant ?? configOrFail({ secrets: false }).config.Authentication.Variant;
  if (variant !== 'A' && variant !== 'B') throw new CliError(`--variant must be A or B, not ${JSON.stringify(variant)}`, 2);
  const values = Object.fromEntries(variantSecrets[variant].map((s) => [s.variable, s.generate()]));
  if (opts.json) return printJson(values);
  process.stdout.write(Object.entries(values).map(([name, value]) => `export ${name}=${value}\n`).join(''));
}
