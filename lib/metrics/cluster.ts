import { AggregatorRegistry, type Registry } from 'prom-client';
import type { MetricsSource } from './listener.js';

/**
 * In a worker of `serve --workers N`: answers the primary's requests with this registry. Called before the server
 * starts (with none yet), so a scrape during startup gets an answer instead of waiting for prom-client's timeout.
 */
export function answerPrimary(registry?: Registry): void {
  // Constructing one is what makes prom-client listen for the primary's requests in a worker.
  new AggregatorRegistry();
  AggregatorRegistry.setRegistries(registry ? [registry] : []);
}

/** In the primary: every worker's metrics, summed (histograms, counters) or combined as each metric says. */
export function clusterSource(): MetricsSource {
  const aggregator = new AggregatorRegistry();
  return { contentType: aggregator.contentType, text: () => aggregator.clusterMetrics() };
}
