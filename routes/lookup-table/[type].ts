import { Output } from '../../lib/envelope/output.js';
import { route } from '../../lib/routing/route.js';
import { model, text } from '../../lib/validation/fields.js';

const LookupTableKey = model({ type: text({ min: 1, max: 100 }) });

export const GET = route({
  summary: 'A lookup table from the global cache; answers 304 to a matching If-None-Match.',
  operation: 'ILookupService.read',
  params: LookupTableKey,
  async handle({ params, services, header }) {
    const output = await services.lookup.read(params.type);
    if (!output.result) return new Output(undefined, output.messages);
    header('ETag', output.result.etag);
    return new Output(output.result.table, output.messages);
  },
});

export const DELETE = route({
  summary: 'Drop a lookup table from the cache of every running instance.',
  operation: 'ILookupService.remove',
  roles: ['Administrator'],
  params: LookupTableKey,
  handle: ({ params, services }) => services.lookup.remove(params.type),
});
