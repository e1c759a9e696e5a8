import { randomBytes } from 'node:crypto';
import { readFileSync, readlinkSync } from 'node:fs';

/**
 * This process as an Idempotency-Key claim names it, and whether the process another claim names is known to be gone.
 *
 * The name is `<machine>/<pid>/<nonce>`: the machine is the kernel's boot id and the process's PID namespace (Linux's
 * /proc), so two names with the same machine are processes that see the same PIDs; the nonce is drawn per process,
 * so a later process that got the PID of an ended one is told apart from it.
 */
export interface ProcessIdentity {
  readonly id: string;
  /**
   * Whether the process `other` names has ended, for sure: on this machine (same boot and PID namespace), and either
   * it had this process's PID (another process before this one) or no process has its PID now. Anything else (another
   * machine or container, an unreadable name, a PID in use, maybe by a newer process) is not known: false.
   */
  isGone(other: string): boolean;
}

/** The boot id and PID namespace, or undefined where /proc does not tell them (not Linux). */
function machine(): string | undefined {
  try {
    const boot = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    const namespace = /\[(\d+)\]/.exec(readlinkSync('/proc/self/ns/pid'))?.[1];
    return /^[\w-]+$/.test(boot) && namespace ? `${boot}.${namespace}` : undefined;
  } catch {
    return undefined;
  }
}

export function processIdentity(): ProcessIdentity {
  const here = machine();
  const nonce = randomBytes(6).toString('base64url');
  return {
    id: `${here ?? '-'}/${process.pid}/${nonce}`,
    isGone(other) {
      const [where, pidText, otherNonce] = other.split('/');
      if (!here || where !== here) return false;
      const pid = Number(pidText);
      if (!Number.isSafeInteger(pid) || pid <= 0) return false;
      // This PID is this process's: the other one, which had it before, has ended.
      if (pid === process.pid) return otherNonce !== nonce;
      try {
        // Signal 0 sends nothing: it only asks whether the PID exists (EPERM: it does, owned by another user).
        process.kill(pid, 0);
        return false;
      } catch (err) {
        return (err as NodeJS.ErrnoException).code === 'ESRCH';
      }
    },
  };
}
