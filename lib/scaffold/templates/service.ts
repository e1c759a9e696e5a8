import type { ServiceSpec } from '../spec.js';
import { childModelTypes } from './child-service.js';
import { header, lines } from './code.js';

/** The model types every service file imports, in the order the sample writes them. */
export const modelTypes = (pascal: string) => [
  `${pascal}_CreateInput_Data`, `${pascal}_CreateOutput`, `${pascal}_ReadListInput_Criteria`, `${pascal}_ReadListOutput`,
  `${pascal}_PatchInput_Data`, `${pascal}_ReadOutput`, `${pascal}_UpdateInput_Data`, `${pascal}_UpdateOutput`,
];

/** The history's model types, which the interface and the proxy import besides the others. */
export const historyTypes = (pascal: string) => [`${pascal}_HistoryInput`, `${pascal}_HistoryOutput`];

/** The model types imported over a few lines, as the sample does; `extra` names go first, on a line of their own. */
export function modelTypesImport(spec: ServiceSpec, extra: string[] = []): string {
  const names = modelTypes(spec.pascal);
  return lines(
    'import type {',
    extra.length > 0 && `  ${extra.join(', ')},`,
    `  ${names.slice(0, 4).join(', ')},`,
    `  ${names.slice(4).join(', ')},`,
    `} from './${spec.kebab}-models.js';`,
  );
}

/** services/<name>/<name>-service.ts: the interface, which knows nothing of HTTP. */
export function serviceFile(spec: ServiceSpec): string {
  const { pascal, id, child } = spec;
  return lines(
    header(spec).trimEnd(),
    "import type { Output } from 'restlayer';",
    modelTypesImport(spec, [...(child ? childModelTypes(child) : []), ...historyTypes(pascal)]),
    '',
    `/** ${spec.human} records: read, list, create, update, patch, delete, history. It knows nothing of HTTP; problems go to the current ErrorList. */`,
    `export interface I${pascal}Service {`,
    `  read(${id}: number): Promise<Output<${pascal}_ReadOutput>>;`,
    `  readList(criteria: ${pascal}_ReadListInput_Criteria): Promise<Output<${pascal}_ReadListOutput[]>>;`,
    `  create(data: ${pascal}_CreateInput_Data): Promise<Output<${pascal}_CreateOutput>>;`,
    `  update(${id}: number, data: ${pascal}_UpdateInput_Data): Promise<Output<${pascal}_UpdateOutput>>;`,
    '  /** Changes only the fields `data` names (JSON merge patch); answers what update answers. */',
    `  patch(${id}: number, data: ${pascal}_PatchInput_Data): Promise<Output<${pascal}_UpdateOutput>>;`,
    `  delete(${id}: number): Promise<Output>;`,
    `  /** The record's change history, newest first; a deleted record's stays readable by holders of ${spec.kebab}.delete. */`,
    `  history(${id}: number, page?: ${pascal}_HistoryInput): Promise<Output<${pascal}_HistoryOutput[]>>;`,
    child && childMethods(spec),
    '}',
    '',
  );
}

/** The child collection's methods of the interface: each write answers the record's new totals and revision. */
export function childMethods(spec: ServiceSpec): string {
  const { id, child } = spec;
  if (!child) return '';
  const { pascal, short, plural } = child;
  const cid = child.id;
  const Plural = plural.charAt(0).toUpperCase() + plural.slice(1);
  return lines(
    '',
    `  /** The ${plural} of one ${spec.human.toLowerCase()}, by id; an unknown ${spec.human.toLowerCase()} is a 404. */`,
    `  read${Plural}(${id}: number): Promise<Output<${pascal}_ReadOutput[]>>;`,
    `  /** One ${child.segment}; one of another ${spec.human.toLowerCase()} is a 404, as an unknown id is. */`,
    `  read${short}(${id}: number, ${cid}: number): Promise<Output<${pascal}_ReadOutput>>;`,
    `  /** ${child.segment} writes take the ${spec.human.toLowerCase()}'s revisionNumber (a stale one is a 409) and bump it in the same transaction. */`,
    `  create${short}(${id}: number, data: ${pascal}_CreateInput_Data): Promise<Output<${pascal}_WriteOutput>>;`,
    `  update${short}(${id}: number, ${cid}: number, data: ${pascal}_UpdateInput_Data): Promise<Output<${pascal}_WriteOutput>>;`,
    `  patch${short}(${id}: number, ${cid}: number, data: ${pascal}_PatchInput_Data): Promise<Output<${pascal}_WriteOutput>>;`,
    `  delete${short}(${id}: number, ${cid}: number, revisionNumber?: number | null): Promise<Output<${pascal}_WriteOutput>>;`,
  );
}
