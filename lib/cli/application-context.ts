import type { Application } from '../server.js';
import { CliError } from './cli-error.js';

/** An application, or a function importing it: the CLI imports it only for a command that needs it. */
export type ApplicationSource = Application | (() => Promise<Application>);

let source: ApplicationSource | undefined;
let loaded: Promise<Application> | undefined;

/**
 * The application the commands work on (its modules and route files). `runCli` sets it once, before any command runs,
 * so that the commands stay the layer's and know nothing of a particular application. Undefined: a CLI without an
 * application (restlayer's own, installed as a package), whose commands that need one say so.
 */
export function setCliApplication(application: ApplicationSource | undefined): void {
  source = application;
  loaded = undefined;
}

/** The application, imported on first use when given as a function. */
export function cliApplication(): Promise<Application> {
  if (!source) {
    return Promise.reject(new CliError('this command needs an application, and this CLI has none: run your project\'s own CLI '
      + '(its bin calling runCli(application), see restlayer\'s docs/dependency.md)'));
  }
  const given = source;
  loaded ??= typeof given === 'function' ? given() : Promise.resolve(given);
  return loaded;
}
