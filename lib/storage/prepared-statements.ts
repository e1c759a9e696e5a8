import { createHash } from 'node:crypto';

/**
 * How many named statements one connection prepares before it is replaced: PostgreSQL keeps each for the session's
 * life, and an application's texts are few but not bounded (an IN list per length, a bulk insert per row count).
 */
export const MAX_PREPARED_PER_CONNECTION = 500;

/** Texts already named, so a hot statement is hashed once (cleared whole when it grows past its bound). */
const names = new Map<string, string>();
const MAX_NAMES = 5_000;

/**
 * The name a statement text is prepared under: the same on every connection and instance, different for every text.
 * pg then sends Parse once per connection and text, and PostgreSQL reuses the parsed (and, after five runs, when it is
 * no worse, the generic) plan, which is most of a short statement's cost in the database.
 */
export function statementName(text: string): string {
  let name = names.get(text);
  if (name === undefined) {
    if (names.size >= MAX_NAMES) names.clear();
    name = `rl_${createHash('sha1').update(text).digest('base64url')}`;
    names.set(text, name);
  }
  return name;
}

/**
 * PostgreSQL's answer when a prepared statement's result columns changed under it (a migration added a column to a
 * table it reads with `*`): it does not prepare it again by itself. SQLSTATE 0A000 is "feature not supported" in
 * general, so the message is checked too.
 */
export function isStalePlan(err: { code?: string; message: string }): boolean {
  return err.code === '0A000' && err.message.includes('cached plan must not change result type');
}
