/**
 * A route file's text, as the scaffold and `migration make` write it: the verbs of one path, each the declaration's
 * handler (`export const { GET, POST } = invoice.routes.collection;`), under a first line saying what made it.
 */
export function routeFileText(madeBy: string, camel: string, from: string, group: string, verbs: string): string {
  return [madeBy, `import { ${camel} } from '${from}';`, '', routeExports(camel, group, verbs), ''].join('\n');
}

/** The route file's one statement. */
export const routeExports = (camel: string, group: string, verbs: string) => `export const { ${verbs} } = ${camel}.routes.${group};`;
