import { ConfigError, type LoadOptions, type LoadedConfig, loadConfig } from '../config/load.js';
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
