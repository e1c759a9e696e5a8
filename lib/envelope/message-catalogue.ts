import { type ErrorMessage, statusOf } from './error-message.js';
import { type ArgsOf, type MessageEntry, makersOf, render } from './message-makers.js';

/**
 * Every message code the layer answers, in one place (as Fastify's `lib/errors.js`): its type, the status it implies,
 * its text and what it means. Error paths create their messages here, and the OpenAPI document lists the codes from
 * here, so a code cannot answer one thing and be documented as another. A business service keeps its own codes; the
 * `Entity_` ones are here because the layer's conventions (and the scaffold) use them for every service. The
 * browser-safe client (lib/client) imports nothing outside its folder and keeps the few codes it makes up itself.
 *
 * Texts that take values are functions of them. An `Input_` text is a predicate that reads after the name of the
 * property it is about ("must be a string."): `inputMessage` puts the name in front.
 */
const plural = (n: number, unit: string) => `${n} ${unit}${n === 1 ? '' : 's'}`;

export const CATALOGUE = {
  // The request as it arrives.
  Request_Malformed: { type: 'Validation', text: 'The request is not valid HTTP.', description: 'The request could not be read as HTTP.' },
  Request_HeadersTooLarge: {
    type: 'Validation', status: 431, text: 'The request headers are larger than the server accepts.',
    description: 'The request head is over Server:MaxHeaderBytes.',
  },
  Request_ReceiveTimeout: {
    type: 'Validation', status: 408, text: 'The request was not received completely in time.',
    description: 'The request was not received completely within the server\'s time for it.',
  },
  Request_UriTooLong: {
    type: 'Validation', status: 414,
    text: ({ maxLength }: { maxLength: number }) => `The query string is longer than the ${maxLength} characters the server accepts.`,
    description: 'The query string is over RestAPI:MaxQueryLength.',
  },
  Request_MalformedJson: {
    type: 'Validation',
    text: ({ why }: { why?: string }) => `The request body is not valid JSON${why ? `: ${why}` : ''}.`,
    description: 'The body is not valid JSON, or does not decompress as its Content-Encoding says.',
  },
  Request_TooDeep: {
    type: 'Validation',
    text: ({ maxDepth }: { maxDepth: number }) => `The request body nests objects or arrays more than ${maxDepth} levels deep.`,
    description: 'The JSON body nests objects or arrays too deeply.',
  },
  Request_TooLarge: {
    type: 'Validation', status: 413,
    text: ({ limitBytes, limitItems }: { limitBytes?: number; limitItems?: number }) => limitItems !== undefined
      ? `The request body holds more than the ${limitItems} keys and array elements this operation accepts.`
      : `The request body is larger than ${limitBytes === undefined ? '' : `the ${limitBytes} bytes `}the server accepts.`,
    description: 'The body is over the operation\'s limit, in bytes or in keys and array elements (its own, else RestAPI:DefaultBodyBytes '
      + 'and DefaultBodyItems; never more than RestAPI:MaxBodyBytes, nor RestAPI:MaxAnonymousBodyBytes on anonymous routes).',
  },
  Request_UnsupportedMediaType: {
    type: 'Validation', status: 415,
    text: ({ accepted = 'application/json', sent }: { accepted?: string; sent?: string }) =>
      `The request body must be sent as ${accepted}${sent ? `, not ${sent}` : ''}.`,
    description: 'The body is not JSON (PATCH: a JSON merge patch, not a JSON Patch), or its Content-Encoding is not supported.',
  },
  Request_Invalid: {
    type: 'Validation',
    text: ({ reason }: { reason: string }) => `The request could not be processed: ${reason}`,
    description: 'The request was refused before any route ran, with the 4xx status given.',
  },
  Request_Throttled: {
    type: 'Security', status: 429,
    text: ({ busy, seconds }: { busy: boolean; seconds: number }) =>
      `${busy ? 'Too many logins are being checked at the moment.' : 'Too many login attempts.'} Try again in ${plural(seconds, 'second')}.`,
    description: 'Too many login attempts, or too many logins being checked at once; wait Retry-After seconds.',
  },
  Request_Timeout: {
    type: 'System', status: 503,
    text: ({ seconds }: { seconds?: number }) =>
      `The read was stopped: it took longer than ${seconds === undefined ? 'the server allows' : `the ${plural(seconds, 'second')} the server allows`}. `
      + 'Narrow the criteria or ask for a smaller page, then retry.',
    description: 'A read did not finish within RestAPI:RequestTimeoutSeconds or Storage:QueryTimeoutSeconds; retry after Retry-After seconds.',
  },
  Request_OutcomeUnknown: {
    type: 'System', status: 503,
    text: ({ seconds }: { seconds: number }) =>
      `The operation did not finish within ${plural(seconds, 'second')} and may still complete, so whether it was saved is unknown. `
      + 'Send it again with the same Idempotency-Key to get its outcome, or check before sending it again without one.',
    description: 'A write was still running at RestAPI:RequestTimeoutSeconds: it may still be saved.',
  },

  // Idempotency-Key.
  Request_IdempotencyKeyInvalid: {
    type: 'Validation', text: 'The Idempotency-Key header must be 1 to 255 visible ASCII characters (no spaces or control characters).',
    description: 'The Idempotency-Key header is not 1 to 255 visible ASCII characters.',
  },
  Request_IdempotencyMismatch: {
    type: 'Validation', status: 422,
    text: 'This Idempotency-Key was already used on this path with a different request body. Use a new key for a different request.',
    description: 'This Idempotency-Key was used on this path with a different body; nothing was written.',
  },
  Request_InProgress: {
    type: 'Concurrency', text: 'A request with this Idempotency-Key is still running. Retry after the time in Retry-After to get its outcome.',
    description: 'The first request with this Idempotency-Key is still running; retry after Retry-After seconds.',
  },
  Request_IdempotencyOutcomeUnknown: {
    type: 'Concurrency',
    text: 'The first request with this Idempotency-Key ended without a known outcome (the server stopped, or the store failed while saving): '
      + 'it may or may not have been saved. Check whether it was, then send it again with a new key if needed.',
    description: 'The first request with this Idempotency-Key ended without a known outcome: check, then use a new key.',
  },
  Request_ReplayWithoutResult: {
    type: 'Message', severity: 'Warning',
    text: 'This repeats an earlier request with the same Idempotency-Key; its result was too large to keep. Read the resource to see it.',
    description: 'A replayed answer whose result was too large to keep.',
  },

  // Routing.
  Route_NotFound: {
    type: 'Data', status: 404, text: ({ method, path }: { method: string; path: string }) => `No resource is found at ${method} ${path}.`,
    description: 'No route has this path.',
  },
  Route_MethodNotAllowed: {
    type: 'Validation', status: 405,
    text: ({ method, path, allow }: { method: string; path: string; allow: string }) =>
      `Method ${method} is not allowed on ${path}. Allowed: ${allow || 'none'}.`,
    description: 'The path exists but not with this verb; the Allow header lists those it takes.',
  },

  // Who is calling.
  Security_Unauthenticated: {
    type: 'Security', status: 401, text: 'Authentication is required: send a bearer token or log in.',
    description: 'No credentials were sent.',
  },
  Security_TokenExpired: {
    type: 'Security', status: 401, text: 'The access token has expired. Refresh it or log in again.', description: 'The access token has expired.',
  },
  Security_TokenInvalid: {
    type: 'Security', status: 401, text: 'The access token is not valid for this server.',
    description: 'The access token is not valid here (signature, algorithm, issuer, audience, no exp, malformed, or its user is ended).',
  },
  Security_Forbidden: {
    type: 'Security', status: 403, text: 'You are not allowed to perform this operation.',
    description: 'The caller lacks the permission the route needs, or a create or update would leave the record outside the caller\'s record scope.',
  },
  Security_CsrfRejected: {
    type: 'Security', status: 403,
    text: 'Cross-site request refused: a cookie-authenticated change must come from this site or an allowed origin (send an Origin header).',
    description: 'A cookie-authenticated change from another origin.',
  },
  Security_InvalidAccessToken: {
    type: 'Security', status: 401, text: 'Invalid access token', description: 'A refresh whose access token is not one this server issued.',
  },
  Security_InvalidRefreshToken: {
    type: 'Security', status: 401, text: 'Invalid refresh token', description: 'A refresh whose refresh token is not the current one of its session.',
  },
  Login_InvalidCredentials: {
    type: 'Security', status: 401, text: 'Invalid user name or password.',
    description: 'A login with a wrong user name or password (the same whether or not the user exists).',
  },

  // Records and lists.
  Entity_NotFound: {
    type: 'Data', text: ({ entity, id }: { entity: string; id: number | string }) => `${entity} with id ${id} not found.`,
    description: 'What the path names does not exist (or is outside the caller\'s scope).',
  },
  Entity_Concurrency: {
    type: 'Concurrency',
    text: ({ record = 'The record', sent, now, tag }: { record?: string; sent?: number | null; now?: number; tag?: 'stale' | 'missing' }) =>
      tag === 'missing' ? `${record} does not exist, so If-Match: * does not hold; nothing was written.`
        : tag === 'stale' ? `${record} was changed by someone else: the ETag sent in If-Match is no longer current. Reload it and try again.`
          : `${record} was changed by someone else: revision ${sent} is no longer current (now ${now}). Reload it and try again.`,
    description: 'The revisionNumber sent is stale (409), or the If-Match header names no current ETag (412); nothing was written.',
  },
  Entity_Duplicate: {
    type: 'Concurrency', status: 409,
    // `holder` and `value` when the service checked before writing (a resource's unique field): `customer 7` or, for a
    // caller limited by a scope, `another customer`; `label` the field in words (`account number`).
    text: ({ property, holder, label, value }: { property?: string; holder?: string; label?: string; value?: unknown }) => property
      ? (holder ? `${property}: ${holder} already has ${label ?? property} ${String(value)}; it must be unique.` : `${property}: another record already has this value; it must be unique.`)
      : 'Another record already has these values; they must be unique.',
    description: 'A uniqueness rule refused the create or update; nothing was written.',
  },
  Entity_InUse: {
    type: 'Functional', status: 409,
    text: ({ entity, id, referrers, one }: { entity: string; id: number | string; referrers: string; one: boolean }) =>
      `${entity} ${id} cannot be deleted: ${referrers} ${one ? 'refers' : 'refer'} to it.`,
    description: 'Other records still refer to the record (a foreign key); nothing was deleted.',
  },
  Document_TooManyLines: {
    type: 'Validation',
    text: ({ entity, maxLines }: { entity: string; maxLines: number }) =>
      `${entity} can hold at most ${maxLines} lines: this write would pass that, so nothing was written.`,
    description: 'A create or line write would give a document more lines than Documents:MaxLines; nothing was written.',
  },
  LookupTable_NotFound: {
    type: 'Data', text: ({ table }: { table: string }) => `Lookup table '${table}' is not found in the global lookup cache.`,
    description: 'No lookup table has this type.',
  },
  Service_MaxRows: {
    type: 'Message', severity: 'Warning',
    text: ({ maxRows }: { maxRows: number }) => `Only the first ${maxRows} rows are returned. Narrow the criteria or page with skip and take.`,
    description: 'A list was cut at RestAPI:MaxRows.',
  },
  Operator_NotSupported: {
    type: 'Validation',
    text: ({ operator, field, known }: { operator: string; field?: string; known?: readonly string[] }) => field
      ? `Operator ${operator} is not supported for ${field}.`
      : `Operator '${operator}' is not supported. Use one of ${known?.join(', ')}.`,
    description: 'A list criterion names an operator that does not exist or does not apply to its field.',
  },

  // Input, each message on its property; the texts read after the property's name.
  Input_Required: { type: 'Validation', text: ({ why }: { why?: string }) => `is required${why ? `: ${why}` : ''}.`, description: 'A required input is missing.' },
  Input_InvalidType: { type: 'Validation', text: ({ expected }: { expected: string }) => `must be ${expected}.`, description: 'An input is of the wrong type.' },
  Input_InvalidValue: { type: 'Validation', text: ({ rule }: { rule: string }) => `must ${rule}.`, description: 'An input has a value it may not take.' },
  Input_OutOfRange: {
    type: 'Validation', text: ({ min, max, after = '' }: { min: number | string; max: number | string; after?: string }) => `must be between ${min} and ${max}${after}.`,
    description: 'A number or date is outside its range.',
  },
  Input_TooManyDecimals: {
    type: 'Validation', text: ({ scale }: { scale: number }) => scale === 0 ? 'must be a whole number: it takes no digits after the decimal point.'
      : `must have at most ${scale} digit${scale === 1 ? '' : 's'} after the decimal point.`,
    description: 'An amount (or another exact decimal) has more fractional digits than it keeps: it would not be stored as sent.',
  },
  Amount_TooLarge: {
    type: 'Validation',
    text: ({ amount, limit }: { amount: string; limit: string }) =>
      `An amount of ${amount} is too large to keep: amounts must be below ${limit} (11 digits before the decimal point).`,
    description: 'An amount computed from the input (a line total, a sum) does not fit a money column; nothing is written.',
  },
  Input_TooLong: { type: 'Validation', text: ({ max }: { max: number }) => `must be at most ${max} characters long.`, description: 'A text is too long.' },
  Input_TooShort: { type: 'Validation', text: ({ min }: { min: number }) => `must be at least ${min} characters long.`, description: 'A text is too short.' },
  Input_UnknownProperty: {
    type: 'Validation', text: ({ of = 'property' }: { of?: string }) => `is not a known ${of}.`,
    description: 'An input (body property, query parameter or criteria field) the operation does not take.',
  },
  Input_Duplicate: {
    type: 'Validation',
    text: ({ caseInsensitive }: { caseInsensitive?: boolean }) =>
      `is given more than once${caseInsensitive ? ' (property names match case-insensitively)' : ''}: send it once.`,
    description: 'An input is given twice (JSON keys compare case-insensitively).',
  },
  Input_ReservedName: { type: 'Validation', text: 'is a reserved name, never a property.', description: 'A key __proto__, constructor or prototype.' },
  Input_Invalid: { type: 'Validation', text: ({ problem }: { problem: string }) => `is not valid: ${problem}.`, description: 'An input cannot be read as the operation needs it.' },
  Input_InvalidCursor: {
    // The reasons are sentences about the cursor, made where cursors are read (storage/list-cursor.ts).
    type: 'Validation', text: ({ why }: { why: string }) => why,
    description: 'A cursor that is not a nextCursor of this list with the same filters and sort.',
  },
  Criteria_ValueCount: {
    type: 'Validation',
    text: ({ field, takes, operator, got }: { field: string; takes: string; operator?: string; got?: number }) =>
      operator ? `Operator ${operator} on ${field} takes ${takes}, got ${got}.` : `${field} takes ${takes}.`,
    description: 'A list criterion has too many or too few values for its operator.',
  },

  // The server and its stores.
  Storage_Unavailable: {
    type: 'System', status: 503, text: 'The data store is temporarily unavailable. Please retry shortly.',
    description: 'A store is unreachable or busy past its limit; retry after Retry-After seconds.',
  },
  Storage_OutcomeUnknown: {
    type: 'System', status: 503,
    text: 'The connection to the data store was lost while the change was being saved: it may or may not have been saved. '
      + 'Read the resource before retrying a change that must not be made twice.',
    description: 'The store was lost while a write was saved; retry after Retry-After seconds, after checking.',
  },
  Health_NotReady: {
    type: 'External', status: 503, text: ({ down }: { down: readonly string[] }) => `${down.join(' and ')} unreachable: the server is not ready.`,
    description: 'A store the server needs is unreachable.',
  },
  Exception_Unhandled: {
    type: 'System',
    text: ({ detail = '' }: { detail?: string }) => `Unexpected server error occurred. Please contact your system administrator.${detail}`,
    description: 'A defect; logged with the request id (the text is generic in production).',
  },
  Messages_Truncated: {
    type: 'Message',
    text: ({ max }: { max: number }) => `More problems were found than the ${max} listed: correct these and send the request again to see the rest.`,
    description: 'More messages were found than an answer lists; it weighs as the heaviest of those left out.',
  },

  // Users (the CLI's answers).
  User_Exists: { type: 'Validation', text: ({ userName }: { userName: string }) => `User '${userName}' already exists.`, description: 'A user with this name exists.' },
  User_NotFound: { type: 'Data', text: ({ userName }: { userName: string }) => `User '${userName}' not found.`, description: 'No user has this name.' },
  User_AttributeInvalid: { type: 'Validation', text: ({ problem }: { problem: string }) => `The ${problem}.`, description: 'A user attribute key or value that cannot be stored.' },
  User_Disabled: { type: 'Functional', text: ({ userName }: { userName: string }) => `User '${userName}' is disabled.`, description: 'The user is disabled.' },
  User_CookieSessionsKept: {
    type: 'Message', severity: 'Warning',
    text: ({ userName, reason }: { userName: string; reason: string }) =>
      `The cookie sessions of user '${userName}' could not be deleted (${reason}); they are refused all the same and expire by themselves.`,
    description: 'A user\'s cookie sessions could not be deleted; they are refused all the same.',
  },
} as const satisfies Record<string, MessageEntry>;

export type MessageCode = keyof typeof CATALOGUE;

/**
 * Texts of codes made from a resource's name (`Customer_InvalidTerritoryId`, `SalesOrder_UnknownCustomer`): one
 * template each, which the runtime's messages name as their source (lib/resources/messages.ts) so that they are
 * written in the caller's language too.
 */
export const TEMPLATES = {
  Resource_InvalidLookup: ({ field, value, table }: { field: string; value: string; table: string }) =>
    `${field} ${value} is not an active entry of lookup table ${table}.`,
  Resource_UnknownReference: ({ entity, id }: { entity: string; id: string }) => `${entity} with id ${id} not found.`,
} as const;

/** Each template by name, as CODES names the codes. */
export const TEMPLATE_KEYS = Object.fromEntries(Object.keys(TEMPLATES).map((key) => [key, key])) as { readonly [K in keyof typeof TEMPLATES]: K };

type Args<C extends MessageCode> = ArgsOf<(typeof CATALOGUE)[C]['text']>;

/** An entry as the document and the generic paths read it. */
export const entryOf = (code: MessageCode): MessageEntry => CATALOGUE[code];
export const isCatalogued = (code: string): code is MessageCode => Object.hasOwn(CATALOGUE, code);

/** The status a code implies (its own, or its type's). */
export function statusOfCode(code: MessageCode): number {
  const { type, status } = entryOf(code);
  return statusOf({ code, message: '', severity: 'Error', type, status });
}

/** The (English) text of `code` with `params`. */
export function textOf<C extends MessageCode>(code: C, ...[params]: Args<C>): string {
  return render(CATALOGUE[code].text, params);
}

/** Each code by name (`m.code === CODES.Entity_Concurrency`), and the message of each code by name, as Fastify's errors are: `MESSAGES.Route_NotFound({ method, path })`. */
export const { CODES, MESSAGES } = makersOf(CATALOGUE);

/** An input failure as validation yields it (code and predicate), for the property's name to be put in front. */
export function inputFailure<C extends MessageCode>(code: C, ...args: Args<C>): { code: C; message: string; params?: object } {
  return { code, message: textOf(code, ...args), params: args[0] };
}

/** An input message: `subject` (the property's name as the text shows it) followed by the code's predicate. */
export function inputMessage<C extends MessageCode>(code: C, subject: string, ...args: Args<C>): ErrorMessage {
  const m = (MESSAGES[code] as (...a: Args<C>) => ErrorMessage)(...args);
  m.message = `${subject} ${m.message}`;
  m.source = { ...m.source!, subject };
  return m;
}
