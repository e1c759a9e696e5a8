import { suiteOwner } from '../../suite-probe/suite-probe.js';

export const { GET, POST } = suiteOwner.routes.collection;
