import { model, oneOf } from '../../validation/fields.js';

/** What the health routes answer when healthy. */
export const HealthStatus = model({ status: oneOf(['Healthy']) });
