import type { Struct } from 'superstruct';
import type { AppConfig } from '../config/schema.js';
import type { BodyLimit } from '../validation/json-budget.js';

/** What a declared resource with children needs of the configuration: `Documents:MaxLines`, the most children one record holds. */
export interface DocumentLimits {
  readonly maxLines: number;
}

export function documentLimits(config: Pick<AppConfig, 'Documents'>): DocumentLimits {
  return { maxLines: config.Documents.MaxLines };
}

/**
 * The body limit (a route's `maxBody`) of a route that takes a whole document, the create of a declared resource with
 * children (lib/resources/routes.ts): what a record write takes
 * (RestAPI:DefaultBodyBytes and DefaultBodyItems) for the parent's own fields, plus Documents:MaxLines children of at
 * most `childBytes` bytes each (written out, indentation included), each one array element and the keys of `child`,
 * the model of one child. A document past its line cap is then refused as a 413 before it is parsed, however its
 * lines are written; one within it reaches validation and the 400 Document_TooManyLines.
 */
export function documentBody<T, S>(child: Struct<T, S>, childBytes: number): (config: AppConfig) => BodyLimit {
  const childKeys = Object.keys((child as { schema?: object }).schema ?? {}).length;
  return (config) => ({
    bytes: config.RestAPI.DefaultBodyBytes + config.Documents.MaxLines * childBytes,
    items: config.RestAPI.DefaultBodyItems + config.Documents.MaxLines * (childKeys + 1),
  });
}
