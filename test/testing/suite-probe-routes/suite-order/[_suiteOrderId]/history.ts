import { suiteOrder } from '../../../suite-probe/suite-probe.js';

export const { GET } = suiteOrder.routes.history;
