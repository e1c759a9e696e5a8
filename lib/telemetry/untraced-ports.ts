/**
 * Local ports whose incoming requests are not traced: the metrics listener's. A Prometheus scraping every few
 * seconds would otherwise fill the trace store with spans of nothing but scrapes. Kept apart from tracing.ts so the
 * metrics listener can name its port without loading OpenTelemetry.
 */
export const untracedPorts = new Set<number>();
