import { ConfigError, type LoadOptions, type LoadedConfig, loadConfig } from '../config/load.js';
import { secretVariable } from '../config/secrets.js';
import { CliError } from './cli-error.js';

/** Loads the configuration the server would use; invalid configuration is a failure with one line per problem. */
export function configOrFail(options: LoadOptions = {}): LoadedConfig {
  try {
    return loadConfig(options);
  } catch (err) {
    if (err instanceof ConfigError) {
      throw new CliError(`invalid configuration:\n${err.problems.map((p) => `  ${p}`).join('\n')}`, 1, { valid: false, problems: err.problems });
    }
    throw err;
  }
}

/**
 * Tokens the CLI signs must verify on the running servers. Without a configured key the configuration falls back to
 * a random one for this process alone (tests), and every token signed with it would be refused: that is a failure
 * here. The development keys kept beside the database are the servers' own, so they do.
 */
export function signingKeyOrFail(loaded: LoadedConfig): LoadedConfig {
  const variantA = loaded.config.Authentication.Variant === 'A';
  const key = variantA ? 'Authentication:Schemes:Bearer:SigningKeys' : 'AuthConfig:SigningKey';
  if (!loaded.developmentKeysFile && loaded.warnings.some((w) => w.startsWith(`${key} is not set`))) {
    throw new CliError(`${key} is not set: set ${secretVariable(key)} to the key the servers use (a key of this process alone would sign tokens no server accepts)`);
  }
  return loaded;
}

/**
 * The login throttle's counters in Redis are named by a keyed hash whose secret is variant A's newest cookie key, or
 * variant B's signing key (lib/shared/shared-state.ts). A CLI that clears them in Redis must hold the servers' secret:
 * with a random one of its own it would name other keys, find nothing and say so, wrongly. That is a failure here.
 */
export function throttleSecretOrFail(loaded: LoadedConfig): LoadedConfig {
  const key = loaded.config.Authentication.Variant === 'A' ? 'Authentication:Cookie:Keys' : 'AuthConfig:SigningKey';
  if (!loaded.developmentKeysFile && loaded.warnings.some((w) => w.startsWith(`${key} is not set`))) {
    throw new CliError(`${key} is not set: set ${secretVariable(key)} to the key the servers use (login throttle counters in Redis are named with it)`);
  }
  return loaded;
}
