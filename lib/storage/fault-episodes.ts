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
  let faults = 0;
  return {
    fault(detail) {
      faults++;
      if (since !== undefined) return;
      since = Date.now();
      warn(`${store} unavailable: ${detail}; requests that need it answer 503 until it answers again. Check ${check}.`);
    },
    answered() {
      if (since === undefined) return;
      warn(`${store} answers again after ${Math.round((Date.now() - since) / 1000)} s (${faults} failed operations).`);
      since = undefined;
      faults = 0;
    },
  };
}
