/**
 * The restlayer client (`restlayer/client`): platform fetch, URL, URLSearchParams and EventTarget only, so it runs in
 * Node 20 and in a browser bundle alike. Proxies implementing the service interfaces live beside their services
 * (services/sales-order/sales-order-proxy.ts); the layer's own lookup service has LookupProxy. See docs/client.md.
 */
export { RestClient, createClient, type CallInput, type ClientOptions } from './client.js';
export { CookieJar } from './cookie-jar.js';
export { CookieSession } from './cookie-session.js';
export { RecordTags } from './record-tags.js';
export { criteriaToQuery } from './criteria.js';
export { type DateKeys, type DateProperties, reviveDates } from './dates.js';
export {
  OperationNotSupportedError, SESSION_EXPIRED_CODE, SESSION_EXPIRED_TEXT, SessionExpiredError, SessionExpiredEvent, clientOutput, isConcurrencyConflict,
} from './errors.js';
export { type Environment, type HttpCall, HttpCore, type HttpOptions, type HttpReply, acceptLanguage } from './http.js';
export { type OperationRoute, type OperationTable, type ProxyDescription, notExposed } from './operations.js';
export { type RemoteApi, apiBase, apiUrl, remoteApiDefaults, remoteApiFromConfig } from './remote-api.js';
export { type RetryOptions, newIdempotencyKey, withRetries } from './retry.js';
export { ClientSession } from './session.js';
export { type TokenPair, TokenService, type TokenServiceOptions, jwtClaims } from './token-service.js';
export { LookupProxy } from './lookup-proxy.js';
// A PATCH body (JSON merge patch) and its effect on a record, as the server applies it.
export { type PatchOf, mergePatch } from './merge-patch.js';
// A declared resource's proxy (lib/resources): `export const CustomerProxy = resourceProxy<typeof customer>({ … })`.
export { type ProxyAddress, type ProxyClass, type ShapeOf, resourceProxy } from './resource-proxy.js';
export type {
  ActionInput, ChildInput, ChildItem, ChildWrite, CreateInput, CreateOutput, ListInput, ListItem, PatchInput, Read, Service, UpdateInput,
} from './resource-types.js';
export type {
  ActionInputOf, ChildInputOf, ChildRead, ChildWriteOf, CreateOf, CreateOutputOf, CriteriaOf, ListItemOf, PatchInputOf, ReadOf, ResourceService, UpdateOf,
  UpdateOutput,
} from '../resources/wire-types.js';
export type { AuditEntry, HistoryPage } from '../audit/audit-models.js';
// Types only (erased from the bundle): what proxies answer and send.
export type { Output } from '../envelope/output.js';
export type { ErrorMessage, ErrorType, Severity } from '../envelope/error-message.js';
export type { Criteria, FieldCriterion, ListOptions, Operator, SortDirection, SortField } from '../validation/criteria.js';
export type { CachedTable } from '../lookup/lookup-cache.js';
export type { LookupItem, LookupTable } from '../lookup/lookup-table.js';
export type { ILookupService } from '../lookup/lookup-service.js';
export type { AuthToken, UserInfo } from '../auth/auth-models.js';
