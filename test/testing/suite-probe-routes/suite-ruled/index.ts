import { suiteRuled } from '../../suite-probe/suite-probe.js';

export const { GET, POST } = suiteRuled.routes.collection;
