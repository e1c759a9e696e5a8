import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type ts from 'typescript';
import type { ServiceModule } from '../modules.js';
import type { ResourceModel } from '../resources/model.js';
import { type ProjectLayout, serviceFile } from './layout.js';
import { type Edit, appendItems, applyEdits } from './source-edits.js';

const nameOf = (p: ts.ObjectLiteralElementLike) => (p.name && 'text' in p.name ? p.name.text : undefined);

/**
 * A proxy file whose address (`resourceProxy<typeof invoice>({ … })`) lacks what the declaration now serves: an
 * action (`actions: { pay: true }`) or soft delete's restore (`softDelete: true`). The compiler asks for both (the
 * address is checked against the declaration); `migration make` adds them, so that an action is added in the
 * declaration alone. Answers the new text and what it added, or undefined when there is nothing to add or no such
 * call to add it to.
 */
export function proxyAddressEdits(typescript: typeof ts, source: string, model: ResourceModel): { text: string; added: string[] } | undefined {
  const parsed = typescript.createSourceFile('proxy.ts', source, typescript.ScriptTarget.Latest, true, typescript.ScriptKind.TS);
  let address: ts.ObjectLiteralExpression | undefined;
  const visit = (node: ts.Node) => {
    if (typescript.isCallExpression(node) && typescript.isIdentifier(node.expression) && node.expression.text === 'resourceProxy'
      && node.typeArguments?.[0].getText(parsed) === `typeof ${model.camel}` && node.arguments[0] && typescript.isObjectLiteralExpression(node.arguments[0])) {
      address = node.arguments[0];
    }
    typescript.forEachChild(node, visit);
  };
  visit(parsed);
  if (!address) return undefined;
  const edits: Edit[] = [];
  const added: string[] = [];
  const properties: string[] = [];
  const actions = Object.keys(model.actions);
  const given = address.properties.find((p) => nameOf(p) === 'actions');
  if (actions.length && !given) {
    properties.push(`actions: { ${actions.map((a) => `${a}: true`).join(', ')} }`);
    added.push(...actions.map((a) => `actions.${a}`));
  } else if (given && typescript.isPropertyAssignment(given) && typescript.isObjectLiteralExpression(given.initializer)) {
    const listed = given.initializer;
    const missing = actions.filter((a) => !listed.properties.some((p) => nameOf(p) === a));
    if (missing.length) edits.push(...appendItems(source, parsed, listed, listed.properties, missing.map((a) => `${a}: true`), ' '));
    added.push(...missing.map((a) => `actions.${a}`));
  }
  if (model.softDelete && !address.properties.some((p) => nameOf(p) === 'softDelete')) {
    properties.push('softDelete: true');
    added.push('softDelete');
  }
  if (properties.length) edits.push(...appendItems(source, parsed, address, address.properties, properties, ' '));
  return edits.length ? { text: applyEdits(source, edits), added } : undefined;
}

/** A proxy file `migration make` brought in line with its declaration, and what it added (or why it could not). */
export interface ProxyUpdate {
  readonly file: string;
  readonly added: readonly string[];
  readonly skipped?: string;
}

/** The TypeScript compiler, loaded only when there is a proxy file to read; undefined where it is not installed. */
async function typescriptCompiler(): Promise<typeof ts | undefined> {
  try {
    return (await import('typescript')).default;
  } catch {
    return undefined;
  }
}

/**
 * The scaffold's proxy files (`<services>/<module>/<name>-proxy.ts`) whose address lacks an action or restore the
 * declaration serves, brought in line (with `check`, only found). The compiler is loaded only when there is a file.
 */
export async function updateProxyFiles(modules: readonly ServiceModule[], root: string, layout: ProjectLayout, check = false): Promise<ProxyUpdate[]> {
  const updates: ProxyUpdate[] = [];
  let typescript: typeof ts | undefined;
  for (const module of modules) {
    for (const { model } of module.resources ?? []) {
      const file = serviceFile(layout, module.name, `${model.name}-proxy`);
      if (!existsSync(join(root, file))) continue;
      typescript ??= await typescriptCompiler();
      if (!typescript) return [{ file, added: [], skipped: 'the typescript package is not installed, so proxy files cannot be edited safely: add the actions and softDelete the declarations serve to their addresses by hand' }];
      const edit = proxyAddressEdits(typescript, readFileSync(join(root, file), 'utf8'), model);
      if (!edit) continue;
      if (!check) writeFileSync(join(root, file), edit.text);
      updates.push({ file, added: edit.added });
    }
  }
  return updates;
}
