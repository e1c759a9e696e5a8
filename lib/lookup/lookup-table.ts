import { type Struct, boolean, number, string, type, union } from 'superstruct';
import { array, text } from '../validation/fields.js';

export interface LookupItem {
  id: string | number;
  text: string;
  isActive: boolean;
  attributes: Record<string, unknown>;
}

export interface LookupTable {
  type: string;
  caseSensitive: boolean;
  data: LookupItem[];
}

export type LookupLoader = () => Promise<LookupTable>;

const idMembers: [Struct<number, null>, Struct<string, null>] = [number(), string()];
/** superstruct's union keeps its members to itself (schema null); they are set on it for the OpenAPI document. */
const LookupId = Object.assign(union(idMembers), { schema: idMembers });

/** A lookup table as `GET /lookup-table/{type}` answers it (ids are numbers or strings; attributes are free). */
export const LookupTableResult = type({
  type: text(),
  caseSensitive: boolean(),
  data: array(type({ id: LookupId, text: text(), isActive: boolean(), attributes: type({}) })),
});
