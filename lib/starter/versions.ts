/**
 * The version ranges a started project depends on besides restlayer: its compiler, its test runner and their types,
 * and PostgreSQL's client (an optional peer of restlayer, here so that switching to PostgreSQL is one setting). They
 * are restlayer's own (its devDependencies, whose ranges the published package.json leaves out), so a new project
 * builds with what restlayer is built and tested with; a test keeps the two lists equal.
 */
export const STARTER_DEV_DEPENDENCIES: Readonly<Record<string, string>> = {
  '@types/chai': '^5.2.3',
  '@types/mocha': '^10.0.10',
  '@types/node': '^20.19.43',
  chai: '^6.3.0',
  mocha: '^12.0.3',
  typescript: '5.9',
};

export const STARTER_DEPENDENCIES: Readonly<Record<string, string>> = {
  pg: '^8.23.1',
};
