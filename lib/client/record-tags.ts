/**
 * The ETags of the records a client has read (contract part 14), so that its writes carry If-Match: a write then
 * changes only what the caller saw, and a record changed by someone else meanwhile answers 412 instead of being
 * overwritten. A line's write carries its order's tag: the tag held for the nearest record above the written path.
 * Bounded (the oldest tags go first): a client that reads many records keeps the latest ones.
 */
export class RecordTags {
  readonly #tags = new Map<string, string>();

  constructor(private readonly max = 1_000) {}

  /** The record a write to `url` is conditional on, with its tag: `url` itself, or the nearest path above it with one. */
  held(url: string): { url: string; etag: string } | undefined {
    for (let at = recordUrl(url); ; at = at.slice(0, at.lastIndexOf('/'))) {
      const etag = this.#tags.get(at);
      if (etag) return { url: at, etag };
      if (at.lastIndexOf('/') <= at.indexOf('//') + 1) return undefined;
    }
  }

  keep(url: string, etag: string): void {
    const at = recordUrl(url);
    this.#tags.delete(at);
    this.#tags.set(at, etag);
    if (this.#tags.size > this.max) this.#tags.delete(this.#tags.keys().next().value!);
  }

  forget(url: string): void {
    this.#tags.delete(recordUrl(url));
  }

  /**
   * What an answer says of the tags: a GET's ETag is the record's; a write answers the written record's new tag (or,
   * answering none, leaves the held one stale); a 412 says the held one is stale; a deleted record has none.
   */
  note(verb: string, url: string, target: { url: string } | undefined, status: number, etag: string | null): void {
    if (verb === 'GET') {
      if (status === 200 && etag && !etag.startsWith('W/')) this.keep(url, etag);
      return;
    }
    if (!target) return;
    if (status === 412 || (status < 300 && (verb === 'DELETE' && target.url === recordUrl(url) || !etag))) this.forget(target.url);
    else if (status < 300 && etag) this.keep(target.url, etag);
  }
}

/** A URL without its query string or fragment: the record it names. */
const recordUrl = (url: string) => url.replace(/[?#].*$/, '').replace(/\/+$/, '');
