import { MESSAGES } from '../envelope/message-catalogue.js';
import { currentErrors } from '../envelope/request-scope.js';
import { Output } from '../envelope/output.js';
import { decoyHash, verifyPassword } from './password.js';
import type { Credentials, LoggedInUser, UserInfo } from './auth-models.js';
import type { ILoginService } from './login-service.js';
import type { UserStore } from './user-store.js';

export const invalidCredentials = () => MESSAGES.Login_InvalidCredentials();

export class PasswordLoginService implements ILoginService {
  private decoy: Promise<string> | undefined;

  constructor(private readonly users: UserStore, private readonly hashCost: number) {}

  async authenticate(credentials: Credentials, authenticationType: UserInfo['authenticationType']): Promise<Output<LoggedInUser>> {
    const user = await this.users.find(credentials.userName);
    // An unknown user still costs one full hash check, so timing does not tell which names exist.
    const hash = user?.passwordHash ?? (await (this.decoy ??= decoyHash(this.hashCost)));
    const valid = await verifyPassword(credentials.password, hash);
    if (!user || !valid || user.disabled) {
      currentErrors().add(invalidCredentials());
      return Output.of();
    }
    // The tenant its tokens or session will carry (contract part 12): read at each login, so a change applies from the next one.
    const tenantId = await this.users.tenantOf(user.userName);
    return Output.of({ userName: user.userName, name: user.name, roles: user.roles, authenticationType, stamp: user.stamp, ...(tenantId ? { tenantId } : {}) });
  }
}
