import { type LayerServices, type Storage, routeFor, serviceModule } from 'restlayer';

/**
 * Test-only: the store itself as a service, for the probe routes that read or write it directly (slow reads, an
 * insert without checks). Infrastructure is not among the layer's services; a module declares what its routes get.
 */
export const probeStoreModule = serviceModule({ name: 'probe-store', create: ({ storage }) => ({ probeStorage: storage }) });

/** `route` for routes of the probe folders: they see the store as `services.probeStorage`. */
export const probeRoute = routeFor<LayerServices & { probeStorage: Storage }>();
