/**
 * A JSON merge patch (RFC 7396) of a flat record, as a PATCH body is: browser-safe (no imports), so a client applies a
 * patch to the record it holds exactly as the server's PATCH applies it to the stored one (lib/validation/merge-patch.ts
 * and the declared runtime run this very function). Counted in the core layer too (.dependency-cruiser.cjs).
 */

/** A merge patch of an update model: any field may be absent; `null` clears a field that may be empty. */
export type PatchOf<T> = { [K in keyof T]?: T[K] | null };

/**
 * The record `current` (as the update model's input) with the patch applied: each field the patch names replaces the
 * current one (`null` clears it). The revision is the record's: a null revision asks for no check, which a patch
 * cannot mean, and a revision the caller sent is checked by the write itself.
 */
export function mergePatch<Update extends { revisionNumber?: number | null }>(current: Update, patch: PatchOf<Update>): Update {
  const merged: Record<string, unknown> = { ...current };
  for (const [key, value] of Object.entries(patch)) {
    if (value !== undefined && !(key === 'revisionNumber' && value === null)) merged[key] = value;
  }
  return merged as Update;
}
