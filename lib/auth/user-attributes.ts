/**
 * User attributes: named text values an operator sets on a user (`restlayer user set-attribute`), which the server
 * reads with the user's credential state and hands to handlers as `principal.attributes` (e.g. `salesPersonId`, read
 * by a record scope). They are not claims: tokens and cookie sessions do not carry them, so a change applies to the
 * user's existing sessions within `SessionRecheckSeconds` without ending them. One exception: `tenantId` (contract
 * part 12) is the tenant a token or cookie session is issued for (the `tid` claim), from the next login or refresh.
 */
export type UserAttributes = Readonly<Record<string, string>>;

/** The attribute that names a user's tenant (contract part 12): its tokens and cookie sessions carry it (`tid`). */
export const TENANT_ATTRIBUTE = 'tenantId';

/** Keys: 1–64 characters of letters, digits, `_`, `.` and `-`, so they read the same in a shell, a URL and JSON. */
export const ATTRIBUTE_KEY = /^[A-Za-z0-9_.-]{1,64}$/;
export const MAX_ATTRIBUTE_VALUE = 256;

/** What handlers see for a user with no attributes (or one this server does not know): one frozen empty object. */
export const NO_ATTRIBUTES: UserAttributes = Object.freeze({});

// C0 and C1 controls, DEL and bidirectional overrides: a value holding one would rewrite the terminal of whoever lists.
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

/** Why a key cannot be used, or undefined when it can. */
export function attributeKeyProblem(key: string): string | undefined {
  return ATTRIBUTE_KEY.test(key) ? undefined : `attribute key '${key}' must be 1 to 64 letters, digits, '_', '.' or '-'`;
}

/** Why a value cannot be stored under `key`, or undefined when it can. An empty value is not a value: remove the key. */
export function attributeValueProblem(key: string, value: string): string | undefined {
  if (value === '') return `attribute '${key}' needs a value (to remove it use 'user remove-attribute')`;
  if ([...value].length > MAX_ATTRIBUTE_VALUE) return `value of attribute '${key}' is longer than ${MAX_ATTRIBUTE_VALUE} characters`;
  if (CONTROL.test(value)) return `value of attribute '${key}' holds control characters (such as ESC or a line break)`;
  return undefined;
}

/** The first problem of a set of attributes, or undefined when every key and value can be stored. */
export function attributesProblem(attributes: Readonly<Record<string, string>>): string | undefined {
  for (const [key, value] of Object.entries(attributes)) {
    const problem = attributeKeyProblem(key) ?? attributeValueProblem(key, value);
    if (problem) return problem;
  }
  return undefined;
}

/**
 * Frozen, so a handler cannot change what the server caches for every later request of the user; keys in code-unit
 * order, the same on both stores whatever their collation, so JSON output and `user list` are stable.
 */
export const frozenAttributes = (entries: Iterable<readonly [string, string]>): UserAttributes => {
  const attributes = Object.fromEntries([...entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return Object.keys(attributes).length ? Object.freeze(attributes) : NO_ATTRIBUTES;
};
