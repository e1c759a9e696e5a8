import type { AppConfig } from '../config/schema.js';
import type { ListLimits } from './list-query.js';
import { cursorKeysOf } from './list-cursor.js';

/**
 * What a service's lists need from the configuration: `RestAPI:MaxRows`, and the keys that sign their cursors,
 * derived from the server's own secrets (variant A: `Authentication:Cookie:Keys`, newest first; variant B:
 * `AuthConfig:SigningKey`), which every worker and instance of one deployment shares.
 */
export function listLimits(config: AppConfig): ListLimits {
  const auth = config.Authentication;
  const secrets = auth.Variant === 'A' ? auth.Cookie.Keys : [config.AuthConfig.SigningKey];
  return { maxRows: config.RestAPI.MaxRows, cursorKeys: cursorKeysOf(secrets) };
}
