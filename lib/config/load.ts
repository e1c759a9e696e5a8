import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import convict from 'convict';
import {
  DEFAULT_ROLES, type AppConfig, type SigningKeyConfig, type StorageProviderSettings, environmentOnly, schema, signingKeyProperties, storageProviders,
} from './schema.js';
import { UntrustedKeysFile, developmentKeys, existingDevelopmentKeys } from './development-keys.js';
import { secretVariable } from './secrets.js';
import { packagePath } from '../package-paths.js';

/** Invalid configuration: one line per problem, each naming its key. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join('\n'));
    this.name = 'ConfigError';
  }
}

export interface LoadedConfig {
  config: AppConfig;
  /** Things the operator should know but that do not stop startup (e.g. a generated development key). */
  warnings: string[];
  /**
   * Environment variables carrying the keys generated for this process (development only), so that worker
   * processes started from it use the same keys.
   */
  generatedEnv: Record<string, string>;
  /** Where the development keys in `generatedEnv` are kept; none when they are random for this process (tests). */
  developmentKeysFile?: string;
  /** The configuration as JSON with secrets replaced. */
  redacted(): string;
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

const defaultConfigDir = packagePath('config');

/** Spec keys use `:`; convict uses `.`. */
export const specKey = (path: string) => path.replace(/\./g, ':');

interface LeafInfo {
  path: string[];
  format: unknown;
}

function leaves(node: Record<string, unknown>, path: string[] = [], out: LeafInfo[] = []): LeafInfo[] {
  for (const [key, value] of Object.entries(node)) {
    const v = value as Record<string, unknown>;
    if ('default' in v && 'doc' in v) out.push({ path: [...path, key], format: v.format });
    else leaves(v, [...path, key], out);
  }
  return out;
}

const schemaLeaves = leaves(schema as unknown as Record<string, unknown>);
const topLevel = new Set(Object.keys(schema).map((k) => k.toLowerCase()));

function setPath(target: JsonObject, path: string[], value: Json) {
  let node = target;
  for (const key of path.slice(0, -1)) node = (node[key] ??= {}) as JsonObject;
  node[path[path.length - 1]] = value;
}

/** `RestAPI__Path=/api` → { RestAPI: { Path: '/api' } }, matching names case-insensitively; lists take `__0__Value`. */
function fromEnvironment(env: NodeJS.ProcessEnv, problems: string[]): JsonObject {
  const out: JsonObject = {};
  const lists = new Map<string, Map<number, JsonObject | string>>();
  const roleEntries: RoleEntries = new Map();
  for (const [name, raw] of Object.entries(env)) {
    if (raw === undefined || !name.includes('__')) continue;
    const parts = name.split('__');
    if (!topLevel.has(parts[0].toLowerCase())) continue;
    const lower = parts.map((p) => p.toLowerCase());
    const leaf = schemaLeaves.find((l) => l.path.length <= parts.length && l.path.every((p, i) => p.toLowerCase() === lower[i]));
    if (!leaf) {
      problems.push(`${parts.join(':')}: no such configuration key (from environment variable ${name})`);
      continue;
    }
    const rest = parts.slice(leaf.path.length);
    if (leaf.format === 'role-map') {
      roleFromEnvironment(out, leaf.path, name, rest, raw, problems, roleEntries);
      continue;
    }
    if (rest.length === 0) {
      setPath(out, leaf.path, raw);
      continue;
    }
    const index = Number(rest[0]);
    const isList = leaf.format === 'signing-keys' || leaf.format === 'string-list' || leaf.format === 'key-list';
    const prop = rest.length === 2 ? signingKeyProperties.find((p) => p.toLowerCase() === rest[1].toLowerCase()) : undefined;
    // `__0` names an entry of a list of strings; `__0__Value` a property of a signing key, and nothing else.
    const known = rest.length === 1 ? leaf.format !== 'signing-keys' : leaf.format === 'signing-keys' && prop !== undefined;
    if (!/^\d+$/.test(rest[0]) || !Number.isSafeInteger(index) || rest.length > 2 || !isList || !known) {
      problems.push(`${parts.join(':')}: no such configuration key (from environment variable ${name})`);
      continue;
    }
    const key = leaf.path.join('.');
    const list = lists.get(key) ?? lists.set(key, new Map()).get(key)!;
    if (rest.length === 1) list.set(index, raw);
    else {
      const entry = (list.get(index) as JsonObject | undefined) ?? {};
      entry[prop!] = raw;
      list.set(index, entry);
    }
  }
  for (const [key, entries] of lists) {
    setPath(out, key.split('.'), [...entries.entries()].sort(([a], [b]) => a - b).map(([, v]) => v));
  }
  for (const [role, entries] of roleEntries) {
    setPath(out, ['Authorization', 'Roles', role], [...entries.entries()].sort(([a], [b]) => a - b).map(([, v]) => v));
  }
  return out;
}

/** One role's entries from `Authorization__Roles__ROLE__N` variables, by index. */
type RoleEntries = Map<string, Map<number, string>>;

/**
 * `Authorization__Roles__Auditor__0=customer.read` (one entry), `Authorization__Roles__Auditor=customer.read,*.read`
 * (the role's list) or `Authorization__Roles={"Auditor":["customer.read"]}` (roles as JSON): each sets the roles it
 * names and leaves the others (and their defaults) alone, as a configuration file does.
 */
function roleFromEnvironment(out: JsonObject, path: string[], name: string, rest: string[], raw: string, problems: string[], entries: RoleEntries) {
  if (rest.length === 0) {
    const roles = parseJson(raw);
    if (typeof roles === 'object' && roles !== null && !Array.isArray(roles)) {
      for (const [role, grants] of Object.entries(roles)) setPath(out, [...path, knownRoleName(role)!], grants);
    } else setPath(out, path, raw);
    return;
  }
  const [named, index, ...more] = rest;
  const role = knownRoleName(named);
  if (!role || more.length || (index !== undefined && !/^\d+$/.test(index))) {
    problems.push(`${[...path, ...rest].join(':')}: no such configuration key (from environment variable ${name}; `
      + `a role's permissions are ${path.join('__')}__ROLE__0, __1, ...)`);
    return;
  }
  if (index === undefined) {
    setPath(out, [...path, role], raw.trim().startsWith('[') ? parseJson(raw) ?? raw : raw.split(',').map((s) => s.trim()).filter(Boolean));
    return;
  }
  const list = entries.get(role) ?? entries.set(role, new Map()).get(role)!;
  list.set(Number(index), raw);
}

/**
 * A role named in an environment variable, spelled as the default role it matches ignoring case: variable names are
 * matched ignoring case like every key (`AUTHORIZATION__ROLES__VIEWER`), and a second role `viewer` beside the
 * default `Viewer` would leave the one operators meant to narrow unchanged, silently.
 */
function knownRoleName(role: string | undefined): string | undefined {
  return role && (Object.keys(DEFAULT_ROLES).find((r) => r.toLowerCase() === role.toLowerCase()) ?? role);
}

function parseJson(text: string): Json | undefined {
  try {
    return JSON.parse(text) as Json;
  } catch {
    return undefined;
  }
}

function getPath(obj: JsonObject, path: string): Json | undefined {
  let node: Json | undefined = obj;
  for (const key of path.split('.')) {
    if (typeof node !== 'object' || node === null || Array.isArray(node)) return undefined;
    node = node[key];
  }
  return node;
}

const isEmpty = (v: Json | undefined) => v == null || v === '' || (Array.isArray(v) && v.length === 0);

export interface LoadOptions {
  env?: NodeJS.ProcessEnv;
  configDir?: string;
  /** Applied last; tests use it to configure a server without touching the environment. */
  overrides?: JsonObject;
  /** False: missing secrets are neither generated nor a problem (`keys generate`, which is how one gets them). */
  secrets?: boolean;
  /** True: development keys already kept are read, none are made (`config check` looks and changes nothing). */
  writeNothing?: boolean;
}

/**
 * Reads `config/default.json`, `config/<NODE_ENV>.json`, the file named by RESTLAYER_CONFIG, then `__` environment
 * variables, and validates the result strictly. Secrets in files and missing production keys are errors.
 */
export function loadConfig(options: LoadOptions = {}): LoadedConfig {
  const env = options.env ?? process.env;
  const dir = options.configDir ?? defaultConfigDir;
  const problems: string[] = [];
  const warnings: string[] = [];
  const generated: Record<string, string> = {};
  const nodeEnv = env.NODE_ENV || 'development';
  const c = convict(schema, { env: {}, args: [] });
  try {
    c.set('env', nodeEnv as AppConfig['env']);
  } catch {
    /* reported by validate below */
  }

  const files = [`${dir}/default.json`, `${dir}/${nodeEnv}.json`].filter(existsSync);
  if (env.RESTLAYER_CONFIG) files.push(env.RESTLAYER_CONFIG);
  for (const file of files) {
    let content: JsonObject;
    try {
      content = JSON.parse(readFileSync(file, 'utf8')) as JsonObject;
    } catch (err) {
      problems.push(`${file}: cannot read configuration file (${(err as Error).message})`);
      continue;
    }
    if (typeof content !== 'object' || content === null || Array.isArray(content)) {
      problems.push(`${file}: a configuration file must hold a JSON object`);
      continue;
    }
    for (const key of environmentOnly) {
      if (!isEmpty(getPath(content, key))) {
        problems.push(`${specKey(key)}: a secret must come from the environment (${secretVariable(specKey(key))}), not from ${file}`);
      }
    }
    c.load(content);
  }

  const fromEnv = fromEnvironment(env, problems);
  if (env.PORT) setPath(fromEnv, ['Server', 'Port'], env.PORT);
  if (env.HOST) setPath(fromEnv, ['Server', 'Host'], env.HOST);
  c.load(fromEnv);
  if (options.overrides) c.load(options.overrides);
  // A signing key without an Issuer is one of this server's own: `..._SigningKeys__0__Value` alone is enough, as
  // the hints say. Keys of other issuers (tokens minted elsewhere) name theirs.
  const keys = c.get('Authentication.Schemes.Bearer.SigningKeys') as unknown;
  if (Array.isArray(keys) && keys.some((k) => typeof k === 'object' && k !== null && !('Issuer' in k))) {
    const Issuer = c.get('Authentication.Schemes.Bearer.ValidIssuer');
    c.set('Authentication.Schemes.Bearer.SigningKeys', keys.map((k: unknown) => (typeof k === 'object' && k !== null && !('Issuer' in k) ? { ...k, Issuer } : k)) as never);
  }

  try {
    c.validate({ allowed: 'strict' });
  } catch (err) {
    for (const line of (err as Error).message.split('\n').filter(Boolean)) {
      if (line.startsWith('env:')) {
        problems.push(`NODE_ENV: ${JSON.stringify(nodeEnv)} is not an environment; set NODE_ENV to production, development or test`);
        continue;
      }
      problems.push(line.replace(/^([A-Za-z.]+):/, (_, key: string) => `${specKey(key)}:`).replace(/^configuration param '([^']+)'/, (_, key: string) => `${specKey(key)}: configuration key`));
    }
  }
  const config = c.getProperties() as unknown as AppConfig;
  const invalid = (key: string) => problems.some((p) => p.startsWith(`${key}:`));
  if (config.Storage.Postgres.Url && !isPostgresUrl(config.Storage.Postgres.Url)) {
    // The value is not shown: it may hold a password.
    problems.push('Storage:Postgres:Url: must be a URL like postgres://user:password@host:5432/database');
  }
  // Listening on every interface is what a deployment wants, and what a laptop on a shared network does not.
  if ((config.Server.Host as string | null) === null) {
    config.Server.Host = config.env === 'production' ? '0.0.0.0' : '127.0.0.1';
    c.set('Server.Host', config.Server.Host);
  }
  // The API description is public while developing and private in production unless the operator says otherwise;
  // decided here, not by a config/production.json that a deployment might leave out.
  if ((config.RestAPI.PublicDocs as boolean | null) === null) {
    config.RestAPI.PublicDocs = config.env !== 'production';
    c.set('RestAPI.PublicDocs', config.RestAPI.PublicDocs);
  }
  const provider: StorageProviderSettings | undefined = storageProviders[config.Storage.Provider];
  if (provider?.requires && !getPath(config as unknown as JsonObject, provider.requires.key) && !invalid('Storage:Provider')) {
    problems.push(`${specKey(provider.requires.key)}: required when Storage:Provider is ${config.Storage.Provider} (e.g. ${provider.requires.example})`);
  }
  if (config.Storage.QueryTimeoutSeconds >= config.RestAPI.RequestTimeoutSeconds) {
    // The request would answer first and leave its query running until the query's own limit.
    warnings.push(`Storage:QueryTimeoutSeconds (${config.Storage.QueryTimeoutSeconds}) should be below RestAPI:RequestTimeoutSeconds `
      + `(${config.RestAPI.RequestTimeoutSeconds}): a slow read answers 503 at the request timeout but runs on until its own limit.`);
  }
  // Missing secrets are reported with every other problem, unless a setting they depend on is itself invalid.
  const secrets = options.secrets !== false && !['env', 'Authentication:Variant', 'Authentication:Schemes:Bearer:ValidIssuer'].some(invalid);
  const developmentKeysFile = secrets ? ensureSecrets(config, problems, warnings, invalid, generated, options.writeNothing === true) : undefined;
  const deployed = [provider?.shared && `Storage:Provider is ${config.Storage.Provider}`, config.Cache.Redis.Url && 'Cache:Redis:Url is set'].filter(Boolean);
  if (config.env === 'development' && deployed.length) {
    // First, and in capitals: a deployment that forgot NODE_ENV runs with development's lenient defaults.
    warnings.unshift(`NOT PRODUCTION: NODE_ENV is ${env.NODE_ENV ? `'${env.NODE_ENV}'` : 'not set'}, yet ${deployed.join(' and ')}, as on a deployment. `
      + 'Outside production missing keys are generated (and kept in a file) instead of stopping startup, the API documentation is public '
      + 'and the server listens on 127.0.0.1 by default: set NODE_ENV=production wherever this serves anyone.');
  }
  if (problems.length) throw new ConfigError(problems);
  return { config, warnings, generatedEnv: generated, developmentKeysFile, redacted: () => c.toString() };
}

function isPostgresUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return ['postgres:', 'postgresql:'].includes(url.protocol) && url.hostname !== '';
  } catch {
    return false;
  }
}

/**
 * Production needs real keys. In development a missing key is taken from the development keys kept beside the
 * embedded database, so the server, its workers and the CLI agree and sessions outlive a restart; in tests (and for
 * an in-memory database) it is random per process. Answers where the development keys are kept, when they were used.
 */
function ensureSecrets(
  config: AppConfig, problems: string[], warnings: string[], invalid: (key: string) => boolean, generated: Record<string, string>, writeNothing: boolean,
): string | undefined {
  const production = config.env === 'production';
  let keepsKeys = config.env === 'development' && config.Storage.Sqlite.Path !== ':memory:';
  // Read (or made) once, whichever secrets are missing.
  let kept: ReturnType<typeof developmentKeys> | undefined;
  const keep = (which: 'bearer' | 'cookie' | 'authConfig') => {
    if (keepsKeys && !kept) {
      try {
        kept = writeNothing ? existingDevelopmentKeys(config.Storage.Sqlite.Path) : developmentKeys(config.Storage.Sqlite.Path);
      } catch (err) {
        if (!(err instanceof UntrustedKeysFile)) throw err;
        // Reported once, as a problem that stops startup: a key anyone could have read or planted signs nothing.
        problems.push(`development keys: ${err.message}`);
      }
      keepsKeys = false;
    }
    return kept ? kept.keys[which] : randomBytes(32).toString('base64');
  };
  const need = (key: string, missing: () => boolean, generate: () => string) => {
    if (invalid(key) || !missing()) return;
    if (production) problems.push(`${key}: required in production (set ${secretVariable(key)}; restlayer keys generate prints one)`);
    else {
      generated[key.split(':').join('__')] = generate();
      const where = kept
        ? `using the development key kept in ${kept.path}, shared by the server and the CLI`
        : 'using a random key for this process only; tokens and cookies will not survive a restart';
      warnings.push(`${key} is not set: ${where} (set ${secretVariable(key)}; restlayer keys generate prints one).`);
    }
  };
  const bearer = config.Authentication.Schemes.Bearer;
  if (config.Authentication.Variant === 'A') {
    need('Authentication:Schemes:Bearer:SigningKeys', () => !bearer.SigningKeys.some((k) => k.Issuer === bearer.ValidIssuer), () => {
      const key: SigningKeyConfig = { Issuer: bearer.ValidIssuer, Value: keep('bearer'), Id: 'generated' };
      bearer.SigningKeys = [...bearer.SigningKeys, key];
      return JSON.stringify(bearer.SigningKeys);
    });
    need('Authentication:Cookie:Keys', () => config.Authentication.Cookie.Keys.length === 0, () => {
      config.Authentication.Cookie.Keys = [keep('cookie')];
      return JSON.stringify(config.Authentication.Cookie.Keys);
    });
  } else {
    need('AuthConfig:SigningKey', () => !config.AuthConfig.SigningKey, () => {
      config.AuthConfig.SigningKey = keep('authConfig');
      return config.AuthConfig.SigningKey;
    });
    if (!invalid('AuthConfig:SigningKey') && config.AuthConfig.SigningKey && Buffer.byteLength(config.AuthConfig.SigningKey) < 32) {
      problems.push('AuthConfig:SigningKey: must be at least 32 bytes (256 bits) long');
    }
  }
  return kept?.path;
}
