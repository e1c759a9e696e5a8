import { GRANT_SYNTAX } from '../config/schema.js';

/**
 * One entry of a role's list in `Authorization:Roles`: a permission pattern (`sales-order.read`, `sales-order.*`,
 * `*.read`; `*` stands for one whole segment), optionally limited to a record scope (`sales-order.read:own`).
 */
export interface Grant {
  /** The pattern's segments, `*` where any segment matches. */
  readonly segments: readonly string[];
  /** The record scope the grant is limited to; undefined: every record. */
  readonly scope?: string;
}

/** Reads a grant; undefined when it is not one (the configuration's format refuses those before anything runs). */
export function parseGrant(text: string): Grant | undefined {
  const match = GRANT_SYNTAX.exec(text);
  if (!match) return undefined;
  return { segments: match[1].split('.'), ...(match[2] ? { scope: match[2] } : {}) };
}

/** Whether `grant` covers `permission`: as many segments, each equal or `*`. */
export function covers(grant: Grant, permission: string): boolean {
  const segments = permission.split('.');
  return segments.length === grant.segments.length && grant.segments.every((s, i) => s === '*' || s === segments[i]);
}

/**
 * What a set of grants (every grant of every role of a caller) gives for `permission`: not held (undefined), held
 * without a limit (`null`), or limited to the named scopes. A grant without a scope wins over any scoped one (part 10:
 * a permission granted without a scope by any role is not limited by another role's scope).
 */
export function reachOf(grants: readonly Grant[], permission: string): readonly string[] | null | undefined {
  let scopes: Set<string> | undefined;
  for (const grant of grants) {
    if (!covers(grant, permission)) continue;
    if (grant.scope === undefined) return null;
    (scopes ??= new Set()).add(grant.scope);
  }
  return scopes && Object.freeze([...scopes].sort());
}
