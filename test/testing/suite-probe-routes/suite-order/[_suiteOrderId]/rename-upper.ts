import { suiteOrder } from '../../../suite-probe/suite-probe.js';

// A multi-word action's file is its path (rename-upper), its routes group the key.
export const { POST } = suiteOrder.routes.renameUpper;
