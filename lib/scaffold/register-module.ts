import type ts from 'typescript';
import { ScaffoldError } from './scaffold-error.js';
import { type Edit, appendItems, applyEdits } from './source-edits.js';

export interface Registration {
  /** services/index.ts after the edit (unchanged when the module was listed already). */
  text: string;
  /** What changed, one line each, for the command to print. */
  changes: string[];
}

const byHand = (file: string, name: string, from: string, why: string, kind: ScaffoldError['kind'] = 'conflict') =>
  new ScaffoldError(`${file}: ${why}; add \`import { ${name} } from '${from}';\` and ${name} to its modules list by hand`, kind);

/** `[...] as const`, `[...] satisfies X`, `([...])`: the array literal inside. */
function arrayOf(typescript: typeof ts, node: ts.Expression | undefined): ts.ArrayLiteralExpression | undefined {
  let current = node;
  while (current && (typescript.isAsExpression(current) || typescript.isSatisfiesExpression(current) || typescript.isParenthesizedExpression(current))) {
    current = current.expression;
  }
  return current && typescript.isArrayLiteralExpression(current) ? current : undefined;
}

/**
 * Adds a module to the application's list in services/index.ts: an import after the last import, and the name at the
 * end of `export const modules = [...]`. The file is read with the TypeScript parser, so the list may span lines, hold
 * comments or end with a comma; a file without exactly one such array literal is left alone, with what to do by hand.
 * The compiler is loaded here only: no other command pays for it.
 */
export async function registerModule(source: string, name: string, from: string, file = 'services/index.ts'): Promise<Registration> {
  let typescript: typeof ts;
  try {
    typescript = (await import('typescript')).default;
  } catch {
    throw byHand(file, name, from, 'the typescript package is not installed, so the file cannot be edited safely');
  }
  const parsed = typescript.createSourceFile('index.ts', source, typescript.ScriptTarget.Latest, true, typescript.ScriptKind.TS);

  const list = modulesList(typescript, parsed, file, name, from);

  const edits: Edit[] = [];
  const changes: string[] = [];
  const imports = parsed.statements.filter(typescript.isImportDeclaration);
  const imported = imports.some((i) => {
    const bindings = i.importClause?.namedBindings;
    return bindings !== undefined && typescript.isNamedImports(bindings) && bindings.elements.some((e) => e.name.text === name);
  });
  if (!imported) {
    const line = `import { ${name} } from '${from}';`;
    const last = imports.at(-1);
    edits.push(last ? { at: last.end, insert: `\n${line}` } : { at: 0, insert: `${line}\n` });
    changes.push(`added ${line}`);
  }

  const elements = list.elements;
  if (!elements.some((e) => typescript.isIdentifier(e) && e.text === name)) {
    edits.push(...appendItems(source, parsed, list, elements, [name]));
    changes.push(`added ${name} to modules`);
  }

  const text = applyEdits(source, edits);
  if (changes.length) checkRegistered(typescript, text, file, name, from);
  return { text, changes };
}

/** The one `modules` array literal of the file, or why it cannot be edited. */
function modulesList(typescript: typeof ts, parsed: ts.SourceFile, file: string, name: string, from: string): ts.ArrayLiteralExpression {
  const lists = parsed.statements.filter(typescript.isVariableStatement).flatMap((statement) =>
    statement.declarationList.declarations.filter((d) => typescript.isIdentifier(d.name) && d.name.text === 'modules'));
  if (lists.length !== 1) throw byHand(file, name, from, lists.length ? 'it declares `modules` more than once' : 'it declares no `modules` list');
  const list = arrayOf(typescript, lists[0].initializer);
  if (!list) throw byHand(file, name, from, '`modules` is not an array literal');
  return list;
}

/**
 * The edited file, parsed again: it must be valid TypeScript that imports the module and lists it. An edit placed by
 * lines can land inside a comment (`customerModule, /* once:` … `*\/` after the last element) and register nothing;
 * such a file is not written, and the command fails as for arguments it cannot carry out.
 */
function checkRegistered(typescript: typeof ts, text: string, file: string, name: string, from: string): void {
  const refuse = (why: string) => byHand(file, name, from, `${why}, so it is left as it was`, 'usage');
  const { diagnostics = [] } = typescript.transpileModule(text, { reportDiagnostics: true, fileName: 'index.ts' });
  if (diagnostics.length) throw refuse('the edit would not parse');
  const parsed = typescript.createSourceFile('index.ts', text, typescript.ScriptTarget.Latest, true, typescript.ScriptKind.TS);
  const imported = parsed.statements.filter(typescript.isImportDeclaration).some((i) => {
    const bindings = i.importClause?.namedBindings;
    return bindings !== undefined && typescript.isNamedImports(bindings) && bindings.elements.some((e) => e.name.text === name);
  });
  const listed = modulesList(typescript, parsed, file, name, from).elements.some((e) => typescript.isIdentifier(e) && e.text === name);
  if (!imported || !listed) {
    throw refuse(`the edit would leave ${name} ${imported ? 'out of the modules list' : 'not imported'} (a comment where the list or the imports end?)`);
  }
}
