import { line } from './terminal-text.js';
import { Output } from '../envelope/output.js';
import type { AuthToken } from '../auth/auth-models.js';
import { CliError } from './cli-error.js';
import { required } from './options.js';
import { configOrFail, signingKeyOrFail } from './config-context.js';
import { printJson } from './print-json.js';
import { runOperation } from './service-context.js';

/** `restlayer token issue` (declared in commands.ts). */
export async function issueToken(opts: { user?: string; minutes?: number; json?: boolean }): Promise<void> {
  const userName = required(opts.user, '--user <name>');
  signingKeyOrFail(configOrFail());
  const lifetime = opts.minutes && opts.minutes * 60;
  const issued = await runOperation<AuthToken | string>(async (s, config) => {
    // Unknown or disabled: a failure. Known: the token carries the user's credential stamp, like a login's.
    const { result: user, messages } = await s.users.tokenSubject(userName);
    if (!user) return new Output<AuthToken | string>(undefined, messages);
    return config.Authentication.Variant === 'A' ? s.tokens.issue(user, lifetime) : s.tokens.accessToken(user, lifetime);
  });
  if (typeof issued === 'string') process.stdout.write(opts.json ? JSON.stringify({ token: issued }) + '\n' : issued + '\n');
  else printJson(issued);
}

/** `restlayer token rotate` (declared in commands.ts). */
export async function rotateTokens(opts: { user?: string; all?: boolean; json?: boolean }): Promise<void> {
  if (!opts.user === !opts.all) throw new CliError('give exactly one of --user NAME and --all', 2);
  const count = await runOperation(async (s) => {
    // A misspelt name must not look like a user without sessions: an unknown user is a failure.
    if (!opts.all && !(await s.users.read(opts.user!)).result) return Output.of<number>();
    return s.tokens.rotate(opts.all ? null : opts.user!);
  });
  if (opts.json) return printJson({ user: opts.all ? null : opts.user, reset: count });
  process.stdout.write(line`${count} refresh token(s) reset for ${opts.all ? 'all users' : opts.user}`);
}
