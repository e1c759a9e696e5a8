/** Polls `check` until it holds; fails naming `what` after `timeoutMs`. For effects that land a moment later. */
export async function until(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 15_000, intervalMs = 100): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
