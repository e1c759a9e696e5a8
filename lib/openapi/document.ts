import { SESSION_COOKIE } from '../http/auth/session-cookie.js';
import { CODES, type MessageCode, entryOf, statusOfCode } from '../envelope/message-catalogue.js';
import { messageEntries, templateOf } from '../envelope/languages.js';
import { statusOf } from '../envelope/error-message.js';
import type { AppConfig } from '../config/schema.js';
import type { Verb } from '../http-verbs.js';
import { type ExtraStatus, type LoadedRoute, type Route } from '../routing/route.js';
import { type RouteAccess, routeAccess } from '../routing/route-access.js';
import { type AnyFieldSpec, CriteriaSchema, OPERATORS, type Operator, arityOf } from '../validation/criteria.js';
import { type ApiInfo, apiInfo } from './info.js';
import { moneyRules } from '../validation/money.js';
import { DATE_SCHEMA, type JsonSchema, isOptional, moneySchema, structSchema } from './struct-schema.js';

export interface OpenApiOptions {
  /** `Authentication:Variant`: only that variant's routes exist. */
  variant: 'A' | 'B';
  /** `RestAPI:Path`, the prefix of every path (the document's server URL). */
  prefix: string;
  /** `RestAPI:MaxRows`: default and maximum `take`. */
  maxRows: number;
  /** `RestAPI:PublicDocs`: whether the documentation routes are anonymous. */
  publicDocs: boolean;
  /** The application's name, version and description (lib/openapi/info.ts). */
  info: ApiInfo;
}

export function openApiOptions(config: Pick<AppConfig, 'Authentication' | 'RestAPI'>): OpenApiOptions {
  return {
    variant: config.Authentication.Variant, prefix: config.RestAPI.Path, maxRows: config.RestAPI.MaxRows, publicDocs: config.RestAPI.PublicDocs,
    info: apiInfo(config),
  };
}

const ref = (kind: string, name: string) => ({ $ref: `#/components/${kind}/${name}` });

const typeSchema: Record<AnyFieldSpec['type'], JsonSchema> = {
  string: { type: 'string' },
  integer: { type: 'integer' },
  number: { type: 'number' },
  money: moneySchema(moneyRules()),
  date: DATE_SCHEMA.input,
  boolean: { type: 'boolean' },
};
const sampleText: Record<AnyFieldSpec['type'], string> = { string: 'a', integer: '1', number: '1', date: '2024-01-01', boolean: 'true', money: '1' };

/** The operators a criteria field takes, asked of the parser itself so the document cannot disagree with it. */
function operatorsOf(criteria: CriteriaSchema<Record<string, AnyFieldSpec>, string>, name: string): Operator[] {
  const spec = criteria.fields[name];
  return OPERATORS.filter((op) => {
    const search = new URLSearchParams({ [`${name}.operator`]: op });
    const [min] = arityOf(op);
    for (let i = 0; i < min; i++) search.append(name, sampleText[spec.type]);
    const parsed = criteria.parse(search);
    return parsed.ok || !parsed.messages.some((m) => m.code === CODES.Operator_NotSupported);
  });
}

function criteriaParameters(criteria: CriteriaSchema<Record<string, AnyFieldSpec>, string>, options: OpenApiOptions): JsonSchema[] {
  const parameters: JsonSchema[] = [];
  for (const [name, spec] of Object.entries(criteria.fields)) {
    const implied = spec.kind === 'range' ? 'one value means EQ, two mean BW (both ends included)'
      : spec.kind === 'boolean' ? 'one value means EQ' : 'one value means EQ, several mean In';
    parameters.push({
      name, in: 'query', required: false, style: 'form', explode: true,
      description: `Filter on ${name}: give the parameter once or repeat it; without ${name}.operator ${implied}.`,
      schema: { type: 'array', items: spec.type === 'money' ? structSchema(spec.value, 'input') : typeSchema[spec.type] },
    });
    parameters.push({
      name: `${name}.operator`, in: 'query', required: false,
      description: `The operator of the ${name} filter (case-insensitive). NL and NNL take no value, BW and NBW two, In and NIn several.`,
      schema: { type: 'string', enum: operatorsOf(criteria, name) },
    });
  }
  parameters.push(
    { name: 'skip', in: 'query', required: false, description: 'Rows to skip.', schema: { type: 'integer', minimum: 0 } },
    {
      name: 'take', in: 'query', required: false, schema: { type: 'integer', minimum: 0, default: options.maxRows },
      description: `Rows to answer; RestAPI:MaxRows (${options.maxRows}) is the default and the cap, with a Service_MaxRows warning when the cap cut the list.`,
    },
    { name: 'getTotalCount', in: 'query', required: false, description: 'Add totalCount, the number of matching rows.', schema: { type: 'boolean' } },
    {
      name: 'cursor', in: 'query', required: false, schema: { type: 'string', maxLength: 4096 },
      description: 'Keyset paging: empty to start, then the nextCursor of the previous page (same filters and sort; 400 on cursor otherwise). The answer carries nextCursor while more rows follow.',
    },
    {
      name: 'sort[0].fieldName', in: 'query', required: false, schema: { type: 'string', enum: [...criteria.sortable] },
      description: 'The first sort key; sort[1].fieldName, sort[2].fieldName, ... add more. Rows are finally ordered by id.',
    },
    {
      // No `default`: a docs page sends a parameter's default as if typed, and a direction without a field is refused
      // (Input_Invalid), so "try it" on any list answered 400. Ascending is what the server takes when it is absent.
      name: 'sort[0].sortDirection', in: 'query', required: false, schema: { type: 'string', enum: ['Ascending', 'Descending'] },
      description: 'The direction of the first sort key (sort[i].sortDirection for the others); Ascending when left out.',
    },
  );
  return parameters;
}

/**
 * The name a path parameter has in the document: `[_salesOrderId]` route files name it `_salesOrderId` (the underscore
 * keeps it apart from a body property), but generators that rename a leading underscore in the function and not in
 * the URL template then build broken URLs; the name is only a placeholder, so the URL the server serves is the same.
 */
export const documentedParam = (name: string) => name.replace(/^_+/, '');

/** A koa-router path (`/sales-order/:_salesOrderId`) as an OpenAPI path template (`/sales-order/{salesOrderId}`). */
export const documentedPath = (path: string) => path.replace(/:([\w$]+)/g, (_, name: string) => `{${documentedParam(name)}}`);

/**
 * Whether a route answers 201 on success: a POST whose operation is a create (`<Service>.create`, or of a child,
 * `<Service>.createLine`, as every service of the sample and of `restlayer new service` names them) calls
 * `created()`, which sets 201 and Location.
 */
const creates = (verb: Verb, route: Route) => verb === 'POST' && /\.create([A-Z]\w*)?$/.test(route.operation ?? '');

/** OpenAPI's license object: `identifier` only for an SPDX expression (`MIT`, `(MIT OR Apache-2.0)`), not `UNLICENSED` or a text. */
const licenseOf = (license: string) =>
  /^\(?[A-Za-z0-9.+-]+( (AND|OR|WITH) [A-Za-z0-9.+-]+)*\)?$/.test(license) && license !== 'UNLICENSED' ? { name: license, identifier: license } : { name: license };

/** The codes the layer answers, from the catalogue. */
const answeredCodes = Object.values(CODES);

/** `codes` as a response's description names them: each with what it means. */
const named = (codes: readonly MessageCode[]) => codes.map((code) => `${code} (${entryOf(code).description})`).join('; ');

/** The codes that answer with `status`, named. */
const answering = (status: number) => named(answeredCodes.filter((code) => statusOfCode(code) === status));

/**
 * Every code, the layer's and the application's (defineMessages), with its status, type, meaning and English text (a
 * template with `{placeholders}`): the document's list of messages (components.x-messages).
 */
const messageList = () => Object.fromEntries([...messageEntries()].map(([code, { type, status, severity = 'Error', description }]) => [
  code, { status: statusOf({ code, message: '', severity: 'Error', type, status }), type, severity, description, message: templateOf(code) },
]));

/** The reusable response (components.responses) of each status a route declares in `answers`. */
const extraResponses: Record<ExtraStatus, string> = {
  304: 'NotModified', 401: 'CredentialsRefused', 404: 'NotFound', 409: 'Conflict', 412: 'PreconditionFailed', 429: 'Throttled', 503: 'Unavailable',
};

/**
 * The envelope of a successful answer: the route's declared result (components.schemas.<operationId>.Result), and
 * totalCount on lists; without a declared result, the plain Envelope.
 */
function successSchema(resultName: string | undefined, list: boolean): JsonSchema {
  if (!resultName) return ref('schemas', 'Envelope');
  const properties: JsonSchema = { result: ref('schemas', resultName), messages: { type: 'array', items: ref('schemas', 'Message') } };
  if (list) properties.totalCount = { type: 'integer', minimum: 0, description: 'Only when getTotalCount=true was asked.' };
  if (list) properties.nextCursor = { type: 'string', description: 'Only when paging with cursor and more rows follow: the cursor of the next page.' };
  return { type: 'object', required: ['messages'], additionalProperties: false, properties };
}

function operation(path: string, verb: Verb, route: Route, access: RouteAccess, options: OpenApiOptions, secured: JsonSchema[], schemas: Record<string, JsonSchema>): JsonSchema {
  const operationId = route.operation ?? `${verb.toLowerCase()}${path.replace(/[^A-Za-z0-9]+(.)?/g, (_, c: string | undefined) => (c ?? '').toUpperCase())}`;
  const op: JsonSchema = {
    operationId,
    summary: route.summary,
    tags: [path.split('/')[1] || 'root'],
  };
  const parameters: JsonSchema[] = [];
  if (route.params) {
    for (const [name, struct] of Object.entries((route.params as { schema: Record<string, never> }).schema)) {
      parameters.push({ name: documentedParam(name), in: 'path', required: true, schema: structSchema(struct, 'input') });
    }
  }
  const list = route.query instanceof CriteriaSchema;
  if (route.query instanceof CriteriaSchema) parameters.push(...criteriaParameters(route.query, options));
  else if (route.query?.model) {
    for (const [name, struct] of Object.entries((route.query.model as unknown as { schema: Record<string, never> }).schema)) {
      parameters.push({ name, in: 'query', required: false, schema: structSchema(struct, 'input') });
    }
  }
  const answers = new Set(route.answers ?? []);
  // A record's GET answers its ETag and 304; a write of it takes If-Match, answers 412 and (but DELETE) the new ETag.
  if (route.etag === 'result') answers.add(304);
  const conditionalWrite = typeof route.etag === 'function';
  if (conditionalWrite) {
    answers.add(412);
    parameters.push({
      name: 'If-Match', in: 'header', required: false, schema: { type: 'string' },
      description: 'The ETag of the record (for a line, of its order) as the caller read it, or *: when it is not current, 412 and nothing is written.',
    });
  }
  if (answers.has(304)) parameters.push({ name: 'If-None-Match', in: 'header', required: false, description: 'The ETag of a copy the caller holds: 304 when it is still current.', schema: { type: 'string' } });
  // lib/app.ts applies Idempotency-Key to exactly these: secured POSTs.
  const keyed = access.idempotencyKey;
  if (keyed) parameters.push(ref('parameters', 'IdempotencyKey'));
  if (parameters.length) op.parameters = parameters;
  if (route.body) {
    const schema = structSchema(route.body, 'input');
    op.requestBody = {
      required: !isOptional(route.body),
      description: 'Property names match case-insensitively; unknown properties are refused.',
      // A PATCH body is a JSON merge patch; plain JSON is taken as one too (lib/http/merge-patch-type.ts).
      content: Object.fromEntries((verb === 'PATCH' ? ['application/merge-patch+json', 'application/json'] : ['application/json'])
        .map((type) => [type, { schema }])),
    };
  }
  let resultName: string | undefined;
  if (route.result) {
    resultName = `${operationId}.Result`;
    schemas[resultName] = structSchema(route.result);
  }
  const headers: JsonSchema = { 'X-Request-Id': ref('headers', 'RequestId') };
  if (answers.has(304) || (conditionalWrite && verb !== 'DELETE')) headers.ETag = ref('headers', 'ETag');
  const content = { 'application/json': { schema: successSchema(resultName, list) } };
  const responses: JsonSchema = creates(verb, route)
    ? { '201': { description: 'Created: the envelope with the result; Location names the new resource.', headers: { ...headers, Location: ref('headers', 'Location') }, content } }
    : { '200': { description: 'Success: the envelope with the result.', headers, content } };
  if (answers.has(304)) responses['304'] = ref('responses', extraResponses[304]);
  // Every operation: a query parameter it does not take is refused too.
  responses['400'] = ref('responses', 'InvalidInput');
  // What the route's gate answers (lib/routing/route-access.ts): the router builds the chain from the same.
  if (access.gateStatuses.includes(401)) responses['401'] = ref('responses', 'Unauthenticated');
  if (access.gateStatuses.includes(403)) responses['403'] = ref('responses', 'Forbidden');
  for (const status of [401, 404, 409, 412, 429, 503] as const) {
    if (answers.has(status) && !(status in responses)) responses[String(status)] = ref('responses', extraResponses[status]);
  }
  if (keyed) {
    responses['409'] ??= ref('responses', 'IdempotencyConflict');
    responses['422'] = ref('responses', 'IdempotencyMismatch');
  }
  if (route.body) {
    responses['413'] = ref('responses', 'TooLarge');
    responses['415'] = ref('responses', 'UnsupportedMediaType');
  }
  responses.default = ref('responses', 'Error');
  op.responses = responses;
  op.security = access.secured ? secured : [];
  // Who may call it (contract part 10): the permission, and the record scopes that may limit it.
  if (access.permission) {
    op['x-permission'] = access.permission;
    if (route.scopes?.length) op['x-scopes'] = [...route.scopes];
    const scoped = route.scopes?.length ? `; a role may limit it to records of scope ${route.scopes.join(', ')}` : '';
    op.description = `Requires the permission ${access.permission}${scoped}.`;
  } else if (access.secured) op.description = 'Any authenticated caller, whatever their permissions.';
  return op;
}

/**
 * The OpenAPI 3.1 document of the API as the loaded route files define it: each route's verb and path (`{param}`
 * for `[param]`), its `operation` as operationId, path parameters and the JSON body from its superstruct schemas,
 * list criteria as query parameters, security per route (none when anonymous; bearer token, and in variant A the
 * session cookie, otherwise), and the envelope as the schema of every answer.
 */
export function buildOpenApi(routes: LoadedRoute[], options: OpenApiOptions): JsonSchema {
  // The session cookie is signed: koa-session reads it only together with its signature cookie.
  const secured = options.variant === 'A' ? [{ bearer: [] }, { cookie: [], cookieSignature: [] }] : [{ bearer: [] }];
  const paths: Record<string, Record<string, JsonSchema>> = {};
  const results: Record<string, JsonSchema> = {};
  for (const { path, verb, route } of routes) {
    const access = routeAccess(route, verb, options);
    if (!access.served) continue;
    (paths[documentedPath(path)] ??= {})[verb.toLowerCase()] = operation(path, verb, route, access, options, secured, results);
  }
  // Every header below that a response names is one the server always sends with it (`required`), so contract
  // tools can check it; Retry-After on an Idempotency-Key conflict is the exception (only Request_InProgress has it).
  const requestId = { 'X-Request-Id': ref('headers', 'RequestId') };
  const envelope = (description: string) => ({ description, headers: requestId, content: { 'application/json': { schema: ref('schemas', 'Envelope') } } });
  const securitySchemes: JsonSchema = {
    bearer: {
      type: 'http', scheme: 'bearer', bearerFormat: 'JWT',
      description: options.variant === 'A' ? 'An access token from POST /auth/jwt, renewed at POST /auth/refresh.' : 'The JWT from POST /authentication.',
    },
  };
  if (options.variant === 'A') {
    securitySchemes.cookie = {
      type: 'apiKey', in: 'cookie', name: SESSION_COOKIE,
      description: 'The session cookie of POST /auth/cookie, sent together with its signature cookie (cookieSignature). Changes (POST, PUT, PATCH, DELETE) must also carry an Origin of this server or an allowed one.',
    };
    securitySchemes.cookieSignature = {
      type: 'apiKey', in: 'cookie', name: `${SESSION_COOKIE}.sig`,
      description: `The signature of the ${SESSION_COOKIE} cookie, set beside it by POST /auth/cookie; the session is read only with both.`,
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: options.info.title,
      version: options.info.version,
      ...(options.info.description ? { description: options.info.description } : {}),
      ...(options.info.license ? { license: licenseOf(options.info.license) } : {}),
    },
    servers: [{ url: options.prefix || '/' }],
    security: secured,
    paths,
    components: {
      schemas: {
        Message: {
          type: 'object',
          required: ['code', 'message', 'severity', 'type'],
          additionalProperties: false,
          properties: {
            code: { type: 'string', description: 'Stable identifier, e.g. Entity_NotFound.' },
            message: { type: 'string', description: 'Text for a person.' },
            severity: { type: 'string', enum: ['Info', 'Warning', 'Error', 'Critical'] },
            type: { type: 'string', enum: ['Validation', 'Functional', 'Security', 'Data', 'Concurrency', 'External', 'System', 'Message'] },
            property: { type: 'string', description: 'The input the message is about, e.g. customer.name or sort[0].fieldName.' },
          },
        },
        Envelope: {
          description: 'Every answer, success or failure, is this envelope; the HTTP status follows the messages.',
          type: 'object',
          required: ['messages'],
          additionalProperties: false,
          properties: {
            result: { description: "The operation's result; absent when null or when a message is an Error or Critical. Nulls are never written." },
            messages: { type: 'array', items: ref('schemas', 'Message') },
            totalCount: { type: 'integer', minimum: 0, description: 'Only on lists, when getTotalCount=true was asked.' },
            nextCursor: { type: 'string', description: 'Only on lists paged with cursor, while more rows follow.' },
          },
        },
        ...results,
      },
      parameters: {
        IdempotencyKey: {
          name: 'Idempotency-Key', in: 'header', required: false,
          description: 'Makes a retry safe: a repeat of this request (same caller, path and body) within RestAPI:IdempotencyKeepSeconds '
            + '(24 h) answers the first outcome again (status, Location, body; header Idempotent-Replayed: true) and writes nothing. '
            + 'A different body with the same key is 422 Request_IdempotencyMismatch. Ignored on anonymous calls.',
          schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7E]+$' },
        },
      },
      headers: {
        RequestId: { description: 'The request id (echoed when the caller sent a valid one); server logs carry it.', required: true, schema: { type: 'string' } },
        ETag: { description: 'The version of the answer; send it as If-None-Match to get 304 while it is current.', required: true, schema: { type: 'string' } },
        Location: { description: 'The path of the created resource, below the API prefix.', required: true, schema: { type: 'string' } },
        WWWAuthenticate: { description: 'The Bearer challenge (with error="invalid_token" when a token was refused).', required: true, schema: { type: 'string' } },
        RetryAfter: { description: 'Seconds to wait before trying again.', required: true, schema: { type: 'integer', minimum: 0 } },
      },
      responses: {
        InvalidInput: envelope(`Invalid input: one Validation message per problem, each with its property (a query parameter the operation does not take is one). ${answering(400)}.`),
        Unauthenticated: {
          ...envelope(`No valid credentials: ${named([CODES.Security_Unauthenticated, CODES.Security_TokenExpired, CODES.Security_TokenInvalid])}.`),
          headers: { ...requestId, 'WWW-Authenticate': ref('headers', 'WWWAuthenticate') },
        },
        Forbidden: envelope(`${answering(403)}.`),
        NotModified: {
          description: 'Not modified: the ETag still matches If-None-Match; no body.',
          headers: { ...requestId, ETag: ref('headers', 'ETag') },
        },
        PreconditionFailed: envelope(`Precondition failed: If-Match names no current ETag of the record (or is * and the record does not exist); nothing was written. ${CODES.Entity_Concurrency} (type Concurrency).`),
        CredentialsRefused: envelope(`The credentials were refused: ${named([CODES.Login_InvalidCredentials, CODES.Security_InvalidAccessToken, CODES.Security_InvalidRefreshToken])}.`),
        NotFound: envelope(`What the path names does not exist: ${named([CODES.Entity_NotFound, CODES.LookupTable_NotFound])}.`),
        Conflict: envelope(`${named([CODES.Entity_Concurrency, CODES.Entity_Duplicate, CODES.Entity_InUse])}.`),
        Throttled: {
          ...envelope(`${answering(429)}.`),
          headers: { ...requestId, 'Retry-After': ref('headers', 'RetryAfter') },
        },
        Unavailable: envelope(`${named([CODES.Health_NotReady])}.`),
        IdempotencyConflict: {
          ...envelope(`${named([CODES.Request_InProgress, CODES.Request_IdempotencyOutcomeUnknown])}. `
            + `A 409 the operation itself answers (${CODES.Entity_Concurrency}, ${CODES.Entity_Duplicate}) is answered again to repeats.`),
          headers: { ...requestId, 'Retry-After': { description: 'With Request_InProgress: seconds to wait before asking again.', schema: { type: 'integer', minimum: 0 } } },
        },
        IdempotencyMismatch: envelope(`${answering(422)}.`),
        TooLarge: envelope(`${answering(413)}.`),
        UnsupportedMediaType: envelope(`${answering(415)}.`),
        Error: envelope('Any other failure; the status follows the messages (405 with Allow; 429 and 503 with Retry-After). '
          + 'Every code of the layer and the application, with its status and English text, is in components.x-messages.'),
      },
      'x-messages': messageList(),
      securitySchemes,
    },
  };
}
