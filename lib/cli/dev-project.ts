import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import type ts from 'typescript';
import { CliError } from './cli-error.js';

/** The TypeScript compiler API, as the project's own `typescript` package has it. */
export type TypeScript = typeof ts;

/**
 * The project's own TypeScript (its devDependency), never one of restlayer's: the dev loop must compile exactly as the
 * project's `tsc` does, with its version and its settings.
 */
export function projectTypeScript(root: string): TypeScript {
  try {
    return createRequire(join(root, 'package.json'))('typescript') as TypeScript;
  } catch {
    throw new CliError(`the dev loop compiles with the project's TypeScript, and ${root} has none: npm install --save-dev typescript`);
  }
}

/** Writes `text` to `file` unless it holds exactly that already; answers whether it wrote. */
export function writeIfChanged(file: string, text: string): boolean {
  if (existsSync(file) && readFileSync(file, 'utf8') === text) return false;
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
  return true;
}

/** A compilable source: TypeScript, not a declaration file. */
export const isSource = (file: string) => /\.(c|m)?tsx?$/.test(file) && !/\.d\.(c|m)?ts$/.test(file);

/**
 * The project's tsconfig read as `tsc -p` reads it, and the quick way to its output: each source file transpiled on
 * its own (TypeScript's transpileModule, the emitter tsc uses, so the JavaScript is byte for byte tsc's own but for
 * what needs other files to decide, such as a const enum of a package). The full compile that runs beside it
 * (dev-checker.ts) writes tsc's exact output afterwards, and where it differs the server restarts again.
 */
export class DevProject {
  private parsed: ts.ParsedCommandLine;
  private sources: Set<string>;
  private readonly moduleTypes = new Map<string, boolean>();

  constructor(readonly ts: TypeScript, readonly configFile: string) {
    this.parsed = this.parse();
    this.sources = new Set(this.parsed.fileNames.filter(isSource));
  }

  private parse(): ts.ParsedCommandLine {
    const { ts } = this;
    const problems: string[] = [];
    const host = { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (d: ts.Diagnostic) => problems.push(ts.flattenDiagnosticMessageText(d.messageText, ' ')) };
    const parsed = ts.getParsedCommandLineOfConfigFile(this.configFile, {}, host);
    const errors = [...problems, ...(parsed?.errors ?? []).map((d) => ts.flattenDiagnosticMessageText(d.messageText, ' '))];
    if (!parsed || errors.length) throw new CliError(`${this.configFile}: ${errors.join('; ') || 'cannot be read'}`);
    if (parsed.options.noEmit) throw new CliError(`${this.configFile} says noEmit: the dev loop serves what tsc emits, so it needs a tsconfig that emits (outDir)`);
    return parsed;
  }

  /** The folders tsc watches for sources (the tsconfig's include patterns), with whether below them too. */
  get watchedFolders(): { folder: string; recursive: boolean }[] {
    return Object.entries(this.parsed.wildcardDirectories ?? {}).map(([folder, flags]) => ({
      folder, recursive: (flags & this.ts.WatchDirectoryFlags.Recursive) !== 0,
    }));
  }

  /** Whether `file` (absolute) is one of the project's sources; a new file makes the tsconfig be read again. */
  isProjectSource(file: string): boolean {
    if (!isSource(file)) return false;
    if (this.sources.has(file)) return true;
    if (!existsSync(file)) return false;
    this.parsed = this.parse();
    this.sources = new Set(this.parsed.fileNames.filter(isSource));
    return this.sources.has(file);
  }

  /** Where tsc writes its output (absolute), when the tsconfig says. */
  get outDir(): string | undefined {
    return this.parsed.options.outDir;
  }

  /** Every source of the project. */
  get sourceFiles(): string[] {
    return [...this.sources];
  }

  /** The JavaScript, source map and declaration files tsc writes for `source`. */
  outputsOf(source: string): readonly string[] {
    return this.ts.getOutputFileNames(this.parsed, source, !this.ts.sys.useCaseSensitiveFileNames);
  }

  /** The JavaScript file tsc writes for `source`. */
  javaScriptOf(source: string): string | undefined {
    return this.outputsOf(source).find((f) => /\.(c|m)?js$/.test(f));
  }

  /**
   * Transpiles `source` into its JavaScript (and source map) where tsc puts them; answers whether the JavaScript
   * changed (a change of types alone, or of whitespace, changes none, and needs no restart).
   */
  transpile(source: string): boolean {
    const { ts } = this;
    const js = this.javaScriptOf(source);
    if (!js) return false;
    const options: ts.CompilerOptions = { ...this.parsed.options, ...this.moduleOptions(source) };
    const out = ts.transpileModule(readFileSync(source, 'utf8'), { compilerOptions: options, fileName: source });
    const changed = writeIfChanged(js, out.outputText);
    const map = this.outputsOf(source).find((f) => f === `${js}.map`);
    if (map && out.sourceMapText) writeIfChanged(map, out.sourceMapText);
    return changed;
  }

  /** Removes what tsc wrote for a source that is gone, so that its route or module stops being served. */
  removeOutputs(source: string): boolean {
    const outputs = this.outputsOf(source).filter((f) => existsSync(f));
    for (const file of outputs) rmSync(file);
    this.sources.delete(source);
    return outputs.length > 0;
  }

  /**
   * transpileModule reads no package.json: under module NodeNext/Node16 a file's format (ES module or CommonJS) is
   * given here as tsc decides it, by its extension and the nearest package.json's "type".
   */
  private moduleOptions(source: string): ts.CompilerOptions {
    const { ts } = this;
    const kind = this.parsed.options.module;
    if (kind !== ts.ModuleKind.Node16 && kind !== ts.ModuleKind.NodeNext && kind !== ts.ModuleKind.Node18) return {};
    const esm = /\.mts$/.test(source) || (!/\.cts$/.test(source) && this.isModuleFolder(dirname(source)));
    return esm
      ? { module: ts.ModuleKind.ESNext, moduleResolution: ts.ModuleResolutionKind.Bundler }
      : { module: ts.ModuleKind.CommonJS, moduleResolution: ts.ModuleResolutionKind.Node10 };
  }

  /** Whether the nearest package.json above `folder` says "type": "module". */
  private isModuleFolder(folder: string): boolean {
    const known = this.moduleTypes.get(folder);
    if (known !== undefined) return known;
    const file = join(folder, 'package.json');
    let esm: boolean;
    if (existsSync(file)) {
      try {
        esm = (JSON.parse(readFileSync(file, 'utf8')) as { type?: string }).type === 'module';
      } catch {
        esm = false;
      }
    } else {
      const parent = resolve(folder, '..');
      esm = parent !== folder && this.isModuleFolder(parent);
    }
    this.moduleTypes.set(folder, esm);
    return esm;
  }
}
