interface StoredCookie {
  value: string;
  /** ms since the epoch; undefined for a session cookie (kept as long as the jar). */
  expires?: number;
  secure: boolean;
}

/**
 * The smallest cookie jar that keeps a login across calls outside a browser: it belongs to one client, hence to one
 * server (origin), and stores what `Set-Cookie` says by name, honouring `Max-Age`, `Expires` (deletion included)
 * and `Secure`. `Path` and `Domain` are not needed for talking to one API and are ignored. Browsers keep their own
 * cookies; there the client sends `credentials: 'include'` instead.
 */
export class CookieJar {
  private readonly cookies = new Map<string, StoredCookie>();

  constructor(private readonly origin: string) {}

  /** Takes the cookies a response sets, if it came from the jar's origin. */
  store(url: string, headers: Headers): void {
    if (new URL(url).origin !== this.origin) return;
    const lines = typeof headers.getSetCookie === 'function' ? headers.getSetCookie() : [];
    const now = Date.now();
    for (const line of lines) {
      const [pair, ...attributes] = line.split(';');
      const eq = pair.indexOf('=');
      if (eq <= 0) continue;
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      let expires: number | undefined;
      let secure = false;
      for (const attribute of attributes) {
        const [key, ...rest] = attribute.split('=');
        const k = key.trim().toLowerCase();
        const v = rest.join('=').trim();
        if (k === 'max-age' && /^-?\d+$/.test(v)) expires = now + Number(v) * 1000;
        else if (k === 'expires' && expires === undefined && !Number.isNaN(Date.parse(v))) expires = Date.parse(v);
        else if (k === 'secure') secure = true;
      }
      if (expires !== undefined && expires <= now) this.cookies.delete(name);
      else this.cookies.set(name, { value, expires, secure });
    }
  }

  /** The `Cookie` header for a request to `url`, or undefined when there is nothing to send. */
  header(url: string): string | undefined {
    const target = new URL(url);
    if (target.origin !== this.origin) return undefined;
    const now = Date.now();
    const pairs: string[] = [];
    for (const [name, cookie] of this.cookies) {
      if (cookie.expires !== undefined && cookie.expires <= now) this.cookies.delete(name);
      else if (!cookie.secure || target.protocol === 'https:') pairs.push(`${name}=${cookie.value}`);
    }
    return pairs.length ? pairs.join('; ') : undefined;
  }

  clear(): void {
    this.cookies.clear();
  }

  get size(): number {
    return this.cookies.size;
  }
}
