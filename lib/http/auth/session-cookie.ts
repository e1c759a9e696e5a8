/** The name of variant A's session cookie (its signature travels beside it as `restlayer.sid.sig`). */
export const SESSION_COOKIE = 'restlayer.sid';
