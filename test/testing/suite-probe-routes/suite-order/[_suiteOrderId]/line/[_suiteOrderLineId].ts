import { suiteOrder } from '../../../../suite-probe/suite-probe.js';

export const { GET, PUT, PATCH, DELETE } = suiteOrder.routes.lines.item;
