import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/**
 * A package restlayer uses for one feature only, which the project installs when it uses that feature (package.json
 * lists it among the optional peer dependencies): the PostgreSQL driver, the Redis client, OpenTelemetry, the
 * docs page's assets, pretty log lines. Loaded on first use, so a project without it never pays for it; missing,
 * it is an error that says what to install.
 */
export class MissingPackage extends Error {
  constructor(readonly packageName: string, feature: string) {
    super(`${feature} needs the package ${packageName}, which is not installed: npm install ${packageName}`);
    this.name = 'MissingPackage';
  }
}

/** Whether `name` is installed where restlayer can load it. */
export function hasPackage(name: string): boolean {
  try {
    require.resolve(name);
    return true;
  } catch {
    return false;
  }
}

/** The CommonJS package `name`, loaded now; `feature` says what needs it when it is missing. */
export function requireOptional<T>(name: string, feature: string): T {
  try {
    return require(name) as T;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'MODULE_NOT_FOUND' && !hasPackage(name)) throw new MissingPackage(name, feature);
    throw err;
  }
}

/** The package `name` (ES module or CommonJS), imported now; `feature` says what needs it when it is missing. */
export async function importOptional<T>(name: string, feature: string): Promise<T> {
  try {
    return (await import(name)) as T;
  } catch (err) {
    // Only the package itself missing: a module it fails to load is its own error, reported as is.
    if ((err as NodeJS.ErrnoException).code === 'ERR_MODULE_NOT_FOUND' && (err as Error).message.includes(`'${name}'`)) throw new MissingPackage(name, feature);
    throw err;
  }
}
