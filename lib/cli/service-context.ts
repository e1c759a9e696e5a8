import { isError } from '../envelope/error-message.js';
import type { Output } from '../envelope/output.js';
import { withErrorScope } from '../envelope/request-scope.js';
import type { AppConfig } from '../config/schema.js';
import { openSharedState } from '../shared/shared-state.js';
import { openStorage } from '../storage/open-storage.js';
import { allModules, createServices } from '../create-services.js';
import type { LayerServices } from '../routing/layer-services.js';
import { cliApplication } from './application-context.js';
import { CliError } from './cli-error.js';
import { configOrFail } from './config-context.js';
import { line } from './terminal-text.js';

/**
 * What a CLI command's store said of turning tenancy on, when the command was the first process to start with it
 * (docs/tenancy.md): on stderr, so the adoption of every record is never silent, and stdout stays the command's answer.
 */
export const cliTenancyLog = (text: string): void => {
  process.stderr.write(line`restlayer: ${text}`);
};

/**
 * Runs one service operation the way a request would (same configuration, store and error list), outside HTTP.
 * Error messages become the command's one-line failure.
 */
export async function runOperation<T>(operation: (services: LayerServices, config: AppConfig) => Promise<Output<T>>): Promise<T | undefined> {
  const application = await cliApplication();
  const { config } = configOrFail();
  const storage = await openStorage(config, allModules(application.modules), { tenancyLog: cliTenancyLog });
  const shared = openSharedState(config);
  // Redis (when configured) fails commands sent before it is connected: give it the moment a server gets at startup.
  // One that is down is left to the operations that need it to report.
  await shared.ping().catch(() => {});
  try {
    const { services } = createServices(application.modules, storage, config, shared);
    return await withErrorScope(async () => {
      const output = await operation(services, config);
      const errors = output.messages.filter(isError);
      if (errors.length) throw new CliError(errors.map((m) => m.message).join(' '));
      for (const m of output.messages) process.stderr.write(line`${m.severity.toLowerCase()}: ${m.message}`);
      return output.result;
    });
  } finally {
    await shared.close();
    await storage.close();
  }
}
