import type { AppConfig } from '../config/schema.js';

/**
 * Where and how the client calls the API: the client's side of configuration keys `RemoteApi:*`.
 * `BaseAddress` is the server's origin (e.g. `https://orders.example.com`), `BasePath` the API prefix on it
 * (`RestAPI:Path` of that server, e.g. `/api`), `Authorization` true for bearer tokens and false for the cookie
 * login, `RefreshTokenPath` where tokens are refreshed, relative to BaseAddress + BasePath.
 */
export interface RemoteApi {
  ClientName: string;
  BaseAddress: string;
  BasePath: string;
  Authorization: boolean;
  RefreshTokenPath: string;
}

// The settings mirror the configuration schema: this fails to compile when a key is added to one and not the other.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const mirrorsConfig: Same<RemoteApi, AppConfig['RemoteApi']> = true;
void mirrorsConfig;

export const remoteApiDefaults: RemoteApi = {
  ClientName: 'restlayer-client',
  BaseAddress: 'http://localhost:8080',
  BasePath: '',
  Authorization: true,
  RefreshTokenPath: 'auth/refresh',
};

/** The client settings of a loaded configuration (`loadConfig().config`), i.e. its `RemoteApi:*` keys. */
export function remoteApiFromConfig(config: Pick<AppConfig, 'RemoteApi'>): RemoteApi {
  const { ClientName, BaseAddress, BasePath, Authorization, RefreshTokenPath } = config.RemoteApi;
  return { ClientName, BaseAddress, BasePath, Authorization, RefreshTokenPath };
}

/** BaseAddress + BasePath without a trailing slash, e.g. `https://orders.example.com/api`. */
export function apiBase(settings: Pick<RemoteApi, 'BaseAddress' | 'BasePath'>): string {
  const origin = settings.BaseAddress.replace(/\/+$/, '');
  const path = settings.BasePath.replace(/^\/+|\/+$/g, '');
  return path ? `${origin}/${path}` : origin;
}

/** A path below the API base (`/sales-order/5` or `auth/refresh`) as an absolute URL. */
export function apiUrl(settings: Pick<RemoteApi, 'BaseAddress' | 'BasePath'>, path: string): string {
  return `${apiBase(settings)}/${path.replace(/^\/+/, '')}`;
}
