import { applyWebDefaults } from '../http/web-app.js';
import { buildOpenApi, openApiOptions } from '../openapi/document.js';
import { applicationRoutes } from '../routing/application-routes.js';
import { cliApplication } from './application-context.js';
import { configOrFail } from './config-context.js';

/**
 * `restlayer openapi` (declared in commands.ts): prints the bare OpenAPI 3.1 document (no envelope) for the configured
 * variant and prefix, as `serve` would serve it.
 */
export async function printOpenApi(): Promise<void> {
  const { config } = configOrFail();
  // As `serve` does: with the browser app on (Web:Enabled) and no RestAPI:Path, the API is served under /api.
  applyWebDefaults(config);
  const document = buildOpenApi(await applicationRoutes(await cliApplication()), openApiOptions(config));
  process.stdout.write(JSON.stringify(document, null, 2) + '\n');
}
