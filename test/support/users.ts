import { withErrorScope } from 'restlayer';
import type { TestServer } from './server.js';

/** Creates a user through the user service, as `restlayer user add` does. */
export async function addUser(server: Pick<TestServer, 'services'>, userName: string, password: string, roles: string[] = ['Clerk'], name?: string) {
  const output = await withErrorScope(() => server.services.users.add({ userName, password, roles, name }));
  if (!output.result) throw new Error(`could not add ${userName}: ${output.messages.map((m) => m.message).join(' ')}`);
  return output.result;
}

/** A fast password hash for tests that log in many times; production keeps the configured cost. */
export const FAST_HASH = { Authentication: { PasswordHashCost: 10 } };

/** The cookie pairs of a response, as a Cookie request header. */
export function cookieHeader(headers: Headers): string {
  return headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
}
