/**
 * Column types as both providers store them. Dates and booleans are text and 0/1 in SQLite and native in
 * PostgreSQL; `SqlValues` converts in both directions so services only see `Date` and `boolean`.
 */
export type DbDate = string | Date;
export type DbBool = number | boolean;
/** A money column (`dialect.types.money`): ten-thousandths in SQLite, numeric text in PostgreSQL; read with `values.toMoney`. */
export type DbMoney = number | string;

export interface AppUserTable {
  user_key: string;
  user_name: string;
  display_name: string;
  /** JSON array of role names. */
  roles: string;
  password_hash: string;
  disabled: DbBool;
  created_date: DbDate;
  /**
   * Random, replaced whenever the user's credentials end (disable, set-password): tokens and cookie sessions carry
   * the stamp they were issued under and stop working once it is not the user's any more.
   */
  credential_stamp: string;
  /** When the credentials last ended: tokens minted elsewhere (no stamp) must be issued after it. */
  credentials_ended_date: DbDate | null;
}

/** A user's attributes (lib/auth/user-attributes.ts), one row a key; they go when the user goes (foreign key). */
export interface UserAttributeTable {
  user_key: string;
  attribute_key: string;
  value: string;
}

/** Users removed, so that tokens minted elsewhere (no stamp) of a removed user stop too; re-adding keeps the date. */
export interface RemovedUserTable {
  user_key: string;
  removed_date: DbDate;
}

/** One login (variant A): its refresh tokens rotate within it; revoking it ends them all. */
export interface AuthSessionTable {
  session_id: string;
  user_key: string;
  created_date: DbDate;
  expires_date: DbDate;
  revoked_date: DbDate | null;
}

export interface RefreshTokenTable {
  /** SHA-256 of the token; the token itself is never stored. */
  token_hash: string;
  session_id: string;
  issued_date: DbDate;
  rotated_date: DbDate | null;
  /**
   * Set when the token rotates: with the token itself it derives the successor, so refreshes that present the token
   * together (within the grace window) all get that one successor. Useless without the token, which is not stored.
   */
  successor_salt: string | null;
}

/** koa-session's external store for cookie logins. */
export interface CookieSessionTable {
  session_key: string;
  user_key: string | null;
  data: string;
  expires_date: DbDate;
}

/**
 * The layer's own tables (users, logins, cookie sessions). A service module declares its tables in its own folder and
 * types queries on them with `storage.db.withTables<ItsTables>()`.
 */
export interface Tables {
  app_user: AppUserTable;
  removed_user: RemovedUserTable;
  user_attribute: UserAttributeTable;
  auth_session: AuthSessionTable;
  refresh_token: RefreshTokenTable;
  cookie_session: CookieSessionTable;
}
