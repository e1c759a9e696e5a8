import type { Output } from '../envelope/output.js';
import type { RestClient } from './client.js';
import { clientOutput } from './errors.js';
import type { OperationTable } from './operations.js';
import type { CachedTable } from '../lookup/lookup-cache.js';
import type { LookupTable } from '../lookup/lookup-table.js';
import type { ILookupService } from '../lookup/lookup-service.js';

/** Where each operation is served; kept in line with the routes as SalesOrderProxy's table is (test/client/drift.test.ts). */
const operations = {
  read: { verb: 'GET', path: '/lookup-table/{type}' },
  remove: { verb: 'DELETE', path: '/lookup-table/{type}' },
  removeAll: { verb: 'DELETE', path: '/lookup-table' },
} as const satisfies OperationTable<ILookupService>;

/**
 * ILookupService over HTTP. `read` keeps the tables it got with their ETag and asks again with If-None-Match: a 304
 * answers the kept table without sending it again. `remove` and `removeAll` need the Administrator role.
 */
export class LookupProxy implements ILookupService {
  static readonly service = 'ILookupService';
  static readonly operations = operations;
  static readonly notExposed = [] as const;

  private readonly kept = new Map<string, CachedTable>();

  constructor(private readonly client: RestClient) {}

  async read(type: string): Promise<Output<CachedTable>> {
    const key = type.toLowerCase();
    const kept = this.kept.get(key);
    const reply = await this.client.send<LookupTable>(operations.read, {
      params: { type },
      headers: kept ? { 'If-None-Match': kept.etag } : {},
      dates: 'none',
    });
    if (reply.status === 304 && kept) return clientOutput(kept, reply.output.messages);
    const table = reply.output.result;
    if (!table) {
      this.kept.delete(key);
      return clientOutput<CachedTable>(undefined, reply.output.messages);
    }
    const etag = reply.headers.get('ETag') ?? '';
    const cached = { table, etag };
    if (etag) this.kept.set(key, cached);
    return clientOutput(cached, reply.output.messages);
  }

  async remove(type: string): Promise<Output> {
    this.kept.delete(type.toLowerCase());
    return this.client.call(operations.remove, { params: { type } });
  }

  async removeAll(): Promise<Output> {
    this.kept.clear();
    return this.client.call(operations.removeAll);
  }
}
