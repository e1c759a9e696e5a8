import type { Command } from 'commander';
import { variantSecrets } from '../config/secrets.js';
import { CliError } from './cli-error.js';
import { configOrFail } from './config-context.js';
import { printJson } from './service-context.js';

/** `restlayer keys generate`: fresh values for every secret a variant needs in production, ready for a shell. */
export function keysCommand(program: Command) {
  const keys = program.command('keys').description('make secrets for the configuration');
  keys
    .command('generate')
    .description('print fresh keys as `export NAME=value` lines: every secret the variant needs in production (default: the configured variant)')
    .option('--variant <variant>', 'A or B')
    .option('--json', 'machine-readable output: { "NAME": "value" }')
    .action((opts: { variant?: string; json?: boolean }) => {
      // Missing secrets are what this command is for: they must not stop it (production without keys yet).
      const variant = opts.variant ?? configOrFail({ secrets: false }).config.Authentication.Variant;
      if (variant !== 'A' && variant !== 'B') throw new CliError(`--variant must be A or B, not ${JSON.stringify(variant)}`, 2);
      const values = Object.fromEntries(variantSecrets[variant].map((s) => [s.variable, s.generate()]));
      if (opts.json) return printJson(values);
      process.stdout.write(Object.entries(values).map(([name, value]) => `export ${name}=${value}\n`).join(''));
    });
}
