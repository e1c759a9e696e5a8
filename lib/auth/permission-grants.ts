import { BoundedMap } from '../bounded-map.js';
import { type Grant, parseGrant, reachOf } from './permissions.js';

/**
 * What one caller may do, resolved once per distinct set of roles: the permission check on every request is a map
 * lookup, never a wildcard match. `holds` and `scopesOf` are bound, so a request's access shares them as they are.
 */
export interface CallerGrants {
  /** Whether the caller holds `permission`, with or without a scope. */
  readonly holds: (permission: string) => boolean;
  /** The scopes limiting `permission`: undefined when not limited, or not held (see `holds`). */
  readonly scopesOf: (permission: string) => readonly string[] | undefined;
  /** Every permission the server knows that the caller holds, sorted (the UserInfo's `permissions`). */
  readonly permissions: readonly string[];
}

type Reach = readonly string[] | null | undefined;

function callerGrants(grants: readonly Grant[], known: readonly string[]): CallerGrants {
  const reach = new Map<string, Reach>();
  for (const permission of known) reach.set(permission, reachOf(grants, permission));
  // A permission no route names (asked by a service through `holds`) is resolved once, then kept like the others;
  // names come from code, not from callers, so the map stays small.
  const lookup = (permission: string): Reach => {
    if (reach.has(permission)) return reach.get(permission);
    const found = reachOf(grants, permission);
    reach.set(permission, found);
    return found;
  };
  return Object.freeze({
    holds: (permission: string) => lookup(permission) !== undefined,
    scopesOf: (permission: string) => lookup(permission) ?? undefined,
    permissions: Object.freeze(known.filter((p) => reach.get(p) !== undefined)),
  });
}

/** Grants nothing: a caller whose roles the configuration does not name, or who has none. */
const nothing = callerGrants([], []);

/**
 * The roles of `Authorization:Roles`, each resolved against the permission names the server's routes use. Callers
 * are resolved by their set of roles and kept (a bounded number of distinct sets: roles come from tokens, and a
 * token of a trusted external issuer may name any).
 */
export class RoleGrants {
  private readonly roles: ReadonlyMap<string, readonly Grant[]>;
  private readonly known: readonly string[];
  private readonly resolved = new BoundedMap<string, CallerGrants>(1_000);

  constructor(roles: Readonly<Record<string, readonly string[]>>, permissionNames: Iterable<string>) {
    this.roles = new Map(Object.entries(roles).map(([role, grants]) => [role, grants.map((g) => {
      const grant = parseGrant(g);
      if (!grant) throw new Error(`Authorization:Roles:${role}: "${g}" is not a grant`);
      return grant;
    })]));
    this.known = Object.freeze([...new Set(permissionNames)].sort());
  }

  /** The role names the configuration gives grants to. */
  get roleNames(): readonly string[] {
    return [...this.roles.keys()];
  }

  /** What `role` grants, parsed. */
  grantsOf(role: string): readonly Grant[] {
    return this.roles.get(role) ?? [];
  }

  /** What a caller with `roles` may do: the union of the roles' grants (unknown roles grant nothing). */
  forRoles(roles: readonly string[]): CallerGrants {
    if (roles.length === 0) return nothing;
    // Roles come in the order the token or session lists them; one key per order is cheaper than sorting each time.
    // Several roles are keyed as JSON behind a NUL, which no single role name starts with.
    const key = roles.length === 1 ? roles[0] : '\u0000' + JSON.stringify(roles);
    let found = this.resolved.get(key);
    if (!found) {
      found = callerGrants(roles.flatMap((r) => this.roles.get(r) ?? []), this.known);
      this.resolved.set(key, found);
    }
    return found;
  }

  /** A caller who holds exactly `permission`, without a scope: an operator token on the route of its action. */
  static only(permission: string): CallerGrants {
    return callerGrants([{ segments: permission.split('.') }], [permission]);
  }
}
