import { suiteOrder } from '../../../suite-probe/suite-probe.js';

export const { POST } = suiteOrder.routes.rename;
