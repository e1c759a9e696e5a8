import type { ServiceSpec } from '../spec.js';
import { header, lines } from './code.js';

/** The model types every service file imports, in the order the sample writes them. */
export const modelTypes = (pascal: string) => [
  `${pascal}_CreateInput_Data`, `${pascal}_CreateOutput`, `${pascal}_ReadListInput_Criteria`, `${pascal}_ReadListOutput`,
  `${pascal}_PatchInput_Data`, `${pascal}_ReadOutput`, `${pascal}_UpdateInput_Data`, `${pascal}_UpdateOutput`,
];

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
  const { pascal, id } = spec;
  return lines(
    header(spec).trimEnd(),
    "import type { Output } from 'restlayer';",
    modelTypesImport(spec),
    '',
    `/** ${spec.human} records: read, list, create, update, patch, delete. It knows nothing of HTTP; problems go to the current ErrorList. */`,
    `export interface I${pascal}Service {`,
    `  read(${id}: number): Promise<Output<${pascal}_ReadOutput>>;`,
    `  readList(criteria: ${pascal}_ReadListInput_Criteria): Promise<Output<${pascal}_ReadListOutput[]>>;`,
    `  create(data: ${pascal}_CreateInput_Data): Promise<Output<${pascal}_CreateOutput>>;`,
    `  update(${id}: number, data: ${pascal}_UpdateInput_Data): Promise<Output<${pascal}_UpdateOutput>>;`,
    '  /** Changes only the fields `data` names (JSON merge patch); answers what update answers. */',
    `  patch(${id}: number, data: ${pascal}_PatchInput_Data): Promise<Output<${pascal}_UpdateOutput>>;`,
    `  delete(${id}: number): Promise<Output>;`,
    '}',
    '',
  );
}
