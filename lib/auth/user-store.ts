import type { Storage } from '../storage/storage.js';

export interface StoredUser {
  userKey: string;
  userName: string;
  name: string;
  roles: string[];
  passwordHash: string;
  disabled: boolean;
  createdDate: Date;
}

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

  /** Answers false when the name is taken. */
  async insert(user: Omit<StoredUser, 'userKey'>): Promise<boolean> {
    const { db, values } = this.storage;
    const result = await db.insertInto('app_user').values({
      user_key: userKey(user.userName),
      user_name: user.userName,
      display_name: user.name,
      roles: JSON.stringify(user.roles),
      password_hash: user.passwordHash,
      disabled: values.bool(user.disabled),
      created_date: values.date(user.createdDate),
    }).onConflict((oc) => oc.column('user_key').doNothing()).executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
  }

  async setDisabled(userName: string, disabled: boolean): Promise<boolean> {
    const result = await this.storage.db.updateTable('app_user').set({ disabled: this.storage.values.bool(disabled) })
      .where('user_key', '=', userKey(userName)).executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  private toUser(r: { user_key: string; user_name: string; display_name: string; roles: string; password_hash: string; disabled: number | boolean; created_date: string | Date }): StoredUser {
    return {
      userKey: r.user_key,
      userName: r.user_name,
      name: r.display_name,
      roles: JSON.parse(r.roles) as string[],
      passwordHash: r.password_hash,
      disabled: this.storage.values.toBool(r.disabled),
      createdDate: this.storage.values.toDate(r.created_date),
    };
  }
}
