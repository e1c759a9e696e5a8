import type { Command } from 'commander';
import { applyWebDefaults } from '../http/web-app.js';
import { buildOpenApi, openApiOptions } from '../openapi/document.js';
import { applicationRoutes } from '../routing/application-routes.js';
import { cliApplication } from './application-context.js';
import { configOrFail } from './config-context.js';

/** Prints the bare OpenAPI 3.1 document (no envelope) for the configured variant and prefix, as `serve` would serve it. */
export function openapiCommand(program: Command) {
  program
    .command('openapi')
    .description('print the OpenAPI 3.1 document of the API (JSON)')
    .action(async () => {
      const { config } = configOrFail();
      // As `serve` does: with the browser app on (Web:Enabled) and no RestAPI:Path, the API is served under /api.
      applyWebDefaults(config);
      const document = buildOpenApi(await applicationRoutes(cliApplication()), openApiOptions(config));
      process.stdout.write(JSON.stringify(document, null, 2) + '\n');
    });
}
