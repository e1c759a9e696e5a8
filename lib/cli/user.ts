import { isIP } from 'node:net';
import { validateInput } from '../validation/validate.js';
import { NewPassword, NewRoles, NewUser } from '../auth/auth-models.js';
import { Output } from '../envelope/output.js';
import { CliError } from './cli-error.js';
import { configOrFail, signingKeyOrFail, throttleSecretOrFail } from './config-context.js';
import { required } from './options.js';
import type { LayerServices } from '../routing/layer-services.js';
import type { AppConfig } from '../config/schema.js';
import { signOperatorToken } from '../auth/operator-token.js';
import { tokenSettings } from '../auth/token-keys.js';
import { type ExpectedResult, callServer, serverApiBase } from './server-api.js';
import { hasControlCharacters, line, printable } from './terminal-text.js';
import { attributeKeyProblem, attributeValueProblem } from '../auth/user-attributes.js';
import { printJson } from './print-json.js';
import { runOperation } from './service-context.js';

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

/**
 * Roles `Authorization:Roles` configures or a user already holds; a role outside them (a typo, most likely) is still
 * given, with a warning, since a team may configure it later. Roles match case-sensitively.
 */
async function warnUnknownRoles(services: LayerServices, config: AppConfig, roles: string[]) {
  const known = new Set(Object.keys(config.Authorization.Roles));
  for (const u of (await services.users.list()).result ?? []) for (const r of u.roles) known.add(r);
  for (const role of roles.filter((r) => !known.has(r))) {
    process.stderr.write(line`warning: role '${role}' is configured in no Authorization:Roles and held by no user (known roles: ${[...known].sort().join(', ')}); it is given all the same`);
  }
}

/** A key or value the store would refuse is a usage error (exit 2), found before anything is opened. */
function usableAttribute(key: string, value?: string) {
  const problem = attributeKeyProblem(key) ?? (value === undefined ? undefined : attributeValueProblem(key, value));
  if (problem) throw new CliError(line`${problem}`.trimEnd(), 2);
}

/** The attributes of `user add`'s `--attribute KEY=VALUE` options (split at the first `=`); a key given twice is a usage error. */
function attributesFrom(options: string[] = []): Record<string, string> {
  const attributes: Record<string, string> = {};
  for (const option of options) {
    const at = option.indexOf('=');
    if (at < 0) throw new CliError(line`--attribute '${option}' must be KEY=VALUE`.trimEnd(), 2);
    const [key, value] = [option.slice(0, at), option.slice(at + 1)];
    usableAttribute(key, value);
    if (Object.hasOwn(attributes, key)) throw new CliError(line`--attribute '${key}' is given twice`.trimEnd(), 2);
    attributes[key] = value;
  }
  return attributes;
}

/** `key=value` pairs for `user list`'s fifth column; --json has them exactly. */
const attributeColumn = (attributes: Readonly<Record<string, string>>) => Object.entries(attributes).map(([k, v]) => `${k}=${v}`).join(', ');

/** `user add <name>` (declared in commands.ts). */
export async function addUser(name: string, opts: { role?: string[]; displayName?: string; attribute?: string[]; passwordStdin?: boolean; password?: string; json?: boolean }): Promise<void> {
  const roles = required(opts.role, '--role <role>');
  const attributes = attributesFrom(opts.attribute);
  // Refused before anything else: such a name would rewrite the terminal of whoever lists the users.
  for (const [what, value] of [['user name', name], ['--display-name', opts.displayName ?? '']]) {
    if (hasControlCharacters(value)) throw new CliError(line`${what} '${value}' holds control characters (such as ESC or a line break); choose one without`.trimEnd(), 2);
  }
  const password = await passwordFrom(opts);
  const checked = validateInput(NewUser, { userName: name, name: opts.displayName, roles, password });
  if (!checked.ok) throw new CliError(checked.messages.map((m) => m.message).join(' '), 2);
  const created = await runOperation(async (s, config) => {
    await warnUnknownRoles(s, config, checked.value.roles);
    return s.users.add(checked.value, attributes);
  });
  if (opts.json) printJson(created);
  else {
    const withAttributes = Object.keys(created!.attributes).length ? ` and attributes ${attributeColumn(created!.attributes)}` : '';
    process.stdout.write(line`user ${created!.userName} created with roles ${created!.roles.join(', ')}${withAttributes}`);
  }
}

/** `user list` (declared in commands.ts). */
export async function listUsers(opts: { json?: boolean }): Promise<void> {
  const users = (await runOperation((s) => s.users.list())) ?? [];
  if (opts.json) return printJson(users);
  for (const u of users) {
    // A fifth column only for users with attributes: the four-column lines of the others stay as they were.
    const state = u.disabled ? 'disabled' : 'active';
    process.stdout.write(Object.keys(u.attributes).length
      ? line`${u.userName}\t${u.name}\t${u.roles.join(',')}\t${state}\t${attributeColumn(u.attributes)}`
      : line`${u.userName}\t${u.name}\t${u.roles.join(',')}\t${state}`);
  }
}

/** `user set-attribute <name> <key> <value>` (declared in commands.ts). */
export async function setAttribute(name: string, key: string, value: string, opts: { json?: boolean }): Promise<void> {
  usableAttribute(key, value);
  const changed = await runOperation((s) => s.users.setAttribute(name, key, value));
  if (opts.json) return printJson({ userName: name, key, value, changed });
  process.stdout.write(changed ? line`attribute ${key} of user ${name} set to ${value}` : line`user ${name} already has ${key}=${value}; nothing changed`);
}

/** `user remove-attribute <name> <key>` (declared in commands.ts). */
export async function removeAttribute(name: string, key: string, opts: { json?: boolean }): Promise<void> {
  usableAttribute(key);
  const changed = await runOperation((s) => s.users.removeAttribute(name, key));
  if (opts.json) return printJson({ userName: name, key, changed });
  process.stdout.write(changed ? line`attribute ${key} of user ${name} removed` : line`user ${name} has no attribute ${key}; nothing changed`);
}

/** `user disable <name>` (declared in commands.ts). */
export async function disableUser(name: string): Promise<void> {
  const changed = await runOperation((s) => s.users.disable(name));
  process.stdout.write(changed ? line`user ${name} disabled; its sessions have ended` : line`user ${name} is already disabled`);
}

/** `user enable <name>` (declared in commands.ts). */
export async function enableUser(name: string): Promise<void> {
  const changed = await runOperation((s) => s.users.enable(name));
  process.stdout.write(changed ? line`user ${name} enabled` : line`user ${name} is already enabled`);
}

/** `user set-password <name>` (declared in commands.ts). */
export async function setPassword(name: string, opts: { passwordStdin?: boolean; password?: string }): Promise<void> {
  const password = await passwordFrom(opts);
  const checked = validateInput(NewPassword, { userName: name, password });
  if (!checked.ok) throw new CliError(checked.messages.map((m) => m.message).join(' '), 2);
  await runOperation((s) => s.users.setPassword(checked.value));
  process.stdout.write(line`password of user ${name} changed; its sessions have ended`);
}

/** `user set-roles <name>` (declared in commands.ts). */
export async function setRoles(name: string, opts: { role?: string[]; json?: boolean }): Promise<void> {
  const roles = required(opts.role, '--role <role>');
  const checked = validateInput(NewRoles, { userName: name, roles });
  if (!checked.ok) throw new CliError(checked.messages.map((m) => m.message).join(' '), 2);
  const changed = await runOperation(async (s, config) => {
    await warnUnknownRoles(s, config, checked.value.roles);
    return s.users.setRoles(name, checked.value.roles);
  });
  const given = [...new Set(checked.value.roles)];
  if (opts.json) return printJson({ userName: name, roles: given, changed, sessionsEnded: changed });
  process.stdout.write(changed
    ? line`roles of user ${name} set to ${given.join(', ')}; its sessions have ended`
    : line`user ${name} already has roles ${given.join(', ')}; nothing changed`);
}

/** What the server's unlock answers: whether any failed logins were counted. */
const UNLOCKED: ExpectedResult<{ cleared: boolean }> = {
  what: 'cleared, true or false',
  is: (result): result is { cleared: boolean } => typeof result === 'object' && result !== null && typeof (result as { cleared?: unknown }).cleared === 'boolean',
};

/** `user unlock <name>` (declared in commands.ts). */
export async function unlockUser(name: string, opts: { url?: string; json?: boolean }): Promise<void> {
  const loaded = configOrFail();
  let cleared: boolean | undefined;
  if (loaded.config.Cache.Redis.Url && !opts.url) {
    // Every instance counts in Redis: the CLI clears the account's counter there itself.
    throttleSecretOrFail(loaded);
    cleared = await runOperation(async (s) => {
      const found = await s.users.read(name);
      return found.result ? Output.of(await s.loginAttempts.unlock(name)) : Output.of<boolean>();
    });
  } else {
    // Without Redis the failed logins are counted in the memory of the running server (or its --workers
    // primary), which only that server reaches: it is asked, with a token allowing this unlock alone (of this
    // user, once).
    const { config } = signingKeyOrFail(loaded);
    const base = await serverApiBase(config, opts.url);
    const token = signOperatorToken(tokenSettings(config), 'login-throttle.unlock', base, { userName: name });
    cleared = (await callServer(base, 'DELETE', `/login-throttle/${encodeURIComponent(name)}`, token, UNLOCKED)).cleared;
  }
  if (opts.json) return printJson({ userName: name, cleared });
  process.stdout.write(cleared ? line`login throttling of user ${name} cleared` : line`user ${name} had no failed logins counted; nothing changed`);
}

/** `user unlock-address <address>` (declared in commands.ts). */
export async function unlockAddress(address: string, opts: { url?: string; json?: boolean }): Promise<void> {
  if (!isIP(address.trim())) throw new CliError(`${JSON.stringify(printable(address))} is not an IPv4 or IPv6 address`, 2);
  const loaded = configOrFail();
  let cleared: boolean | undefined;
  if (loaded.config.Cache.Redis.Url && !opts.url) {
    // Every instance counts in Redis: the CLI clears the address's counter there itself.
    throttleSecretOrFail(loaded);
    cleared = await runOperation(async (s) => Output.of(await s.loginAttempts.unlockAddress(address)));
  } else {
    // Counted in the running server's memory (or its --workers primary): it is asked, with a token for this address.
    const { config } = signingKeyOrFail(loaded);
    const base = await serverApiBase(config, opts.url);
    const token = signOperatorToken(tokenSettings(config), 'login-throttle.unlock', base, { address });
    cleared = (await callServer(base, 'DELETE', `/login-throttle/address/${encodeURIComponent(address)}`, token, UNLOCKED)).cleared;
  }
  if (opts.json) return printJson({ address, cleared });
  process.stdout.write(cleared ? line`login throttling of address ${address} cleared: everyone behind it may log in again`
    : line`address ${address} had no failed logins counted; nothing changed`);
}

/** `user remove <name>` (declared in commands.ts). */
export async function removeUser(name: string): Promise<void> {
  await runOperation((s) => s.users.remove(name));
  process.stdout.write(line`user ${name} removed; its sessions have ended`);
}
