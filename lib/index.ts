/**
 * restlayer's public API for an application that has it as a dependency (`import { … } from 'restlayer'`): the
 * server and its CLI, resource declarations and service modules, authentication, route files, the envelope, input
 * models, list criteria, storage, transactions, lists' indexes and plans, audit retention, the API description and
 * lookup tables. Services are declarations the layer runs: what only services written by hand used is not here. The browser-safe client is
 * `restlayer/client`; helpers for an application's tests are `restlayer/testing`. Anything not exported here is the
 * layer's own and may change.
 */

import type { RunningServer, StartOptions } from './server.js';

// Server, configuration, logging and the CLI.
export type { Application, RunningServer, StartOptions } from './server.js';
/**
 * Starts the server (server.ts). The HTTP stack is imported on the first call: an application's modules import this
 * package, and a CLI command that serves nothing (`user list`) then loads no Koa, router or metrics.
 */
export async function startServer(options: StartOptions): Promise<RunningServer> {
  return (await import('./server.js')).startServer(options);
}
export { ConfigError, type LoadOptions, type LoadedConfig, loadConfig } from './config/load.js';
export type { AppConfig } from './config/schema.js';
// Every setting the layer reads (convict schema: doc, default, env per key) and those read from the environment only.
export { environmentOnly as environmentOnlySettings, schema as settingsSchema } from './config/schema.js';
export { type LogFields, type LogLevel, type Logger, createLogger } from './log.js';
export { type RunCliOptions, runCli } from './cli/run-cli.js';
export { CliError } from './cli/cli-error.js';

// Resources (docs/services.md): a service declared as data and a few functions; the layer runs every declaration.
export { type AnyResource, type Resource, type ResourceRoutes, resource } from './resources/resource.js';
export {
  type Actions, type ActionDeclaration, type Change, type ChildDeclaration, type Children, type LookupDeclaration, type LookupEntry, type ReferringTable, type ResourceDeclaration, type Rule,
  type ServiceCode, type ServiceStore, action, child,
} from './resources/declaration.js';
export { type AnyField, type Derived, Field, type FieldSpec, type FieldTraits, type ValueContext, type ValueSource, type WireRecord, type WireValue, field } from './resources/field.js';
export type {
  ActionInputOf, ChildInputOf, ChildRead, ChildWriteOf, CreateOf, CreateOutputOf, CriteriaOf, Fields, ListItemOf, PatchInputOf, ReadOf, RecordOf,
  ResourceService, Shape, StoredRecordOf, UpdateOf, UpdateOutput,
} from './resources/wire-types.js';
export { DeclarationError } from './resources/model.js';

// Service modules and the services every application has (allModules: the layer's own modules, then these).
export { type ModuleContext, type ServiceModule, type ServicesOf, serviceModule } from './modules.js';
export type { LayerServices } from './routing/layer-services.js';
export { allModules } from './create-services.js';

// Authentication: who calls, the login body, variant A's session cookie name, operator tokens (one action at one
// server, on one target, once: what `restlayer lookup flush` sends, for a project's own tools), and the password
// checks' concurrency (how many run at once per process; the most seen waiting since a reset, for diagnostics).
export type { Principal } from './auth/principal.js';
export { Credentials, type UserInfo } from './auth/auth-models.js';
export { SESSION_COOKIE } from './http/auth/session-cookie.js';
export { type OperatorTarget, signOperatorToken } from './auth/operator-token.js';
export { tokenSettings } from './auth/token-keys.js';
export { CHECKS_AT_ONCE, checksWaitingPeak, resetChecksWaitingPeak } from './auth/password.js';

// Route files.
export {
  type QuerySchema, type Route, type RouteCall, type RouteSpec, type SignedInUser, type Verb, route, routeFor,
} from './routing/route.js';
export { isAnonymous } from './routing/route-access.js';
// The routes a server serves, loaded and checked as it loads them: for tools and tests that walk an API (a proxy's
// drift check, a fuzzer, the OpenAPI document). layerRoutesDir holds the layer's own (login, health, lookup tables…).
export { type LoadedRoute, loadRoutes } from './routing/load-routes.js';
export { applicationRoutes, layerRoutesDir } from './routing/application-routes.js';

// The envelope: outputs and messages.
export { Output } from './envelope/output.js';
// derivedStatus: the status an answer with these messages gets; MAX_MESSAGES: the most an answer lists (then one more
// saying that more were found).
export { ErrorList, MAX_MESSAGES, ServiceError, derivedStatus } from './envelope/error-list.js';
export { type ErrorMessage, type ErrorType, type MessageOptions, type Severity, isError, message } from './envelope/error-message.js';
export { type RequestAccess, currentAccess, currentErrors, withErrorScope } from './envelope/request-scope.js';
// Conditional writes (If-Match, contract part 14): a hand-written write calls preconditionFails where it reads the
// record it changes (locked), as the layer's own writes do.
export { preconditionFails } from './envelope/precondition.js';
// The layer's message catalogue: its codes by name, and their messages (`MESSAGES.Entity_NotFound({ entity, id })`).
// CATALOGUE / entryOf / statusOfCode: each code's type, status, text and meaning, for a project's own docs and tests.
export { CATALOGUE, CODES, MESSAGES, type MessageCode, entryOf, statusOfCode } from './envelope/message-catalogue.js';
// Languages (docs/languages.md): an application's own codes (defineMessages: type, English text, meaning) and the texts
// of another language for its codes or the layer's (addLanguage), typed so a code without a text does not compile;
// missingTexts lists what a registered language still lacks, for a test.
export { DEFAULT_LANGUAGE, addLanguage, defineMessages, messageEntries, missingTexts, supportedLanguages, templateOf } from './envelope/languages.js';
export type { Makers, MessageEntry, TextsOf } from './envelope/message-makers.js';

// Input models and list criteria (a PATCH body's merge: mergePatch of restlayer/client).
// ISO_DATE: the date and time texts inputs accept (a date alone, a time with or without an offset).
export { INT32, ISO_DATE, array, boolean, date, decimal, integer, maybe, model, oneOf, optional, text } from './validation/fields.js';
// Exact amounts (docs/money.md): the money() field kind, decimal arithmetic (big.js's Big as Decimal; Decimal.roundHalfUp
// rounds half away from zero), roundMoney (to 4 fractional digits, half away from zero) and the digit count money() checks.
export { MONEY_LIMIT, type MoneyOptions, type MoneyRules, fitsMoney, money } from './validation/money.js';
export { Decimal, MONEY_PRECISION, MONEY_SCALE, fractionDigits, roundMoney } from './validation/decimal.js';
export { type ValidationResult, validateInput } from './validation/validate.js';
// (The criteria's field kinds are `criterion.text()`, `criterion.list()`…: `field` is a resource's field.)
export {
  type AnyFieldSpec as AnyCriterionSpec, type Criteria, CriteriaSchema, type FieldCriterion, type FieldKind, type FieldSpec as CriterionSpec, type ListOptions, OPERATORS,
  type Operator, type SortDirection, type SortField, arityOf, defineCriteria, field as criterion,
} from './validation/criteria.js';
// A model's TypeScript type: `type NoteInput = Infer<typeof NoteInput>`.
export type { Infer } from 'superstruct';

// Storage: the store services query, what differs between providers (its dialect), values and list criteria as SQL.
export type { Storage } from './storage/storage.js';
export type { StorageDialect } from './storage/dialects/dialect.js';
// Opens the configured store and brings the modules' schema up to date (allModules(modules) adds the layer's own).
export { type OpenOptions, openStorage } from './storage/open-storage.js';
export { type SqlValues, StoredDate } from './storage/sql-values.js';
export type { DbBool, DbDate, DbMoney, Tables } from './storage/tables.js';
// Several writes that stand or fall together, on either store (docs/services.md, "Several writes in one transaction").
export { inTransaction } from './storage/transaction.js';
// A read by key built and compiled once, run with new values (docs/services.md, "Reads kept compiled").
export { keptQuery } from './storage/kept-query.js';
export { type UniqueKey, propertyOfColumn } from './storage/unique-violation.js';
// The query builder the store is made of, so that migrations and queries use the very copy the layer runs.
export { type Generated, type Insertable, type Kysely, type Migration, type Selectable, type Transaction, sql } from 'kysely';

// Lists (docs/services.md, "Lists"): a declared resource's list filters, sorts, pages (skip/take and signed cursors),
// counts (kept while the tables do not change) and caps at RestAPI:MaxRows (listLimits(config): the cap and the cursor
// keys); its migration creates the indexes (listIndexes) and the change tracking the kept counts need (trackListChanges).
export type { ListLimits } from './storage/list-query.js';
// The SQL a list request runs (its page, keys and count) for a project's own plan tests (EXPLAIN) of a declared
// resource's list: `listSql(customer.list, criteria, storage.dialect, take)` (docs/services.md, "Lists at scale").
export { listSql } from './storage/list-query.js';
// A deep page's window for listSql (its `window`), as the list reads one: a page past the middle of `total` matches
// read from the end, `fromEnd(total, skip, take)`, so a plan test sees the SQL such a request runs.
export { fromEnd } from './storage/list-query.js';
// The types listSql and a resource's `list` are written in, so that a plan test can name them.
export type { ListCriteria, ListDefinition, ListSql, PageWindow } from './storage/list-query.js';
export type { CursorKeys } from './storage/list-cursor.js';
export { listLimits } from './storage/list-limits.js';
export { listIndexes } from './storage/list-indexes.js';
export { trackListChanges } from './storage/list-changes.js';
// Record scopes (docs/record-scopes.md): a declaration's named conditions that limit a permission to some records; the
// layer applies them in every statement it runs for the resource, never the service's own code.
export { NOTHING, type RecordScope, type RecordScopes } from './storage/record-scope.js';

// The API description: the OpenAPI document of a set of routes, and a model's JSON schema as the document gives it.
// documentedPath: a router path (`/sales-order/:_salesOrderId`) as the document names it; apiInfo: the document's
// title, version and description, from the settings or the application's package.json (UNNAMED_API when neither says).
export { type OpenApiOptions, buildOpenApi, documentedPath, openApiOptions } from './openapi/document.js';
export { UNNAMED_API, apiInfo } from './openapi/info.js';
export { type JsonSchema, structSchema } from './openapi/struct-schema.js';

// A route's `maxBody`: the most bytes and JSON items its body may hold (RouteSpec.maxBody).
export type { BodyLimit } from './validation/json-budget.js';
// The stored form of a declaration's derived fields, for a migration that fills a new one (docs/services.md).
export { deriveStored } from './resources/derive-stored.js';

// Audit history (docs/audit.md): the layer records an entry in each write's own transaction and serves a record's
// history; these are what a client reads of it (its entry model, the bounds of an entry, the redacted value, the user
// name of writes outside a request) and the retention of old entries.
export { type AuditChange, type AuditEntry, AuditEntryModel, type AuditOperation, type AuditValue, type HistoryPage } from './audit/audit-models.js';
export { SYSTEM_USER } from './audit/record-audit.js';
export { AUDIT_ENTRY_MAX_BYTES, AUDIT_TRUNCATED_FIELD, AUDIT_VALUE_MAX_CHARS } from './audit/entry-bound.js';
export { REDACTED } from './audit/secrets.js';
export { type AuditRetention, pruneAudit, startAuditRetention } from './audit/retention.js';

// Lookup tables.
export { type CachedTable, LookupCache } from './lookup/lookup-cache.js';
export type { LookupItem, LookupLoader, LookupTable } from './lookup/lookup-table.js';
export type { ILookupService } from './lookup/lookup-service.js';

