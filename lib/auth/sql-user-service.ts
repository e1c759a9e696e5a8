import { hashPassword } from './password.js';
import { currentErrors } from '../envelope/request-scope.js';
import { MESSAGES } from '../envelope/message-catalogue.js';
import { Output } from '../envelope/output.js';
import type { NewPassword, NewUser, TokenSubject, UserSummary } from './auth-models.js';
import type { ICookieSessionStore } from './cookie-session-store.js';
import type { ITokenService } from './token-service.js';
import type { IUserAccess } from './user-access.js';
import type { IUserService } from './user-service.js';
import { NO_ATTRIBUTES, type UserAttributes, attributeKeyProblem, attributeValueProblem, attributesProblem, frozenAttributes } from './user-attributes.js';
import type { StoredUser, UserChange, UserStore } from './user-store.js';

const summary = (u: Pick<StoredUser, Exclude<keyof UserSummary, 'attributes'>>, attributes: UserAttributes): UserSummary =>
  ({ userName: u.userName, name: u.name, roles: u.roles, disabled: u.disabled, createdDate: u.createdDate, attributes });

export class SqlUserService implements IUserService {
  constructor(
    private readonly users: UserStore,
    private readonly tokens: ITokenService,
    private readonly cookies: ICookieSessionStore,
    private readonly access: IUserAccess,
    private readonly hashCost: number,
  ) {}

  async add(user: NewUser, attributes: Readonly<Record<string, string>> = NO_ATTRIBUTES): Promise<Output<UserSummary>> {
    if (this.invalid(attributesProblem(attributes))) return Output.of();
    const given = frozenAttributes(Object.entries(attributes));
    const stored = {
      userName: user.userName,
      name: user.name || user.userName,
      roles: [...new Set(user.roles)],
      passwordHash: await hashPassword(user.password, this.hashCost),
      disabled: false,
      createdDate: new Date(),
    };
    if (!(await this.users.insert(stored, given))) {
      currentErrors().add(MESSAGES.User_Exists({ userName: user.userName, property: 'userName' }));
      return Output.of();
    }
    // This process may know the name as no user's (a token minted elsewhere named it).
    this.access.changed(user.userName);
    return Output.of(summary(stored, given));
  }

  async list(): Promise<Output<UserSummary[]>> {
    const [users, attributes] = await Promise.all([this.users.list(), this.users.allAttributes()]);
    return Output.of(users.map((u) => summary(u, attributes.get(u.userKey) ?? NO_ATTRIBUTES)));
  }

  async read(userName: string): Promise<Output<UserSummary>> {
    const user = await this.users.find(userName);
    if (!user) this.notFound(userName);
    return Output.of(user && summary(user, await this.users.attributesOf(userName)));
  }

  async tokenSubject(userName: string): Promise<Output<TokenSubject>> {
    const user = await this.users.find(userName);
    if (!user) this.notFound(userName);
    else if (user.disabled) currentErrors().add(MESSAGES.User_Disabled({ userName: user.userName }));
    if (!user || user.disabled) return Output.of();
    const tenantId = await this.users.tenantOf(user.userName);
    return Output.of({ userName: user.userName, name: user.name, roles: user.roles, stamp: user.stamp, ...(tenantId ? { tenantId } : {}) });
  }

  private notFound(userName: string) {
    currentErrors().add(MESSAGES.User_NotFound({ userName }));
  }

  async disable(userName: string): Promise<Output<boolean>> {
    // The new stamp written with the flag is what ends the credentials everywhere; the rest tidies the stores.
    const change = await this.users.setDisabled(userName, true);
    if (change === 'changed') await this.ended(userName);
    return this.changeOutput(userName, change);
  }

  async enable(userName: string): Promise<Output<boolean>> {
    const change = await this.users.setDisabled(userName, false);
    if (change === 'changed') this.access.changed(userName);
    return this.changeOutput(userName, change);
  }

  async setPassword(change: NewPassword): Promise<Output> {
    const hash = await hashPassword(change.password, this.hashCost);
    if (!(await this.users.setPassword(change.userName, hash))) this.notFound(change.userName);
    else await this.ended(change.userName);
    return Output.of();
  }

  async setRoles(userName: string, roles: string[]): Promise<Output<boolean>> {
    const change = await this.users.setRoles(userName, [...new Set(roles)]);
    if (change === 'changed') await this.ended(userName);
    return this.changeOutput(userName, change);
  }

  async remove(userName: string): Promise<Output> {
    // Its login sessions and refresh tokens are deleted with it; cookie sessions live apart (maybe in Redis).
    if (!(await this.users.remove(userName))) this.notFound(userName);
    else await this.ended(userName);
    return Output.of();
  }

  async setAttribute(userName: string, key: string, value: string): Promise<Output<boolean>> {
    if (this.invalid(attributeKeyProblem(key) ?? attributeValueProblem(key, value))) return Output.of();
    const change = await this.users.setAttribute(userName, key, value);
    // Only this process's cache: other processes and instances re-read the user within SessionRecheckSeconds.
    if (change === 'changed') this.access.changed(userName);
    return this.changeOutput(userName, change);
  }

  async removeAttribute(userName: string, key: string): Promise<Output<boolean>> {
    if (this.invalid(attributeKeyProblem(key))) return Output.of();
    const change = await this.users.removeAttribute(userName, key);
    if (change === 'changed') this.access.changed(userName);
    return this.changeOutput(userName, change);
  }

  /** Records the problem, if any, as `User_AttributeInvalid`; true when there was one. */
  private invalid(problem: string | undefined): boolean {
    if (problem) currentErrors().add(MESSAGES.User_AttributeInvalid({ problem }));
    return problem !== undefined;
  }

  private changeOutput(userName: string, change: UserChange): Output<boolean> {
    if (change === 'not-found') this.notFound(userName);
    return Output.of(change === 'not-found' ? undefined : change === 'changed');
  }

  /**
   * Ends at once what this process knows of the user, and every session it has in the stores. The new stamp already
   * ended them all; deleting the cookie sessions only tidies, so a shared store that is down is worth a warning, not
   * a failure (its sessions are refused anyway and expire by themselves).
   */
  private async ended(userName: string) {
    this.access.changed(userName);
    await this.tokens.revokeUser(userName);
    try {
      await this.cookies.destroyForUser(userName);
    } catch (err) {
      currentErrors().add(MESSAGES.User_CookieSessionsKept({ userName, reason: (err as Error).message }));
    }
  }
}
