import type { Migration } from 'kysely';
import type { AnyResource } from './resources/resource.js';
import type { ResourceService, Shape } from './resources/wire-types.js';
import type { AppConfig } from './config/schema.js';
import type { LookupCache } from './lookup/lookup-cache.js';
import type { LayerServices } from './routing/layer-services.js';
import type { StorageDialect } from './storage/dialects/dialect.js';
import type { Storage } from './storage/storage.js';
import type { UniqueKey } from './storage/unique-violation.js';
import { uniqueKeysOf } from './resources/serving.js';

/** What a module's `create` gets: the open store, the configuration, the lookup cache and the layer's own services. */
export interface ModuleContext {
  storage: Storage;
  config: AppConfig;
  lookups: LookupCache;
  layer: LayerServices;
}

/**
 * One business service with everything it brings: its schema history, its sample data, its lookup tables and the
 * service objects routes reach as `call.services.<key>`. The application lists its modules once (services/index.ts);
 * the layer migrates, seeds, registers and creates them in that order.
 */
export interface ServiceModule<S extends object = object, R extends readonly AnyResource[] = readonly AnyResource[]> {
  /** Unique and stable: it names the module's migration history in the database. */
  readonly name: string;
  /**
   * Schema changes by name, applied in name order and recorded per module; a released migration is never edited,
   * only followed by a new one. `dialect` holds what differs between providers: column types, identity columns,
   * list indexes and change tracking (lib/storage/list-indexes.ts, list-changes.ts take it), and converts values.
   */
  migrations?(dialect: StorageDialect): Record<string, Migration>;
  /** Fills an empty store with sample data (only when `Storage:SampleData` is on); answers a line for the log, if it wrote any. */
  seed?(storage: Storage): Promise<string | undefined>;
  /** Registers the module's lookup tables with the process-wide cache. */
  lookups?(cache: LookupCache, storage: Storage): void;
  /**
   * Unique indexes whose violation the store cannot tie to a property by itself (an index on an expression or on
   * several columns): a write that breaks one answers 409 Entity_Duplicate on `property`. A plain unique column
   * needs no entry: its snake_case name maps to the camelCase property.
   */
  uniqueKeys?: readonly UniqueKey[];
  /** The module's services, keyed as routes reach them. */
  create?(context: ModuleContext): S;
  /**
   * The resources it serves (lib/resources): the layer runs each on the store under its service key
   * (`call.services.customer`), and a violation of a unique field's index answers 409 Entity_Duplicate on the field.
   */
  readonly resources?: R;
}

type Intersection<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void ? I : never;
/** The services of a module's resources: each under its service key. */
type Served<R> = R extends readonly (infer X)[]
  ? Intersection<X extends { readonly shape?: infer Sh extends Shape; readonly own?: infer O; readonly serviceKey: infer K extends string }
    ? { [P in K]: ResourceService<Sh> & (unknown extends O ? unknown : O) } : never> : never;
type Created<M> = M extends ServiceModule<infer S, infer R> ? S & Served<R> : never;

/** The services a list of modules provides, on top of the layer's: `ServicesOf<typeof modules>`. */
export type ServicesOf<M extends readonly ServiceModule[]> = LayerServices & Intersection<Created<M[number]>>;

/** Declares a module with its services' type inferred from `create` and its `resources`. */
export function serviceModule<S extends object = Record<never, never>, const R extends readonly AnyResource[] = readonly []>(module: ServiceModule<S, R>): ServiceModule<S, R> {
  return module;
}

/** A module's unique keys: those it declares, and those of its resources' unique fields. */
export function moduleUniqueKeys(module: ServiceModule): UniqueKey[] {
  return [...(module.uniqueKeys ?? []), ...(module.resources ?? []).flatMap(uniqueKeysOf)];
}
