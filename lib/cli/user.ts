import type { Command } from 'commander';
import { validateInput } from '../validation/validate.js';
import { NewUser } from '../auth/auth-models.js';
import { CliError } from './cli-error.js';
import { printJson, runOperation } from './service-context.js';

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '');
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

export function userCommand(program: Command) {
  // Usage errors are one line, like every other error (contract part 8): no help text after them.
  const user = program.command('user').description('manage users who can log in');

  user
    .command('add <name>')
    .description('create a user (password from --password-stdin, or --password)')
    .requiredOption('--role <role>', 'a role of the user (repeatable)', collect)
    .option('--display-name <text>', 'the name shown to people (default: the user name)')
    .option('--password-stdin', 'read the password from standard input')
    .option('--password <password>', 'the password (visible in the process list: prefer --password-stdin)')
    .option('--json', 'machine-readable output')
    .action(async (name: string, opts: { role: string[]; displayName?: string; passwordStdin?: boolean; password?: string; json?: boolean }) => {
      if (!!opts.passwordStdin === (opts.password !== undefined)) throw new CliError('give exactly one of --password-stdin and --password', 2);
      const password = opts.passwordStdin ? await readStdin() : opts.password!;
      const checked = validateInput(NewUser, { userName: name, name: opts.displayName, roles: opts.role, password });
      if (!checked.ok) throw new CliError(checked.messages.map((m) => m.message).join(' '), 2);
      const created = await runOperation((s) => s.users.add(checked.value));
      if (opts.json) printJson(created);
      else process.stdout.write(`user ${created!.userName} created with roles ${created!.roles.join(', ')}\n`);
    });

  user
    .command('list')
    .description('list users')
    .option('--json', 'machine-readable output')
    .action(async (opts: { json?: boolean }) => {
      const users = (await runOperation((s) => s.users.list())) ?? [];
      if (opts.json) return printJson(users);
      for (const u of users) process.stdout.write(`${u.userName}\t${u.name}\t${u.roles.join(',')}\t${u.disabled ? 'disabled' : 'active'}\n`);
    });

  user
    .command('disable <name>')
    .description('disable a user; its sessions end at once')
    .action(async (name: string) => {
      await runOperation((s) => s.users.disable(name));
      process.stdout.write(`user ${name} disabled; its sessions have ended\n`);
    });


}
