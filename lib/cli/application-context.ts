import type { Application } from '../server.js';

let current: Application | undefined;

/**
 * The application the commands work on (its modules and route files). `runCli` sets it once, before any command runs,
 * so that the commands stay the layer's and know nothing of a particular application.
 */
export function setCliApplication(application: Application): void {
  current = application;
}

export function cliApplication(): Application {
  if (!current) throw new Error('no application: the CLI runs through runCli(application)');
  return current;
}
