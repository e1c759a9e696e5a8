import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { parse } from 'jsonc-parser';

/** Set by `restlayer dev` for the server it runs: the dev loop keeps the build current itself. */
export const DEV_LOOP_VARIABLE = 'RESTLAYER_DEV_LOOP';

interface TsConfig {
  include?: string[];
  compilerOptions?: { outDir?: string; tsBuildInfoFile?: string; incremental?: boolean; composite?: boolean };
}

interface BuildInfo {
  fileNames?: string[];
  fileInfos?: (string | { version?: string })[];
}

/** Every file below `dir` that `keep` accepts, leaving out node_modules and `skip`. */
function filesBelow(dir: string, skip: string, keep: (name: string) => boolean, out: string[] = []): string[] {
  if (!existsSync(dir)) return out;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name);
    if (entry.name === 'node_modules' || full === skip) continue;
    if (entry.isDirectory()) filesBelow(full, skip, keep, out);
    else if (keep(entry.name)) out.push(full);
  }
  return out;
}

const isSource = (name: string) => /\.(c|m)?tsx?$/.test(name) && !/\.d\.(c|m)?ts$/.test(name);
const mtime = (file: string) => statSync(file).mtimeMs;

/**
 * Sources that a build (tsc's incremental build info) records with the same content: a file only touched, or saved
 * unchanged, is not newer than the build. The build info is tsc's and its format may change: read as a hint only, and
 * when it cannot be read every newer file counts.
 */
function unchangedSince(buildInfo: string): (file: string) => boolean {
  let versions = new Map<string, string>();
  try {
    const info = JSON.parse(readFileSync(buildInfo, 'utf8')) as BuildInfo;
    const base = dirname(buildInfo);
    versions = new Map((info.fileNames ?? []).flatMap((name, i) => {
      const entry = info.fileInfos?.[i];
      const version = typeof entry === 'string' ? entry : entry?.version;
      return version ? [[resolve(base, name), version] as [string, string]] : [];
    }));
  } catch {
    /* every newer file counts */
  }
  return (file) => versions.get(file) === createHash('sha256').update(readFileSync(file, 'utf8')).digest('hex');
}

/**
 * When the project in `root` is built by tsc (a tsconfig.json with an outDir) and a source changed after the last
 * build, the server would serve the old code without a word: this answers the warning to print (undefined when the
 * build is current, or when there is nothing to compare, as in a deployment that ships the build alone).
 */
export function staleBuildWarning(root: string): string | undefined {
  const configFile = join(root, 'tsconfig.json');
  if (!existsSync(configFile)) return undefined;
  const config = parse(readFileSync(configFile, 'utf8')) as TsConfig | undefined;
  const outDir = config?.compilerOptions?.outDir && resolve(root, config.compilerOptions.outDir);
  if (!outDir || !existsSync(outDir)) return undefined;
  // The folders the include patterns start from (`src/**/*` is below src): the sources are there.
  const folders = [...new Set((config.include ?? ['.']).map((pattern) => resolve(root, pattern.split(/[*?{[]/)[0] || '.')))];
  const sources = folders.flatMap((folder) => (existsSync(folder) && statSync(folder).isFile() ? [folder] : filesBelow(folder, outDir, isSource)));
  const { tsBuildInfoFile } = config.compilerOptions ?? {};
  const buildInfo = tsBuildInfoFile ? resolve(root, tsBuildInfoFile) : join(outDir, 'tsconfig.tsbuildinfo');
  // The build's time: its build info, else its newest JavaScript (any edit after it is not in the build).
  const built = existsSync(buildInfo)
    ? mtime(buildInfo)
    : Math.max(0, ...filesBelow(outDir, '', (name) => /\.(c|m)?js$/.test(name)).map(mtime));
  if (!built) return undefined;
  const newer = sources.filter((file) => mtime(file) > built);
  const unchanged = newer.length && existsSync(buildInfo) ? unchangedSince(buildInfo) : () => false;
  const changed = newer.filter((file) => !unchanged(file));
  if (!changed.length) return undefined;
  const named = relative(root, changed[0]).split(sep).join('/');
  return `the build in ${relative(root, outDir) || '.'} is older than its sources (${named}${changed.length > 1 ? ` and ${changed.length - 1} more` : ''} changed since): `
    + 'this serves the code as last built; build first (npm run build), or serve with npm run dev, which rebuilds on every change';
}
