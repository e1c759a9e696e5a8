import { suiteProbe } from '../../suite-probe/suite-probe.js';

export const { GET, PUT, PATCH, DELETE } = suiteProbe.routes.item;
