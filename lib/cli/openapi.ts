import type { Command } from 'commander';
import { buildOpenApi, openApiOptions } from '../openapi/document.js';
import { applicationRoutes } from '../routing/application-routes.js';
import { cliApplication } from './application-context.js';
import { configOrFail } from './config-context.js';

/** Prints the bare OpenAPI 3.1 document (no envelope) for the configured variant and prefix. */
export function openapiCommand(program: Command) {
  program
    .command('openapi')
    .description('print the OpenAPI 3.1 document of the API (JSON)')
    .action(async () => {
      const { config } = configOrFail();
      const document = buildOpenApi(await applicationRoutes(cliApplication()), openApiOptions(config));
      process.stdout.write(JSON.stringify(document, null, 2) + '\n');
    });
}
