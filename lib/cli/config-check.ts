import type { LoadedConfig } from '../config/load.js';
import { variantSecrets } from '../config/secrets.js';
import { applicationRoutes } from '../routing/application-routes.js';
import { grantsMatchingNothing } from '../routing/load-routes.js';
import { probeStorage } from '../storage/reset.js';
import { cliApplication } from './application-context.js';
import { CliError } from './cli-error.js';
import { configOrFail } from './config-context.js';

/** Whether each secret the configured variant needs is set, never what it is. */
function secretStates({ config, generatedEnv, developmentKeysFile }: LoadedConfig): Record<string, string> {
  const unset = developmentKeysFile ? `not set (the development key in ${developmentKeysFile})` : 'not set (a random key for this process only)';
  return Object.fromEntries(variantSecrets[config.Authentication.Variant].map((s) => {
    const generated = s.key.split(':').join('__') in generatedEnv;
    return [s.key, generated ? unset : 'set'];
  }));
}

/** `restlayer config check` (declared in commands.ts). */
export async function checkConfig(opts: { json?: boolean }): Promise<void> {
  // A check changes nothing: development keys are read when kept, never made (the server makes them).
  const loaded = configOrFail({ writeNothing: true });
  // The roles against the routes, as `serve` checks them at startup: a scoped grant that a route of its permission
  // does not apply passes the schema but stops the server, and a check that said "valid" then misled.
  const routes = await applicationRoutes(await cliApplication(), loaded.config.Authorization.Roles);
  const { redacted } = loaded;
  const warnings = [...loaded.warnings, ...grantsMatchingNothing(routes, loaded.config.Authorization.Roles)];
  const secrets = secretStates(loaded);
  // A valid configuration naming a database that cannot be used would fail the first start: tried here, unchanged.
  let database: string;
  try {
    database = await probeStorage(loaded.config);
  } catch (err) {
    throw new CliError(`the configuration is valid, but its database cannot be used: ${(err as Error).message}`, 1, { valid: true, database: false });
  }
  if (opts.json) {
    process.stdout.write(JSON.stringify({ valid: true, warnings, secrets, database, config: JSON.parse(redacted()) }, null, 2) + '\n');
    return;
  }
  for (const w of warnings) process.stderr.write(`warning: ${w}\n`);
  const secretLine = Object.entries(secrets).map(([key, state]) => `${key} ${state}`).join('; ');
  process.stdout.write(`configuration is valid\nsecrets: ${secretLine}\ndatabase: ${database}\n${redacted()}\n`);
}
