import { suiteOrder } from '../../../../suite-probe/suite-probe.js';

export const { GET, POST } = suiteOrder.routes.lines.collection;
