/**
 * The type check beside the dev loop, in a process of its own (started by dev.ts at a lower CPU priority, so that a
 * restart of the server never waits for it): `tsc --watch` through TypeScript's API, with tsc's incremental build
 * info, reporting its errors as tsc does. It writes only files whose content changed, and tells the dev loop which
 * JavaScript files those were, so that the server restarts when tsc's output differs from the quick transpile.
 *
 * Run as `node dev-checker.js <project folder> <tsconfig>`, with an IPC channel to its parent.
 */
import { isAbsolute, join } from 'node:path';
import type { Diagnostic, FormatDiagnosticsHost } from 'typescript';
import { projectTypeScript, writeIfChanged } from './dev-project.js';

export interface CheckerReport {
  type: 'checked';
  errors: number;
  /** JavaScript files this check wrote with a content that differed. */
  changed: string[];
}

const [root, config] = process.argv.slice(2);
const ts = projectTypeScript(root);
let changed: string[] = [];

const system: typeof ts.sys = {
  ...ts.sys,
  writeFile(path, data, writeByteOrderMark) {
    const text = writeByteOrderMark ? `\uFEFF${data}` : data;
    if (writeIfChanged(path, text) && /\.(c|m)?js$/.test(path)) changed.push(path);
  },
};
const pretty = process.stdout.isTTY === true;
const formatHost: FormatDiagnosticsHost = {
  getCanonicalFileName: (name) => name, getCurrentDirectory: () => root, getNewLine: () => '\n',
};
const reportDiagnostic = (diagnostic: Diagnostic) => process.stdout.write(pretty
  ? ts.formatDiagnosticsWithColorAndContext([diagnostic], formatHost)
  : ts.formatDiagnostic(diagnostic, formatHost));
const host = ts.createWatchCompilerHost(
  isAbsolute(config) ? config : join(root, config), { preserveWatchOutput: true }, system,
  ts.createEmitAndSemanticDiagnosticsBuilderProgram, reportDiagnostic,
  (diagnostic, _newLine, _options, errorCount) => {
    // Only the end of a compile is worth a line: the dev loop says what it means for the server.
    if (errorCount === undefined) return;
    process.send?.({ type: 'checked', errors: errorCount, changed } satisfies CheckerReport);
    changed = [];
    void diagnostic;
  },
);
ts.createWatchProgram(host);
// The dev loop ending (its IPC channel closing) ends the check too.
process.on('disconnect', () => process.exit(0));
