/** A Map that forgets its oldest entry when a new one would exceed `limit`: memory stays bounded under any input. */
export class BoundedMap<K, V> extends Map<K, V> {
  constructor(private readonly limit: number) {
    super();
  }

  override set(key: K, value: V): this {
    if (this.size >= this.limit && !this.has(key)) this.delete(this.keys().next().value!);
    return super.set(key, value);
  }
}
