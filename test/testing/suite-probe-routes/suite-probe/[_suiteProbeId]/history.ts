import { suiteProbe } from '../../../suite-probe/suite-probe.js';

export const { GET } = suiteProbe.routes.history;
