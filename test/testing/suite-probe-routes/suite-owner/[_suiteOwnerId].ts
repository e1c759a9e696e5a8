import { suiteOwner } from '../../suite-probe/suite-probe.js';

export const { GET, PUT, PATCH, DELETE } = suiteOwner.routes.item;
