import { STARTER_DEPENDENCIES, STARTER_DEV_DEPENDENCIES } from './versions.js';

/** What a started project is called and what it depends on restlayer by. */
export interface StarterNames {
  /** The package's name, which is also its CLI's (`npx my-api user add ...`). */
  name: string;
  /** The dependency on restlayer: a version range, or any spec npm takes (a tarball, a folder, a git URL). */
  restlayer: string;
}

const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;

/**
 * The project around its code: package.json with its scripts, tsconfig.json, the configuration folder, .gitignore and
 * the application's entry (src/main.ts: the project's CLI, restlayer's commands over its own modules) and wiring
 * (src/app.ts: the module list `restlayer new service` adds to, and the route files' folder).
 */
export function projectFiles({ name, restlayer }: StarterNames): Record<string, string> {
  return {
    'package.json': json({
      name,
      version: '0.1.0',
      private: true,
      type: 'module',
      // The project's CLI: serve, user add, db reset... over its own modules. restlayer dev runs it.
      bin: { [name]: 'dist/main.js' },
      scripts: {
        build: 'tsc -p tsconfig.json',
        start: `node dist/main.js serve`,
        dev: 'restlayer dev',
        // Double quotes keep the pattern for mocha on every shell (Windows cmd passes single quotes on as part of it).
        test: 'tsc -p tsconfig.json && mocha "dist/test/**/*.test.js"',
        // The same tests on PostgreSQL (RESTLAYER_TEST_PG_URL names the server, default postgres://postgres@127.0.0.1:5432/test).
        // An option rather than RESTLAYER_TEST_STORAGE=postgres in front, which Windows cmd cannot run: restlayer/testing
        // reads --store from mocha's command line.
        'test:postgres': 'tsc -p tsconfig.json && mocha "dist/test/**/*.test.js" --store postgres',
      },
      dependencies: { restlayer: restlayer, ...STARTER_DEPENDENCIES },
      devDependencies: STARTER_DEV_DEPENDENCIES,
      // npm 11 asks which packages may run install scripts: better-sqlite3's fetches (or compiles) SQLite.
      allowScripts: { 'better-sqlite3': true },
      engines: { node: '>=20.19' },
    }),
    'tsconfig.json': json({
      compilerOptions: {
        target: 'ES2022',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        strict: true,
        outDir: 'dist',
        rootDir: 'src',
        // tsc rebuilds what changed: npm test and npm run build after an edit take seconds.
        incremental: true,
        tsBuildInfoFile: 'dist/.tsbuildinfo',
        types: ['node', 'mocha'],
        // restlayer's declarations name the types of optional peers a project may not install (ioredis); what the
        // project's own code uses is checked all the same.
        skipLibCheck: true,
      },
      include: ['src'],
    }),
    // Every setting of restlayer can be written here (restlayer's docs/configuration.md lists them); __ environment
    // variables override it (Storage__Provider=postgres). Secrets (keys) come from the environment only.
    'config/settings.json': json({
      Storage: {
        Provider: 'sqlite',
        Sqlite: { Path: `data/${name}.db` },
        Postgres: { Url: `postgres://postgres@127.0.0.1:5432/${name.replace(/[^a-z0-9]/g, '_')}` },
      },
    }),
    '.gitignore': 'node_modules/\ndist/\ndata/\n',
    // A test server's first start migrates a new database (on PostgreSQL, a template first): more than mocha's 2 s
    // on a busy machine, and a hook that times out leaves that server running when it comes up.
    '.mocharc.json': json({ timeout: 60_000 }),
    'src/main.ts': `#!/usr/bin/env node
import { fileURLToPath } from 'node:url';
import { runCli } from 'restlayer';
import { application } from './app.js';

// The project's settings (config/settings.json), over restlayer's defaults; environment variables override both.
process.env.RESTLAYER_CONFIG ??= fileURLToPath(new URL('../config/settings.json', import.meta.url));

await runCli(application, { name: '${name}' });
`,
    'src/app.ts': `import { fileURLToPath } from 'node:url';
import { type Application, type ServicesOf, routeFor } from 'restlayer';
import { taskModule } from './services/task/module.js';

/** The application's modules (\`restlayer new service\` adds its new one here). */
export const modules = [taskModule] as const;
export type AppServices = ServicesOf<typeof modules>;

/** Route files of the project's own (beside the one-line files of its resources) declare their verbs with this \`route\`. */
export const route = routeFor<AppServices>();

export const application: Application = { modules, routesDir: fileURLToPath(new URL('./routes/', import.meta.url)) };
`,
  };
}
