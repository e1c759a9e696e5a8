import { type Struct, array, is, string, type } from 'superstruct';
import { ISO_DATE, type LeafRules } from '../validation/fields.js';
import type { MoneyRules } from '../validation/money.js';

/** A JSON Schema (2020-12, the dialect of OpenAPI 3.1) as plain data. */
export type JsonSchema = { [key: string]: unknown };

type AnyStruct = Struct<any, any>;

/**
 * Which side of the wire a schema describes. The server reads more date forms than it writes: `format: date-time`
 * (RFC 3339) demands a time and an offset, so validators built from it would refuse `2024-01-01`, which the server
 * takes. Inputs are declared by the pattern the server itself parses with (every validator honours `pattern`; many
 * ignore `format`); outputs, always written as `toISOString()`, stay `date-time`.
 */
export type Direction = 'input' | 'output';

export const DATE_SCHEMA: Record<Direction, JsonSchema> = {
  input: {
    type: 'string', pattern: ISO_DATE.source, examples: ['2024-01-01', '2024-01-01T14:30', '2024-01-01T14:30:00.000+02:00'],
    description: 'ISO 8601. A date without a time is midnight UTC; a time without an offset is UTC.',
  },
  output: { type: 'string', format: 'date-time' },
};

/**
 * An amount (`money()`): a JSON number with its range, and its scale and precision as the extensions `x-scale` and
 * `x-precision`. No `format`: `decimal` (of the OpenAPI format registry) made strict validators refuse every answer
 * with an amount (Postman's ajv 6 throws on a format it does not know), and a `number` without a format is what
 * generators for languages with a decimal type already map to it (openapi-generator: BigDecimal, C# decimal). Not
 * `multipleOf: 0.0001`: validators test it in binary floating point, where 0.3 is no multiple of 0.0001, and would
 * refuse amounts the server takes.
 */
export function moneySchema(rules: MoneyRules): JsonSchema {
  return {
    type: 'number', minimum: rules.min, maximum: rules.max, 'x-scale': rules.scale, 'x-precision': rules.precision,
    // An example within the range: without one, a docs page's "try it" fills in the maximum, and amounts a total is
    // derived from then overflow it (400 Amount_TooLarge on a body the page itself made).
    examples: [Math.min(Math.max(0, rules.min), rules.max)],
    description: `An exact amount: at most ${rules.scale} digits after the decimal point, as a JSON number.`,
  };
}

const accepts = (struct: AnyStruct, value: unknown) => is(value, struct);

/** The limits a leaf of lib/validation/fields.ts keeps on its struct (never read back from its messages' texts). */
const rulesOf = (struct: AnyStruct): LeafRules => (struct.schema ?? {}) as LeafRules;

/**
 * A leaf of lib/validation/fields.ts as JSON Schema, from the rules it keeps on its struct (`schema`): the very
 * values its validator applies, so the document never claims a limit the server does not apply, whatever its
 * messages say.
 */
function leafSchema(struct: AnyStruct, direction: Direction): JsonSchema | undefined {
  switch (struct.type) {
    case 'integer': {
      const { min, max } = rulesOf(struct);
      return { type: 'integer', ...(min !== undefined ? { minimum: min } : {}), ...(max !== undefined ? { maximum: max } : {}) };
    }
    case 'decimal':
    case 'number':
      return { type: 'number' };
    case 'money':
      return moneySchema(struct.schema as MoneyRules);
    case 'string':
      return { type: 'string' };
    case 'boolean':
      return { type: 'boolean' };
    case 'date':
      return { ...DATE_SCHEMA[direction] };
    case 'text': {
      const { minLength, maxLength } = rulesOf(struct);
      // A required text refuses "" (text({ min: 1 })).
      return { type: 'string', ...(minLength !== undefined ? { minLength } : {}), ...(maxLength !== undefined ? { maxLength } : {}) };
    }
    case 'oneOf': {
      const { values } = rulesOf(struct);
      return values ? { type: 'string', enum: [...values] } : { type: 'string' };
    }
    default:
      return undefined;
  }
}

function withNull(schema: JsonSchema): JsonSchema {
  if (typeof schema.type === 'string') return { ...schema, type: [schema.type, 'null'] };
  return { anyOf: [schema, { type: 'null' }] };
}

/** Whether a property may be left out (`optional`, `maybe`). */
export function isOptional(struct: AnyStruct): boolean {
  return accepts(struct, undefined);
}

/**
 * The JSON Schema of a route input struct: the leaves of lib/validation/fields.ts (integer, decimal, boolean, date,
 * text, oneOf), `model` (an object: required properties, no others; names match case-insensitively on the wire),
 * `array`, and the wrappers `optional` (not required) and `maybe` (optional and nullable). superstruct keeps the
 * inner type's name on `optional`/`nullable`, so those are recognised by what the struct accepts.
 */
export function structSchema(struct: AnyStruct, direction: Direction = 'output'): JsonSchema {
  let schema: JsonSchema;
  if (struct.type === 'object' && struct.schema && typeof struct.schema === 'object') {
    const entries = Object.entries(struct.schema as Record<string, AnyStruct>);
    schema = {
      type: 'object',
      properties: Object.fromEntries(entries.map(([name, child]) => [name, structSchema(child, direction)])),
      additionalProperties: false,
    };
    const required = entries.filter(([, child]) => !isOptional(child)).map(([name]) => name);
    if (required.length) schema.required = required;
  } else if (struct.type === 'type' && struct.schema && typeof struct.schema === 'object') {
    // superstruct's `type`: the named properties, others allowed (the OpenAPI document's own top level).
    const entries = Object.entries(struct.schema as Record<string, AnyStruct>);
    schema = { type: 'object', properties: Object.fromEntries(entries.map(([name, child]) => [name, structSchema(child, direction)])) };
    const required = entries.filter(([, child]) => !isOptional(child)).map(([name]) => name);
    if (required.length) schema.required = required;
  } else if (struct.type === 'union' && Array.isArray(struct.schema)) {
    schema = { anyOf: (struct.schema as AnyStruct[]).map((member) => structSchema(member, direction)) };
  } else if (struct.type === 'array') {
    schema = { type: 'array' };
    if (struct.schema) schema.items = structSchema(struct.schema as AnyStruct, direction);
  } else {
    schema = leafSchema(struct, direction) ?? { description: `A value of type ${struct.type}.` };
  }
  return accepts(struct, null) ? withNull(schema) : schema;
}

/** The top of an OpenAPI 3.1 document, as the result of GET /openapi.json (the rest is the standard's). */
export const OpenApiDocument = type({
  openapi: string(),
  info: type({ title: string(), version: string() }),
  servers: array(type({ url: string() })),
  paths: type({}),
  components: type({}),
});
