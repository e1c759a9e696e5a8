import { currentErrors } from '../envelope/request-scope.js';
import { MESSAGES } from '../envelope/message-catalogue.js';
import { Output } from '../envelope/output.js';
import type { CachedTable, LookupCache } from './lookup-cache.js';
import type { ILookupService } from './lookup-service.js';

export class CachedLookupService implements ILookupService {
  constructor(private readonly cache: LookupCache) {}

  private notFound(type: string) {
    currentErrors().add(MESSAGES.LookupTable_NotFound({ table: type }));
  }

  async read(type: string): Promise<Output<CachedTable>> {
    const table = this.cache.get(type);
    if (!table) {
      this.notFound(type);
      return Output.of();
    }
    return Output.of(await table);
  }

  async remove(type: string): Promise<Output> {
    if (!this.cache.typeOf(type)) this.notFound(type);
    else await this.cache.remove(type);
    return Output.of();
  }

  async removeAll(): Promise<Output> {
    await this.cache.remove(null);
    return Output.of();
  }
}
