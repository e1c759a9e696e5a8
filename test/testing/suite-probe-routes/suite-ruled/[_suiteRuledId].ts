import { suiteRuled } from '../../suite-probe/suite-probe.js';

export const { GET, PUT, PATCH, DELETE } = suiteRuled.routes.item;
