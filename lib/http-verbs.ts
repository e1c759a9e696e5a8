/** The HTTP verbs a route file may export, shared by the router and the browser client. */
export const VERBS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
export type Verb = (typeof VERBS)[number];
