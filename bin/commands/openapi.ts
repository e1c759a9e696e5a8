import type { Command } from 'commander';
import { buildOpenApi, openApiOptions } from '../../lib/openapi/document.js';
import { loadRoutes } from '../../lib/routing/load-routes.js';
import { application } from '../../services/index.js';
import { configOrFail } from './config-context.js';

/** Prints the bare OpenAPI 3.1 document (no envelope) for the configured variant and prefix. */
export function openapiCommand(program: Command) {
  program
    .command('openapi')
    .description('print the OpenAPI 3.1 document of the API (JSON)')
    .action(async () => {
      const { config } = configOrFail();
      const document = buildOpenApi(await loadRoutes(application.routesDir), openApiOptions(config));
      process.stdout.write(JSON.stringify(document, null, 2) + '\n');
    });
}
