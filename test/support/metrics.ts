import { request } from 'node:http';

/**
 * The sum of the samples called `name` in a Prometheus text exposition whose labels include `labels` (0 when none):
 * enough to read a counter or a histogram's `_count` back without caring about the other labels.
 */
export function sampleSum(text: string, name: string, labels: Record<string, string> = {}): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    const sample = /^([A-Za-z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!sample || sample[1] !== name) continue;
    const found = new Map([...(sample[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]] as const));
    if (Object.entries(labels).every(([k, v]) => found.get(k) === v)) sum += Number(sample[3]);
  }
  return sum;
}

/** GETs a metrics URL and answers its status, content type and text. */
export async function scrape(url: string): Promise<{ status: number; contentType: string; text: string }> {
  const res = await fetch(url);
  return { status: res.status, contentType: res.headers.get('content-type') ?? '', text: await res.text() };
}

/**
 * A GET on a connection of its own (no keep-alive), so that `serve --workers N` hands consecutive requests to
 * different workers (node's cluster balances connections, not requests).
 */
export function getOnNewConnection(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    request(url, { agent: false, headers: { Connection: 'close' } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    }).on('error', reject).end();
  });
}
