/**
 * The groups `npm test` runs (test/support/run-suite.ts), named in suite titles. Most suites run side by side in
 * mocha's parallel workers (one more than the cores). Two kinds keep apart from them:
 * - `apart(title)`: suites that inject faults and wait for the server to come through them (outages, kills, files
 *   removed): they mostly wait, so two run at a time, but none beside the parallel workers' load;
 * - `serial(title)`: suites that measure time or memory (a main-thread budget, which request finishes first, growth
 *   under load): one at a time, with the machine to themselves.
 */
export const APART = '@apart';
export const SERIAL = '@serial';

export const apart = (title: string): string => `${title} ${APART}`;
export const serial = (title: string): string => `${title} ${SERIAL}`;
