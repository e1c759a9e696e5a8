import { type CredentialState, newStamp } from './credential-stamp.js';
import type { CompiledQuery, Kysely, Selectable } from 'kysely';
import type { Storage } from '../storage/storage.js';
import type { AppUserTable, Tables } from '../storage/tables.js';
import { lockRefreshTokens } from './refresh-locks.js';
import { NO_ATTRIBUTES, TENANT_ATTRIBUTE, type UserAttributes, frozenAttributes } from './user-attributes.js';

export interface StoredUser {
  userKey: string;
  userName: string;
  name: string;
  roles: string[];
  passwordHash: string;
  disabled: boolean;
  createdDate: Date;
  /** Replaced whenever the user's credentials end; every token and cookie session carries the one it was issued under. */
  stamp: string;
  credentialsEnded: Date | null;
}

/** What every request of a user is checked against and given: its credential state and its attributes. */
export interface AccessState {
  state: CredentialState;
  attributes: UserAttributes;
}

/** What changing a user's state found: the change made, no such user, or the user already in that state. */
export type UserChange = 'changed' | 'not-found' | 'unchanged';

/** The state a user's credentials are checked against, from a user just read. */
export const credentialStateOf = (user: StoredUser): CredentialState =>
  ({ exists: true, disabled: user.disabled, stamp: user.stamp, endedMs: user.credentialsEnded?.getTime() ?? 0 });

/** User names are unique and match case-insensitively, like the rest of the API's names. */
export const userKey = (userName: string) => userName.normalize('NFKC').toLowerCase();

/** SQL access to `app_user`, shared by the login, user and token services. */
export class UserStore {
  constructor(private readonly storage: Storage) {}

  async find(userName: string): Promise<StoredUser | undefined> {
    const r = await this.storage.db.selectFrom('app_user').selectAll().where('user_key', '=', userKey(userName)).executeTakeFirst();
    return r && this.toUser(r);
  }

  async list(): Promise<StoredUser[]> {
    return (await this.storage.db.selectFrom('app_user').selectAll().orderBy('user_key').execute()).map((r) => this.toUser(r));
  }

  /** Answers false when the name is taken. The user and its attributes are written together or not at all. */
  async insert(user: Omit<StoredUser, 'userKey' | 'stamp' | 'credentialsEnded'>, attributes: UserAttributes = NO_ATTRIBUTES): Promise<boolean> {
    const entries = Object.entries(attributes);
    if (!entries.length) return this.insertUser(this.storage.db, user);
    const key = userKey(user.userName);
    return this.storage.db.transaction().execute(async (trx) => {
      if (!(await this.insertUser(trx, user))) return false;
      await trx.insertInto('user_attribute').values(entries.map(([k, value]) => ({ user_key: key, attribute_key: k, value }))).execute();
      return true;
    });
  }

  private async insertUser(db: Kysely<Tables>, user: Omit<StoredUser, 'userKey' | 'stamp' | 'credentialsEnded'>): Promise<boolean> {
    const { values } = this.storage;
    const key = userKey(user.userName);
    const result = await db.insertInto('app_user').values((eb) => ({
      user_key: key,
      user_name: user.userName,
      display_name: user.name,
      roles: JSON.stringify(user.roles),
      password_hash: user.passwordHash,
      disabled: values.bool(user.disabled),
      created_date: values.date(user.createdDate),
      credential_stamp: newStamp(),
      // A user of a removed user's name: tokens minted elsewhere for the old one stay ended.
      credentials_ended_date: eb.selectFrom('removed_user').select('removed_date').where('user_key', '=', key),
    })).onConflict((oc) => oc.column('user_key').doNothing()).executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
  }

  /**
   * Disables the user and ends its credentials in one statement (a new stamp), or only re-enables it: its old
   * credentials stay ended. The state in the WHERE makes check and change one step.
   */
  async setDisabled(userName: string, disabled: boolean): Promise<UserChange> {
    const { db, values } = this.storage;
    const result = await db.updateTable('app_user')
      .set(disabled ? { disabled: values.bool(true), ...this.ended() } : { disabled: values.bool(false) })
      .where('user_key', '=', userKey(userName)).where('disabled', '=', values.bool(!disabled)).executeTakeFirst();
    return result.numUpdatedRows > 0n ? 'changed' : (await this.find(userName)) ? 'unchanged' : 'not-found';
  }

  /** Replaces the password hash and ends the user's credentials (a new stamp) in one statement. */
  async setPassword(userName: string, passwordHash: string): Promise<boolean> {
    const result = await this.storage.db.updateTable('app_user').set({ password_hash: passwordHash, ...this.ended() })
      .where('user_key', '=', userKey(userName)).executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  /**
   * Replaces the roles and ends the user's credentials (a new stamp) in one statement: tokens and cookie sessions
   * carry the roles they were issued with, so the old ones must stop. The same roles again change nothing.
   */
  async setRoles(userName: string, roles: string[]): Promise<UserChange> {
    const encoded = JSON.stringify(roles);
    const result = await this.storage.db.updateTable('app_user').set({ roles: encoded, ...this.ended() })
      .where('user_key', '=', userKey(userName)).where('roles', '<>', encoded).executeTakeFirst();
    return result.numUpdatedRows > 0n ? 'changed' : (await this.find(userName)) ? 'unchanged' : 'not-found';
  }

  /** Every user's attributes, by user key (users without any are absent). */
  async allAttributes(): Promise<Map<string, UserAttributes>> {
    const rows = await this.storage.db.selectFrom('user_attribute').select(['user_key', 'attribute_key', 'value'])
      .orderBy('user_key').execute();
    const byUser = new Map<string, [string, string][]>();
    for (const r of rows) {
      const entries = byUser.get(r.user_key);
      if (entries) entries.push([r.attribute_key, r.value]);
      else byUser.set(r.user_key, [[r.attribute_key, r.value]]);
    }
    return new Map([...byUser].map(([key, entries]) => [key, frozenAttributes(entries)]));
  }

  /**
   * The user's tenant (its attribute `tenantId`), read fresh, as a login, a refresh or an issued token writes it into
   * the credential; undefined when it has none.
   */
  async tenantOf(userName: string): Promise<string | undefined> {
    return (await this.attributesOf(userName))[TENANT_ATTRIBUTE];
  }

  /** One user's attributes (none for a user that does not exist). */
  async attributesOf(userName: string): Promise<UserAttributes> {
    const rows = await this.storage.db.selectFrom('user_attribute').select(['attribute_key', 'value'])
      .where('user_key', '=', userKey(userName)).execute();
    return frozenAttributes(rows.map((r) => [r.attribute_key, r.value] as const));
  }

  /**
   * Sets one attribute in one statement: inserted only when the user exists, replaced only when its value differs.
   * Credentials stay as they are: tokens and sessions do not carry attributes, servers read them with the stamp.
   */
  async setAttribute(userName: string, key: string, value: string): Promise<UserChange> {
    const { db } = this.storage;
    const result = await db.insertInto('user_attribute').columns(['user_key', 'attribute_key', 'value'])
      .expression(db.selectFrom('app_user')
        .select((eb) => ['app_user.user_key', eb.val(key).as('attribute_key'), eb.val(value).as('value')])
        .where('app_user.user_key', '=', userKey(userName)))
      .onConflict((oc) => oc.columns(['user_key', 'attribute_key'])
        .doUpdateSet({ value: (eb) => eb.ref('excluded.value') })
        .where('user_attribute.value', '<>', value))
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0) > 0 ? 'changed' : (await this.find(userName)) ? 'unchanged' : 'not-found';
  }

  /** Removes one attribute; `unchanged` when the user had none of that key. */
  async removeAttribute(userName: string, key: string): Promise<UserChange> {
    const result = await this.storage.db.deleteFrom('user_attribute')
      .where('user_key', '=', userKey(userName)).where('attribute_key', '=', key).executeTakeFirst();
    return result.numDeletedRows > 0n ? 'changed' : (await this.find(userName)) ? 'unchanged' : 'not-found';
  }

  /** Deletes the user (its login sessions and refresh tokens go with it) and remembers when, in one transaction. */
  async remove(userName: string): Promise<boolean> {
    const { db, dialect, values } = this.storage;
    const key = userKey(userName);
    return db.transaction().execute(async (trx) => {
      // The delete cascades to sessions, then their tokens: in a refresh's lock order, no deadlock with one in flight.
      await lockRefreshTokens(trx, dialect, key);
      const result = await trx.deleteFrom('app_user').where('user_key', '=', key).executeTakeFirst();
      if (result.numDeletedRows === 0n) return false;
      const removed = values.date(new Date());
      await trx.insertInto('removed_user').values({ user_key: key, removed_date: removed })
        .onConflict((oc) => oc.column('user_key').doUpdateSet({ removed_date: removed })).execute();
      return true;
    });
  }

  private ended() {
    return { credential_stamp: newStamp(), credentials_ended_date: this.storage.values.date(new Date()) };
  }

  private stateQuery?: CompiledQuery<StateRow>;
  private removedQuery?: CompiledQuery<{ removed_date: string | Date }>;

  /**
   * The state every credential of the user is checked against, with the user's attributes, in one query (a row per
   * attribute, or one without). Runs for callers whose state is not known, so the queries are compiled once and read
   * at once where the store allows it.
   */
  async accessState(userName: string): Promise<AccessState> {
    const { db, values } = this.storage;
    const key = userKey(userName);
    this.stateQuery ??= db.selectFrom('app_user')
      .leftJoin('user_attribute', 'user_attribute.user_key', 'app_user.user_key')
      .select(['app_user.disabled', 'app_user.credential_stamp', 'app_user.credentials_ended_date', 'user_attribute.attribute_key', 'user_attribute.value'])
      .where('app_user.user_key', '=', '').compile();
    const rows = await this.read<StateRow>({ ...this.stateQuery, parameters: [key] });
    const [row] = rows;
    if (row) {
      const ended = row.credentials_ended_date == null ? 0 : values.toDate(row.credentials_ended_date).getTime();
      const attributes = frozenAttributes(rows.flatMap((r) => (r.attribute_key == null || r.value == null ? [] : [[r.attribute_key, r.value] as const])));
      return { state: { exists: true, disabled: values.toBool(row.disabled), stamp: row.credential_stamp, endedMs: ended }, attributes };
    }
    this.removedQuery ??= db.selectFrom('removed_user').select('removed_date').where('user_key', '=', '').compile();
    const [removed] = await this.read<{ removed_date: string | Date }>({ ...this.removedQuery, parameters: [key] });
    return { state: { exists: false, endedMs: removed ? values.toDate(removed.removed_date).getTime() : 0 }, attributes: NO_ATTRIBUTES };
  }

  private async read<R>(query: CompiledQuery<R>): Promise<R[]> {
    return this.storage.readNow?.(query) ?? (await this.storage.db.executeQuery(query)).rows;
  }

  private toUser(r: UserRow): StoredUser {
    const { values } = this.storage;
    return {
      userKey: r.user_key,
      userName: r.user_name,
      name: r.display_name,
      roles: JSON.parse(r.roles) as string[],
      passwordHash: r.password_hash,
      disabled: values.toBool(r.disabled),
      createdDate: values.toDate(r.created_date),
      stamp: r.credential_stamp,
      credentialsEnded: r.credentials_ended_date == null ? null : values.toDate(r.credentials_ended_date),
    };
  }
}

type UserRow = Selectable<AppUserTable>;
type StateRow = Pick<UserRow, 'disabled' | 'credential_stamp' | 'credentials_ended_date'> & { attribute_key: string | null; value: string | null };
