import { upperFirst } from '../names.js';
import type { ChildSpec, ServiceSpec } from '../spec.js';
import { lines, resultStructOf, structOf } from './code.js';

/** The models of the child collection, appended to the parent's models file (they share `id()` and `revision`). */
export function childModels(spec: ServiceSpec, child: ChildSpec): string {
  const { pascal, camel } = child;
  const parent = spec.human.toLowerCase();
  return lines(
    '',
    `/** The fields of ${aChild(child)}, as create and update take them. */`,
    `const ${camel}Fields = {`,
    ...child.fields.map((f) => `  ${f.name}: ${structOf(f)},`),
    '};',
    '',
    `/** One ${child.segment} of ${anOf(parent)} (\`${pascal}_ReadOutput\`); optional properties are absent when empty. */`,
    `export const ${pascal}Read = model({`,
    `  ${child.id}: id(),`,
    ...child.fields.map((f) => `  ${f.name}: ${resultStructOf(f)},`),
    '});',
    `export type ${pascal}_ReadOutput = Infer<typeof ${pascal}Read>;`,
    '',
    `/** ${upperFirst(aChild(child))} inside the body of the ${parent}'s POST: \`${child.plural}[2].${child.fields[0].name}\` names a problem in the third. */`,
    `export const ${pascal}ItemData = model(${camel}Fields);`,
    '',
    `/** The body of POST and PUT of one ${child.segment}; \`revisionNumber\` is the ${parent}'s, checked as for the ${parent}'s own PUT. */`,
    `export const ${pascal}UpdateData = model({ ...${camel}Fields, revisionNumber: maybe(id()) });`,
    `export type ${pascal}_UpdateInput_Data = Infer<typeof ${pascal}UpdateData>;`,
    `export const ${pascal}CreateData = ${pascal}UpdateData;`,
    `export type ${pascal}_CreateInput_Data = ${pascal}_UpdateInput_Data;`,
    `export const ${pascal}PatchData = patchModel(${pascal}UpdateData);`,
    `export type ${pascal}_PatchInput_Data = PatchOf<${pascal}_UpdateInput_Data>;`,
    '',
    `/** What ${aChild(child)} write answers: the ${child.segment}'s id (create), the ${parent}'s new totals and revision. */`,
    `export const ${pascal}WriteResult = model({`,
    `  ${child.id}: optional(id()),`,
    ...child.totals.map((t) => `  ${t.name}: money(),`),
    '  ...revision,',
    '});',
    `export type ${pascal}_WriteOutput = Infer<typeof ${pascal}WriteResult>;`,
    '',
    `/** The query of ${aChild(child)}'s DELETE: the ${parent}'s revisionNumber, checked as a PUT's is (\`?revisionNumber=3\`). */`,
    `const ${pascal}DeleteParams = model({ revisionNumber: maybe(id()) });`,
    `export const ${pascal}DeleteQuery: QuerySchema<Infer<typeof ${pascal}DeleteParams>> = modelQuery(${pascal}DeleteParams);`,
    '',
    `/** The route parameters naming one ${child.segment} of one ${parent}. */`,
    `export const ${pascal}Key = model({ ${spec.idParam}: id(), ${child.idParam}: id() });`,
  );
}

/** `an invoice`, `a purchase order`: the indefinite article by the first letter. */
export const anOf = (noun: string) => `${/^[aeiou]/i.test(noun) ? 'an' : 'a'} ${noun}`;

/** `a line`, `an entry`. */
export const aChild = (child: ChildSpec) => anOf(child.segment.replace(/-/g, ' '));
