/** An episode ends once the store answers after this long without a fault: a flapping store is one episode. */
const QUIET_MS = 5_000;

/**
 * Logs infrastructure faults once per episode: the first fault at warn (with what to check), nothing while it lasts
 * (a burst of failing requests is one outage, not a thousand lines), and one line when the store answers again.
 */
export interface FaultEpisodes {
  fault(detail: string): void;
  answered(): void;
}

export function faultEpisodes(store: string, check: string, warn: (text: string) => void): FaultEpisodes {
  let since: number | undefined;
  let lastFault = 0;
  let faults = 0;
  return {
    fault(detail) {
      faults++;
      lastFault = Date.now();
      if (since !== undefined) return;
      since = Date.now();
      warn(`${store} unavailable: ${detail}; requests that need it answer 503 until it answers again. Check ${check}.`);
    },
    answered() {
      if (since === undefined || Date.now() - lastFault < QUIET_MS) return;
      warn(`${store} answers again (the outage began ${Math.round((Date.now() - since) / 1000)} s ago; ${faults} operations failed).`);
      since = undefined;
      faults = 0;
    },
  };
}
