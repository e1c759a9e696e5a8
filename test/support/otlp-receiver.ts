import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A span as the OTLP/HTTP JSON export carries it, with its attributes as plain values and its scope's name. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  /** 1 internal, 2 server, 3 client. */
  kind: number;
  attributes: Record<string, unknown>;
  scope: string;
  /** The `process.pid` of the resource that sent it. */
  pid: unknown;
}

export const SERVER_KIND = 2;
export const CLIENT_KIND = 3;

interface AnyValue {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  doubleValue?: number;
}
interface KeyValue {
  key: string;
  value: AnyValue;
}
interface ExportRequest {
  resourceSpans?: {
    resource?: { attributes?: KeyValue[] };
    scopeSpans?: { scope?: { name?: string }; spans?: (Omit<ReceivedSpan, 'attributes' | 'scope' | 'pid'> & { attributes?: KeyValue[] })[] }[];
  }[];
}

const plain = (value: AnyValue) => value.stringValue ?? (value.intValue !== undefined ? Number(value.intValue) : value.boolValue ?? value.doubleValue);
const attributes = (list: KeyValue[] = []) => Object.fromEntries(list.map(({ key, value }) => [key, plain(value)]));

export interface OtlpReceiver {
  /** For OTEL_EXPORTER_OTLP_ENDPOINT, e.g. http://127.0.0.1:41234 (the exporter adds /v1/traces). */
  endpoint: string;
  spans: ReceivedSpan[];
  /** How many export requests arrived, whatever their path. */
  requests: number;
  /** Resolves with the first span (received or still to come) that `match` accepts. */
  waitForSpan(match: (span: ReceivedSpan) => boolean, timeoutMs?: number): Promise<ReceivedSpan>;
  close(): Promise<void>;
}

/** An OTLP/HTTP collector stand-in: it answers every POST /v1/traces with 200 and keeps the JSON-encoded spans. */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const watchers = new Set<() => void>();
  const received = { spans, requests: 0 };
  const server: Server = createServer((req, res) => {
    received.requests++;
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (req.method === 'POST' && req.url === '/v1/traces' && /json/.test(req.headers['content-type'] ?? '')) {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ExportRequest;
        for (const { resource, scopeSpans = [] } of body.resourceSpans ?? []) {
          const pid = attributes(resource?.attributes)['process.pid'];
          for (const { scope, spans: list = [] } of scopeSpans) {
            for (const span of list) spans.push({ ...span, attributes: attributes(span.attributes), scope: scope?.name ?? '', pid });
          }
        }
        watchers.forEach((w) => w());
      }
      res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return Object.assign(received, {
    endpoint: `http://127.0.0.1:${port}`,
    waitForSpan: (match: (span: ReceivedSpan) => boolean, timeoutMs = 15_000) => new Promise<ReceivedSpan>((resolve, reject) => {
      const check = () => {
        const found = spans.find(match);
        if (!found) return;
        watchers.delete(check);
        clearTimeout(timer);
        resolve(found);
      };
      const timer = setTimeout(() => {
        watchers.delete(check);
        reject(new Error(`no matching span within ${timeoutMs} ms; received: ${spans.map((s) => `${s.name} (${s.traceId})`).join(', ') || 'none'}`));
      }, timeoutMs);
      watchers.add(check);
      check();
    }),
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  });
}
