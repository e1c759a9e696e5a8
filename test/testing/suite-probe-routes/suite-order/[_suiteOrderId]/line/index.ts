import { suiteOrder } from '../../../../suite-probe/suite-probe.js';

// The lines' reads only: writing one line by its own route is not in the layer's runtime yet (lib/resources/runtime).
export const { GET } = suiteOrder.routes.lines.collection;
