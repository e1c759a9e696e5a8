import { suiteRuled } from '../../../suite-probe/suite-probe.js';

export const { GET } = suiteRuled.routes.history;
