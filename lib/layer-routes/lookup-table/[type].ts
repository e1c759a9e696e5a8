import { RawJson } from '../../envelope/envelope.js';
import { Output } from '../../envelope/output.js';
import { type LookupTable, LookupTableResult } from '../../lookup/lookup-table.js';
import { route } from '../../routing/route.js';
import { model, text } from '../../validation/fields.js';

const LookupTableKey = model({ type: text({ min: 1, max: 100 }) });

/** A cached table is the same object until it is flushed, so its JSON is made once and sent as is. */
const json = new WeakMap<LookupTable, RawJson>();
function serialised(table: LookupTable): RawJson {
  let raw = json.get(table);
  if (!raw) json.set(table, (raw = RawJson.of(table)));
  return raw;
}

export const GET = route({
  summary: 'A lookup table from the global cache; answers 304 to a matching If-None-Match.',
  operation: 'ILookupService.read',
  // Reference data every screen needs (statuses, territories, products): any signed-in caller, whatever their roles.
  authenticated: true,
  params: LookupTableKey,
  result: LookupTableResult,
  // 304 to a matching If-None-Match; 404 LookupTable_NotFound.
  answers: [304, 404],
  async handle({ params, services, header }) {
    const output = await services.lookup.read(params.type);
    if (!output.result) return new Output(undefined, output.messages);
    header('ETag', output.result.etag);
    return new Output(serialised(output.result.table), output.messages);
  },
});

export const DELETE = route({
  summary: 'Drop a lookup table from the cache of every running instance.',
  operation: 'ILookupService.remove',
  permission: 'lookup-table.flush',
  operator: 'lookup-table.flush',
  params: LookupTableKey,
  handle: ({ params, services }) => services.lookup.remove(params.type),
});
