import { isError } from '../../lib/envelope/error-message.js';
import type { Output } from '../../lib/envelope/output.js';
import { withErrorScope } from '../../lib/envelope/request-scope.js';
import type { AppConfig } from '../../lib/config/schema.js';
import { openSharedState } from '../../lib/shared/shared-state.js';
import { openStorage } from '../../lib/storage/open-storage.js';
import { type Services, createServices } from '../../services/services.js';
import { CliError } from '../cli-error.js';
import { configOrFail } from './config-context.js';

/**
 * Runs one service operation the way a request would (same configuration, store and error list), outside HTTP.
 * Error messages become the command's one-line failure.
 */
export async function runOperation<T>(operation: (services: Services, config: AppConfig) => Promise<Output<T>>): Promise<T | undefined> {
  const { config } = configOrFail();
  const storage = await openStorage(config);
  const shared = openSharedState(config);
  try {
    const services = createServices(storage, config, shared);
    return await withErrorScope(async () => {
      const output = await operation(services, config);
      const errors = output.messages.filter(isError);
      if (errors.length) throw new CliError(errors.map((m) => m.message).join(' '));
      for (const m of output.messages) process.stderr.write(`${m.severity.toLowerCase()}: ${m.message}\n`);
      return output.result;
    });
  } finally {
    await shared.close();
    await storage.close();
  }
}

export function printJson(value: unknown) {
  process.stdout.write(JSON.stringify(value, null, 2) + '\n');
}
