import type { Command } from 'commander';
import { validateInput } from '../validation/validate.js';
import { NewPassword, NewUser } from '../auth/auth-models.js';
import { CliError } from './cli-error.js';
import { printJson, runOperation } from './service-context.js';

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '');
}

/** The password of `--password-stdin` or `--password`: exactly one of them (a usage error otherwise). */
async function passwordFrom(opts: { passwordStdin?: boolean; password?: string }): Promise<string> {
  if (!!opts.passwordStdin === (opts.password !== undefined)) throw new CliError('give exactly one of --password-stdin and --password', 2);
  return opts.passwordStdin ? readStdin() : opts.password!;
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
      const password = await passwordFrom(opts);
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
    .description('disable a user; every credential it has ends (tokens, refresh tokens, cookie sessions)')
    .action(async (name: string) => {
      const changed = await runOperation((s) => s.users.disable(name));
      process.stdout.write(changed ? `user ${name} disabled; its sessions have ended\n` : `user ${name} is already disabled\n`);
    });

  user
    .command('enable <name>')
    .description('let a disabled user log in again (what it had before the disable stays ended)')
    .action(async (name: string) => {
      const changed = await runOperation((s) => s.users.enable(name));
      process.stdout.write(changed ? `user ${name} enabled\n` : `user ${name} is already enabled\n`);
    });

  user
    .command('set-password <name>')
    .description('change a user\'s password (from --password-stdin, or --password); its sessions end')
    .option('--password-stdin', 'read the password from standard input')
    .option('--password <password>', 'the password (visible in the process list: prefer --password-stdin)')
    .action(async (name: string, opts: { passwordStdin?: boolean; password?: string }) => {
      const password = await passwordFrom(opts);
      const checked = validateInput(NewPassword, { userName: name, password });
      if (!checked.ok) throw new CliError(checked.messages.map((m) => m.message).join(' '), 2);
      await runOperation((s) => s.users.setPassword(checked.value));
      process.stdout.write(`password of user ${name} changed; its sessions have ended\n`);
    });

  user
    .command('remove <name>')
    .description('delete a user; every credential it had ends')
    .action(async (name: string) => {
      await runOperation((s) => s.users.remove(name));
      process.stdout.write(`user ${name} removed; its sessions have ended\n`);
    });
}
