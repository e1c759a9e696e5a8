import convict from 'convict';
/** Storage:QueryTimeoutSeconds' default, also the stores' own when opened without configuration. */
export const DEFAULT_QUERY_TIMEOUT_MS = 5_000;

export interface SigningKeyConfig {
  Issuer: string;
  /** Base64 of the key bytes, as `dotnet user-jwts` writes it. */
  Value: string;
  Id?: string;
}

/** The properties of a `SigningKeys` entry. */
export const signingKeyProperties = ['Issuer', 'Value', 'Id'];

const strictInt = (min: number) => ({
  validate(v: unknown) {
    if (typeof v !== 'number' || !Number.isInteger(v) || v < min) throw new Error(`must be an integer of at least ${min}`);
  },
  coerce: (v: string) => (/^\s*\d+\s*$/.test(v) ? Number(v) : v),
});

convict.addFormat({ name: 'count', ...strictInt(0) });
convict.addFormat({ name: 'positive', ...strictInt(1) });
convict.addFormat({
  name: 'minutes',
  validate(v: unknown) {
    if (typeof v !== 'number' || !Number.isFinite(v) || v < 1 / 60) throw new Error('must be a number of minutes of at least 1/60 (one second)');
  },
  coerce: (v: string) => (/^\s*\d+(\.\d+)?\s*$/.test(v) ? Number(v) : v),
});
convict.addFormat({
  name: 'tenant-id',
  // What a user attribute `tenantId` may hold (lib/auth/user-attributes.ts), so the default tenant is one a user can name.
  validate(v: unknown) {
    // eslint-disable-next-line no-control-regex
    if (typeof v !== 'string' || !v || [...v].length > 256 || /[\u0000-\u001f\u007f-\u009f]/.test(v)) {
      throw new Error('must be 1 to 256 characters without control characters, as a user attribute tenantId');
    }
  },
});
convict.addFormat({
  name: 'bool',
  validate(v: unknown) {
    if (typeof v !== 'boolean') throw new Error('must be true or false');
  },
  coerce: (v: string) => (v.toLowerCase() === 'true' ? true : v.toLowerCase() === 'false' ? false : v),
});
convict.addFormat({
  name: 'url-path',
  validate(v: unknown) {
    if (typeof v !== 'string' || (v !== '' && !/^(\/[A-Za-z0-9._~-]+)+$/.test(v))) {
      throw new Error('must be empty or a path like /api (no trailing slash)');
    }
  },
});
convict.addFormat({
  name: 'public-url',
  validate(v: unknown) {
    if (v === '') return;
    const url = typeof v === 'string' && URL.canParse(v) ? new URL(v) : undefined;
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.username || url.password || url.search || url.hash) {
      throw new Error('must be empty or an http(s) URL without user, query or fragment, e.g. https://api.example.com');
    }
  },
});
convict.addFormat({
  name: 'signing-keys',
  validate(v: unknown) {
    if (!Array.isArray(v)) throw new Error('must be a list of { Issuer, Value }');
    v.forEach((k: Partial<SigningKeyConfig>, i) => {
      if (typeof k?.Value !== 'string' || !/^[A-Za-z0-9+/=_-]+$/.test(k.Value)) throw new Error(`entry ${i}: Value must be Base64`);
      if (Buffer.from(k.Value, 'base64').length < 32) throw new Error(`entry ${i}: Value must decode to at least 32 bytes (256 bits)`);
      if (typeof k.Issuer !== 'string' || !k.Issuer) throw new Error(`entry ${i}: Issuer is required`);
      if (k.Id !== undefined && (typeof k.Id !== 'string' || !k.Id)) throw new Error(`entry ${i}: Id must be a non-empty string`);
      const unknown = Object.keys(k).filter((p) => !signingKeyProperties.includes(p));
      if (unknown.length) throw new Error(`entry ${i}: unknown propert${unknown.length > 1 ? 'ies' : 'y'} ${unknown.join(', ')} (allowed: ${signingKeyProperties.join(', ')})`);
    });
  },
  coerce: (v: string) => parseJsonOr(v, v),
});
/** Broken JSON is left as text, so validation reports it as a problem of its key instead of throwing. */
function parseJsonOr(text: string, fallback: unknown): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return fallback;
  }
}
const listCoerce = (v: string) => (v.trim().startsWith('[') ? parseJsonOr(v, v) : v.split(',').map((s) => s.trim()).filter(Boolean));
convict.addFormat({
  name: 'string-list',
  validate(v: unknown) {
    if (!Array.isArray(v) || v.some((s) => typeof s !== 'string')) throw new Error('must be a list of strings (comma-separated or a JSON array)');
  },
  coerce: listCoerce,
});
convict.addFormat({
  name: 'key-list',
  validate(v: unknown) {
    if (!Array.isArray(v) || v.some((s) => typeof s !== 'string')) throw new Error('must be a list of strings (comma-separated or a JSON array)');
    v.forEach((s: string, i) => {
      if (Buffer.byteLength(s) < 32) throw new Error(`entry ${i}: must be at least 32 bytes (256 bits) long`);
    });
  },
  coerce: listCoerce,
});

/**
 * A grant of `Authorization:Roles`: a permission pattern of segments (lower-case words, or `*` for any one segment)
 * joined by dots, and optionally `:scope`, the record scope it is limited to. Captures: the pattern, the scope.
 */
export const GRANT_SYNTAX = /^((?:\*|[a-z0-9][a-z0-9-]*)(?:\.(?:\*|[a-z0-9][a-z0-9-]*))+)(?::([A-Za-z][A-Za-z0-9_-]*))?$/;

/** Role name → its grants. */
export type RoleMap = Record<string, string[]>;

/** The roles every server knows unless `Authorization:Roles` sets them otherwise (contract part 10). */
export const DEFAULT_ROLES: RoleMap = {
  Administrator: ['*.*'],
  Clerk: ['sales-order.*', 'customer.*'],
  Viewer: ['*.read'],
  SalesPerson: ['sales-order.read:own', 'sales-order.update:own', 'customer.read:own'],
};

convict.addFormat({
  name: 'role-map',
  validate(v: unknown) {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new Error('must map role names to lists of permissions, e.g. { "Auditor": ["*.read"] }');
    for (const [role, grants] of Object.entries(v)) {
      if (!role.trim()) throw new Error('a role name must not be empty');
      if (!Array.isArray(grants) || grants.some((g) => typeof g !== 'string')) throw new Error(`${role}: must be a list of permissions`);
      const bad = grants.filter((g: string) => !GRANT_SYNTAX.test(g));
      if (bad.length) {
        throw new Error(`${role}: ${bad.map((g) => JSON.stringify(g)).join(', ')} ${bad.length > 1 ? 'are not permissions' : 'is not a permission'} `
          + '(service.operation, * for a whole segment, optionally :scope, e.g. sales-order.read:own)');
      }
    }
  },
  // A whole map from one variable (`Authorization__Roles='{"Auditor":["*.read"]}'`); one role's list comes from
  // `Authorization__Roles__Auditor__0=...` (lib/config/load.ts).
  coerce: (v: string) => parseJsonOr(v, v),
});

/**
 * The values of Storage:Provider, and what choosing one means for the configuration: the key it cannot do without
 * (with an example value), and whether it is a store shared between machines, as on a deployment. How each opens is
 * lib/storage/providers.ts's.
 */
export const storageProviders = {
  sqlite: { shared: false },
  postgres: { requires: { key: 'Storage.Postgres.Url', example: 'postgres://user@host:5432/db' }, shared: true },
} satisfies Record<string, StorageProviderSettings>;

export interface StorageProviderSettings {
  /** The key (as a convict path) that must be set, and an example value for the message when it is not. */
  readonly requires?: { readonly key: string; readonly example: string };
  /** A store shared between machines: choosing it outside production earns the NOT PRODUCTION warning. */
  readonly shared: boolean;
}

/** Every key of the spec. Names and nesting are the wire names: `RestAPI:Path` is `RestAPI.Path` here. */
export const schema = {
  env: { doc: 'Environment: production, development or test (NODE_ENV).', format: ['production', 'development', 'test'], default: 'development' },
  Server: {
    Port: { doc: 'Listening port (also PORT).', format: 'port', default: 8080 },
    Host: {
      doc: 'Listening address (also HOST). Unset: 127.0.0.1 outside production (nothing else on the network reaches a development server), '
        + '0.0.0.0 (every interface) in production.',
      format: String, default: null as string | null, nullable: true,
    },
    PublicUrl: {
      doc: 'The URL clients reach this server at, before RestAPI:Path (e.g. https://api.example.com). An operator token (lookup flush, '
        + 'user unlock through the server) is accepted when it names this URL with RestAPI:Path, never by what the request\'s Host '
        + 'or X-Forwarded-Host says; also when it names the loopback address and port of a connection that came over loopback '
        + '(the CLI on the server\'s host). Empty: only that loopback way.',
      format: 'public-url', default: '',
    },
    TrustProxy: { doc: 'Trust X-Forwarded-For/-Proto from a reverse proxy (client address, HTTPS detection).', format: 'bool', default: false },
    ProxyCount: {
      doc: 'With TrustProxy: how many proxies in front of the server append to X-Forwarded-For; the client is the entry this many places from the right.',
      format: 'positive',
      default: 1,
    },
    ShutdownTimeoutSeconds: { doc: 'How long a graceful shutdown waits for in-flight requests.', format: 'positive', default: 10 },
    WorkerRestartMilliseconds: {
      doc: 'serve --workers: how long the primary waits before replacing a worker that died; doubled on each death in a row, up to WorkerRestartMaxMilliseconds.',
      format: 'positive', default: 500,
    },
    WorkerRestartMaxMilliseconds: {
      doc: 'serve --workers: the longest wait before replacing a worker; a worker that served this long resets the wait to WorkerRestartMilliseconds.',
      format: 'positive', default: 30_000,
    },
  },
  RestAPI: {
    Path: { doc: 'Prefix of every API route, e.g. /api.', format: 'url-path', default: '' },
    MaxRows: { doc: 'Default and maximum `take` of list operations.', format: 'positive', default: 1000 },
    MaxExportRows: {
      doc: 'Most rows a CSV export of a list answers (Accept: text/csv); X-Total-Count still gives every match, so a client sees the cut.',
      format: 'positive', default: 100000,
    },
    MaxBodyBytes: {
      doc: 'Largest request body any route accepts: a route\'s own limit (its maxBody, or DefaultBodyBytes) is cut to it.',
      format: 'positive', default: 1048576,
    },
    DefaultBodyBytes: {
      doc: 'Body limit of a route that declares none (a record write); a route that takes more (a document\'s create) declares its own maxBody.',
      format: 'positive', default: 65536,
    },
    DefaultBodyItems: {
      doc: 'Keys and array elements in all that the body of a route declaring no maxBody may hold, counted before the body is parsed; more answers 413.',
      format: 'positive', default: 1000,
    },
    MaxAnonymousBodyBytes: {
      doc: 'Largest accepted body of an anonymous route (the logins): what anyone may send is kept small. The smaller of this and MaxBodyBytes applies.',
      format: 'positive', default: 16384,
    },
    MaxHeaderBytes: { doc: 'Largest accepted request head (request line and headers); larger answers 431.', format: 'positive', default: 16384 },
    MaxQueryLength: { doc: 'Longest accepted query string in characters; longer answers 414.', format: 'positive', default: 8192 },
    RequestTimeoutSeconds: {
      doc: 'An operation still running after this long answers 503: Request_Timeout for a read, Request_OutcomeUnknown for a write (it may still be saved).',
      format: 'positive', default: 30,
    },
    IdempotencyKeepSeconds: { doc: 'How long the answer of a POST sent with an Idempotency-Key is kept and answered again to repeats of it.', format: 'positive', default: 86400 },
    Title: { doc: "The API's name in its OpenAPI description (info.title); empty: the name in the application's package.json.", format: String, default: '' },
    Version: { doc: "The API's version in its OpenAPI description (info.version); empty: the version in the application's package.json.", format: String, default: '' },
    Description: { doc: "The OpenAPI description's info.description; empty: the description in the application's package.json.", format: String, default: '' },
    PublicDocs: {
      doc: 'Serve the API description (/openapi.json, /docs) to anonymous callers; false: only to authenticated ones. '
        + 'Unset: true outside production, false in production.',
      format: 'bool', default: null as boolean | null, nullable: true,
    },
    Cors: {
      Origins: { doc: 'Origins of browser apps allowed to call the API from another site (CORS); empty: none.', format: 'string-list', default: [] as string[] },
    },
  },
  Authentication: {
    Variant: { doc: 'A: /auth/cookie, /auth/jwt, /auth/refresh. B: /authentication.', format: ['A', 'B'], default: 'A' },
    AccessTokenMinutes: { doc: 'Lifetime of variant A access tokens (fractions allowed: 0.5 is 30 s).', format: 'minutes', default: 15 },
    RefreshTokenDays: { doc: 'Absolute lifetime of a refresh token session.', format: 'positive', default: 14 },
    RefreshReuseGraceSeconds: {
      doc: 'Window in which a just-rotated refresh token is still accepted: refreshes presenting it together all get its one successor.',
      format: 'count', default: 10,
    },
    SessionRecheckSeconds: {
      doc: 'How long a login session, or a user\'s credentials, found valid are trusted before the store is asked again. Ended by this process '
        + '(logout, reuse, user disable/set-password/remove), they stop at once; ended by another (instance, worker, the CLI), within this time. '
        + '0 asks on every call.',
      format: 'count', default: 1,
    },
    PasswordHashCost: { doc: 'log2 of the scrypt cost N for new password hashes (15: 32 MiB, about 0.1 s).', format: 'positive', default: 15 },
    Throttle: {
      AccountFailures: { doc: 'Failed logins of one account within the window before it is throttled.', format: 'positive', default: 5 },
      AddressFailures: { doc: 'Failed logins from one client address within the window before it is throttled.', format: 'positive', default: 20 },
      WindowSeconds: { doc: 'The throttling window.', format: 'positive', default: 900 },
      MaxPendingChecks: {
        doc: 'Logins one process lets wait for a password check besides those running; more at once answer 429 at once.',
        format: 'count',
        default: 4,
      },
    },
    AllowedOrigins: { doc: 'Origins besides the server itself allowed to send cookie-authenticated unsafe requests.', format: 'string-list', default: [] as string[] },
    Cookie: {
      Keys: { doc: 'Keys signing the session cookie (newest first), each at least 32 bytes.', format: 'key-list', default: [] as string[], sensitive: true },
      IdleMinutes: { doc: 'A cookie session ends after this long unused.', format: 'positive', default: 30 },
      AbsoluteHours: { doc: 'A cookie session ends this long after login.', format: 'positive', default: 12 },
    },
    Schemes: {
      Bearer: {
        ValidAudience: { doc: 'Audience of accepted bearer tokens.', format: String, default: 'restlayer' },
        ValidIssuer: { doc: 'Issuer of the tokens this server signs.', format: String, default: 'restlayer' },
        SigningKeys: { doc: 'List of { Issuer, Value: Base64 key bytes }; the last one of ValidIssuer signs.', format: 'signing-keys', default: [] as SigningKeyConfig[], sensitive: true },
      },
    },
  },
  Authorization: {
    Roles: {
      doc: 'Role name → the permissions it grants (service.operation; * for a whole segment: sales-order.*, *.read; :scope limits a grant '
        + 'to a record scope: sales-order.read:own). Roles set here replace those of the same name; the other defaults stay '
        + '(Administrator *.*; Clerk sales-order.*, customer.*; Viewer *.read; SalesPerson sales-order.read:own, sales-order.update:own, customer.read:own).',
      format: 'role-map', default: DEFAULT_ROLES,
    },
  },
  AuthConfig: {
    SigningKey: { doc: 'Variant B signing secret (UTF-8).', format: String, default: '', sensitive: true },
    Issuer: { doc: 'Variant B token issuer.', format: String, default: 'restlayer' },
    Audience: { doc: 'Variant B token audience.', format: String, default: 'restlayer' },
    ExpiresMin: { doc: 'Variant B token lifetime in minutes (fractions allowed).', format: 'minutes', default: 60 },
  },
  RemoteApi: {
    ClientName: { doc: 'Name the client sends as User-Agent.', format: String, default: 'restlayer-client' },
    BaseAddress: { doc: 'Base URL of the server the client calls.', format: String, default: 'http://localhost:8080' },
    BasePath: { doc: 'Path prefix of the API on that server.', format: String, default: '' },
    Authorization: { doc: 'true: bearer tokens; false: cookie login.', format: 'bool', default: true },
    RefreshTokenPath: { doc: 'Where the client refreshes tokens.', format: String, default: 'auth/refresh' },
  },
  Storage: {
    Provider: { doc: 'sqlite (embedded) or postgres.', format: Object.keys(storageProviders), default: 'sqlite' },
    SampleData: { doc: 'Fill an empty database with the sample data.', format: 'bool', default: true },
    QueryTimeoutSeconds: {
      doc: 'A read through the storage reader (list pages, counts) still running after this long is stopped and answers 503 Request_Timeout; '
        + 'keep it below RestAPI:RequestTimeoutSeconds.',
      format: 'positive', default: DEFAULT_QUERY_TIMEOUT_MS / 1000,
    },
    Sqlite: {
      Path: { doc: 'SQLite database file.', format: String, default: 'data/restlayer.db' },
      ReadWorkers: {
        doc: 'Processes with a read-only connection each that run the reader\'s queries off the event loop; 0 reads on the main connection, without a time limit.',
        format: 'count', default: 2,
      },
      MainThreadReadMilliseconds: {
        doc: 'A list query first runs on the main connection for at most this long (a fast page then costs no process hop); '
          + 'one that takes longer is stopped there and run by a reader process. 0 sends every list query to the readers.',
        format: 'count', default: 2,
      },
    },
    Postgres: {
      Url: { doc: 'PostgreSQL connection URL.', format: String, default: '', sensitive: true },
      PoolSize: {
        doc: 'Connections each server process may open for writes and reads by key; its list and count reader opens half as many '
          + '(at least 1). A server of --workers N opens up to N × 1.5 × this: keep the sum over instances below PostgreSQL\'s max_connections.',
        format: 'positive', default: 10,
      },
      PreparedStatements: {
        doc: 'Send statements as named prepared statements (each connection parses a statement once); false behind a pooler '
          + 'that does not keep them (PgBouncer in transaction mode before 1.21).',
        format: 'bool', default: true,
      },
    },
  },
  Cache: {
    Redis: {
      Url: { doc: 'Redis URL; shares sessions, throttling and lookup flushes between instances.', format: String, default: '', sensitive: true },
      KeyPrefix: { doc: 'Prefix of every Redis key and channel of this deployment.', format: String, default: 'restlayer:' },
      CommandTimeoutMilliseconds: {
        doc: 'A Redis command not answered within this long fails (503 Storage_Unavailable) and its connection is replaced.',
        format: 'positive', default: 2_000,
      },
    },
  },
  Log: { Level: { doc: 'debug, info, warn or error.', format: ['debug', 'info', 'warn', 'error'], default: 'info' } },
  Metrics: {
    Port: { doc: 'Port of the Prometheus metrics listener (GET /metrics), never the API\'s; 0 turns metrics off.', format: 'port', default: 9464 },
    Host: { doc: 'Address of the metrics listener.', format: String, default: '127.0.0.1' },
  },
  Documents: {
    MaxLines: {
      doc: 'The most lines (children) one document holds: a create or line write that would pass it answers 400 Document_TooManyLines, and writes nothing.',
      format: 'positive', default: 1000,
    },
  },
  Tenancy: {
    Enabled: {
      doc: 'One deployment serves several organisations (contract part 12, docs/tenancy.md): the records of tenant-owned resources belong to the caller\'s tenant (user attribute tenantId, or the tid claim of an external token); a caller without one gets 403 on their routes.',
      format: 'bool', default: false,
    },
    DefaultTenant: {
      doc: 'The tenant that records created while tenancy was off are given when it is turned on (at the next start). Changing it later moves no record.',
      format: 'tenant-id', default: 'default',
    },
  },
  Audit: {
    RetentionDays: {
      doc: 'Audit entries older than this many days are deleted, at startup and then daily; 0 keeps them forever.',
      format: 'nat', default: 0,
    },
  },
  Web: {
    Enabled: { doc: 'Serve the browser app (dist/web) at / beside the API (restlayer serve --web); an empty RestAPI:Path then becomes /api.', format: 'bool', default: false },
  },
};

/** Keys whose values may only come from the environment. */
export const environmentOnly = ['Authentication.Schemes.Bearer.SigningKeys', 'AuthConfig.SigningKey', 'Authentication.Cookie.Keys'];

type Leaf<T> = { default: T };
type Shape<S> = { [K in keyof S]: S[K] extends Leaf<infer T> ? (T extends readonly (infer E)[] ? E[] : Widen<T>) : Shape<S[K]> };
type Widen<T> = T extends string ? string : T extends number ? number : T extends boolean ? boolean : T;

export type AppConfig = Omit<Shape<typeof schema>, 'env' | 'Server' | 'RestAPI' | 'Authentication' | 'Authorization' | 'Storage' | 'Log'> & {
  env: 'production' | 'development' | 'test';
  /** Host is settled by loadConfig: unset, it follows the environment. */
  Server: Omit<Shape<typeof schema.Server>, 'Host'> & { Host: string };
  /** PublicDocs is settled by loadConfig: unset, it follows the environment. */
  RestAPI: Omit<Shape<typeof schema.RestAPI>, 'PublicDocs'> & { PublicDocs: boolean };
  Authentication: Shape<typeof schema.Authentication> & { Variant: 'A' | 'B' };
  Authorization: { Roles: RoleMap };
  Storage: Shape<typeof schema.Storage> & { Provider: keyof typeof storageProviders };
  Log: { Level: 'debug' | 'info' | 'warn' | 'error' };
};
