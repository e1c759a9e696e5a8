import { hashPassword } from './password.js';
import { currentErrors } from '../envelope/request-scope.js';
import { Output } from '../envelope/output.js';
import type { NewUser, UserSummary } from './auth-models.js';
import type { ICookieSessionStore } from './cookie-session-store.js';
import type { ITokenService } from './token-service.js';
import type { IUserService } from './user-service.js';
import type { StoredUser, UserStore } from './user-store.js';

const summary = (u: StoredUser): UserSummary => ({ userName: u.userName, name: u.name, roles: u.roles, disabled: u.disabled, createdDate: u.createdDate });

export class SqlUserService implements IUserService {
  constructor(
    private readonly users: UserStore,
    private readonly tokens: ITokenService,
    private readonly cookies: ICookieSessionStore,
    private readonly hashCost: number,
  ) {}

  async add(user: NewUser): Promise<Output<UserSummary>> {
    const stored = {
      userName: user.userName,
      name: user.name || user.userName,
      roles: [...new Set(user.roles)],
      passwordHash: await hashPassword(user.password, this.hashCost),
      disabled: false,
      createdDate: new Date(),
    };
    if (!(await this.users.insert(stored))) {
      currentErrors().error('Validation', 'User_Exists', `User '${user.userName}' already exists.`, { property: 'userName' });
      return Output.of();
    }
    return Output.of(summary({ ...stored, userKey: '' }));
  }

  async list(): Promise<Output<UserSummary[]>> {
    return Output.of((await this.users.list()).map(summary));
  }

  async read(userName: string): Promise<Output<UserSummary>> {
    const user = await this.users.find(userName);
    if (!user) this.notFound(userName);
    return Output.of(user && summary(user));
  }

  private notFound(userName: string) {
    currentErrors().error('Data', 'User_NotFound', `User '${userName}' not found.`);
  }

  async disable(userName: string): Promise<Output> {
    if (!(await this.users.setDisabled(userName, true))) {
      this.notFound(userName);
      return Output.of();
    }
    await this.tokens.revokeUser(userName);
    await this.cookies.destroyForUser(userName);
    return Output.of();
  }
}
