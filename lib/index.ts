/**
 * restlayer's public API for an application that has it as a dependency (`import { … } from 'restlayer'`): the
 * server and its CLI, service modules, route files, the envelope, input models, list criteria, merge patches, storage
 * and lookup tables. The browser-safe client is `restlayer/client`; helpers for an application's tests are
 * `restlayer/testing`. Anything not exported here is the layer's own and may change.
 */

// Server, configuration, logging and the CLI.
export { type Application, type RunningServer, type StartOptions, startServer } from './server.js';
export { ConfigError, type LoadOptions, type LoadedConfig, loadConfig } from './config/load.js';
export type { AppConfig } from './config/schema.js';
export { type LogFields, type LogLevel, type Logger, createLogger } from './log.js';
export { type RunCliOptions, runCli } from './cli/run-cli.js';
export { CliError } from './cli/cli-error.js';

// Service modules and the services every application has.
export { type ModuleContext, type ServiceModule, type ServicesOf, serviceModule } from './modules.js';
export type { LayerServices } from './services.js';
export type { Principal } from './auth/principal.js';

// Route files.
export { type QuerySchema, type Route, type RouteCall, type RouteSpec, type SignedInUser, type Verb, route, routeFor } from './routing/route.js';

// The envelope: outputs and messages.
export { Output } from './envelope/output.js';
export { ErrorList, ServiceError } from './envelope/error-list.js';
export { type ErrorMessage, type ErrorType, type MessageOptions, type Severity, isError, message } from './envelope/error-message.js';
export { currentErrors, withErrorScope } from './envelope/request-scope.js';

// Input models, list criteria and merge patches.
export { INT32, array, boolean, date, decimal, integer, maybe, model, oneOf, optional, text } from './validation/fields.js';
export { type ValidationResult, validateInput } from './validation/validate.js';
export {
  type AnyFieldSpec, type Criteria, CriteriaSchema, type FieldCriterion, type FieldKind, type FieldSpec, type ListOptions, OPERATORS,
  type Operator, type SortDirection, type SortField, defineCriteria, field,
} from './validation/criteria.js';
export { type MergePatchOperation, type PatchOf, applyMergePatch, patchModel, updateFieldsOf } from './validation/merge-patch.js';
// A model's TypeScript type: `type NoteInput = Infer<typeof NoteInput>`.
export type { Infer } from 'superstruct';

// Storage: the store services query, provider-specific values and list criteria as SQL.
export type { Storage } from './storage/storage.js';
export { type SqlValues, StoredDate } from './storage/sql-values.js';
export type { DbBool, DbDate, Tables } from './storage/tables.js';
export { criterionSql } from './storage/criteria-sql.js';
export { type UniqueKey, propertyOfColumn } from './storage/unique-violation.js';
// The query builder the store is made of, so that migrations and queries use the very copy the layer runs.
export { type Generated, type Insertable, type Kysely, type Migration, type Selectable, sql } from 'kysely';

// Lookup tables.
export { type CachedTable, LookupCache } from './lookup/lookup-cache.js';
export type { LookupItem, LookupLoader, LookupTable } from './lookup/lookup-table.js';
export type { ILookupService } from './lookup/lookup-service.js';

// Lists: definitions, their indexes and change tracking (the scaffold's generated services use them).
export { type ListDefinition, type ListLimits, readListRows } from './storage/list-query.js';
export { listIndexes } from './storage/list-indexes.js';
export { trackListChanges } from './storage/list-changes.js';
export { listLimits } from './storage/list-limits.js';
