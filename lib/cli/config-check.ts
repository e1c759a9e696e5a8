import type { Command } from 'commander';
import { configOrFail } from './config-context.js';

export function configCommand(program: Command) {
  const config = program.command('config').description('inspect the configuration');
  config
    .command('check')
    .description('validate the configuration (files and __ environment variables) and print it with secrets redacted')
    .option('--json', 'machine-readable output')
    .action((opts: { json?: boolean }) => {
      const { redacted, warnings } = configOrFail();
      if (opts.json) {
        process.stdout.write(JSON.stringify({ valid: true, warnings, config: JSON.parse(redacted()) }, null, 2) + '\n');
        return;
      }
      for (const w of warnings) process.stderr.write(`warning: ${w}\n`);
      process.stdout.write(`configuration is valid\n${redacted()}\n`);
    });
}
