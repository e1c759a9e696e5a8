import { route } from '../../routing/route.js';

export const DELETE = route({
  summary: 'Drop every lookup table from the cache of every running instance.',
  operation: 'ILookupService.removeAll',
  permission: 'lookup-table.flush',
  operator: 'lookup-table.flush',
  handle: ({ services }) => services.lookup.removeAll(),
});
