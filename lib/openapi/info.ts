import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { AppConfig } from '../config/schema.js';

/** The `info` of the OpenAPI document: the application's name, not the layer's. */
export interface ApiInfo {
  title: string;
  version: string;
  description?: string;
  /** The application's package.json `license`: an SPDX expression, or a text such as `SEE LICENSE IN ...`. */
  license?: string;
}

/** What an application without a package.json and without settings is called. */
export const UNNAMED_API: ApiInfo = { title: 'API', version: '0.0.0' };

interface PackageJson {
  name?: unknown;
  version?: unknown;
  description?: unknown;
  license?: unknown;
}

const text = (value: unknown) => (typeof value === 'string' && value.trim() ? value.trim() : undefined);

/**
 * The nearest package.json at or above `dir`: the application's own when the server runs from its project (`npx
 * restlayer serve`, `node dist/app.js` in the project folder). restlayer's package.json inside node_modules is never
 * above a project's folder, so a dependent project is never named after the layer.
 */
function nearestPackageJson(dir: string): PackageJson | undefined {
  for (let at = dir; ; at = dirname(at)) {
    try {
      return JSON.parse(readFileSync(join(at, 'package.json'), 'utf8')) as PackageJson;
    } catch (err) {
      // A package.json that is not JSON names nothing; one that is missing sends the search a folder up.
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') return undefined;
    }
    if (dirname(at) === at) return undefined;
  }
}

/** The settings RestAPI:Title, Version and Description, each falling back to the application's package.json. */
export function apiInfo(config: { RestAPI: Pick<AppConfig['RestAPI'], 'Title' | 'Version' | 'Description'> }, dir = process.cwd()): ApiInfo {
  const found = nearestPackageJson(dir) ?? {};
  const info: ApiInfo = {
    title: text(config.RestAPI.Title) ?? text(found.name) ?? UNNAMED_API.title,
    version: text(config.RestAPI.Version) ?? text(found.version) ?? UNNAMED_API.version,
  };
  const description = text(config.RestAPI.Description) ?? text(found.description);
  if (description) info.description = description;
  const license = text(found.license);
  if (license) info.license = license;
  return info;
}
