import { suiteProbe } from '../../suite-probe/suite-probe.js';

export const { GET, POST } = suiteProbe.routes.collection;
