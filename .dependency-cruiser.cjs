/**
 * restlayer's architecture, checked by `npm run check:architecture` (part of `npm test`).
 *
 * lib/ is built in layers; a file may import its own layer and the layers below it, never one above. From the bottom:
 *
 *   core      lib/envelope, lib/validation, lib/log.ts, lib/bounded-map.ts, lib/etag.ts, lib/http-verbs.ts,
 *             lib/telemetry, lib/client/merge-patch.ts (no lib imports but core)   leaves: the envelope, input checks, logging
 *   config    lib/config                                       the schema and loading
 *   storage   lib/storage                                      the store, its dialects, migrator, lists
 *   domain    lib/auth, lib/lookup, lib/documents, lib/audit   users, passwords, tokens, sessions, lookups, documents, audit — never Koa
 *   platform  lib/shared, lib/metrics                          shared state (memory, cluster, Redis), metrics
 *   http      lib/http, lib/idempotency                        Koa adapters: front door, body, auth middleware
 *   routing   lib/routing                                      route(), its access, the loader, the runner
 *   resources lib/resources                                    declared resources and the one runtime that serves them
 *   openapi   lib/openapi, lib/docs                            the document and the docs page
 *   routes    lib/layer-routes                                 the layer's own route files
 *   wiring    lib/*.ts (app, server, create-services, ...), lib/cli, lib/testing, lib/scaffold, lib/starter
 *
 * lib/client/ is browser-safe: it may import only types, and only of core (plus the wire models of auth and the
 * config's type). lib/ never imports the sample application (services/, routes/, web/, test/). Files named
 * `*.test.ts` inside lib/ are tests of private modules: exempt from the layer rules, not from the cycle rule.
 */
const layers = [
  // lib/client/merge-patch.ts is core too: the merge of a PATCH, with no imports, which the client exports.
  ['core', '^lib/(envelope|validation|telemetry)/|^lib/(log|bounded-map|etag|http-verbs|restart-backoff|worker-exit|optional-package|package-paths)\\.ts$|^lib/client/merge-patch\\.ts$'],
  ['config', '^lib/config/'],
  ['storage', '^lib/storage/'],
  ['domain', '^lib/(auth|lookup|documents|audit)/'],
  ['platform', '^lib/(shared|metrics)/'],
  ['http', '^lib/(http|idempotency)/'],
  ['routing', '^lib/routing/'],
  ['resources', '^lib/resources/'],
  ['openapi', '^lib/(openapi|docs)/'],
  ['routes', '^lib/layer-routes/'],
  ['wiring', '^lib/[^/]+\\.ts$|^lib/(cli|testing|scaffold|starter)/'],
];
const notTest = '\\.test\\.ts$';

/** For each layer: a file in it must not import any layer above it. */
const noUpward = layers.slice(0, -1).map(([name, path], i) => ({
  name: `no-upward-from-${name}`,
  comment: `${name} may import only ${layers.slice(0, i + 1).map(([n]) => n).join(', ')} (and lib/client types)`,
  severity: 'error',
  from: { path, pathNot: notTest },
  // Listed by their folders, so a path the upper layers' patterns catch (lib/*.ts) is not upward when it is below.
  to: { path: layers.slice(i + 1).map(([, p]) => p).join('|'), pathNot: [notTest, ...layers.slice(0, i + 1).map(([, p]) => p)].join('|') },
}));

module.exports = {
  forbidden: [
    {
      name: 'no-cycles',
      comment: 'No import cycle, type imports included: a cycle means two files cannot be understood apart.',
      severity: 'error',
      from: { path: '^lib/' },
      to: { circular: true },
    },
    ...noUpward,
    {
      name: 'lib-not-the-sample',
      comment: 'The layer knows no business domain: it never imports the sample application or its tests.',
      severity: 'error',
      from: { path: '^lib/' },
      to: { path: '^(services|routes|web|test)/' },
    },
    {
      name: 'client-only-core-types',
      comment: 'The client runs in browsers: besides itself it imports only types (of core, the wire models of auth, lookup and audit, the config, a resource\'s wire types).',
      severity: 'error',
      from: { path: '^lib/client/' },
      to: {
        path: '^lib/',
        pathNot: '^lib/client/|^lib/(envelope|validation)/|^lib/http-verbs\\.ts$|^lib/auth/auth-models\\.ts$|^lib/config/schema\\.ts$'
          + '|^lib/lookup/lookup-(table|service|cache)\\.ts$'
          // A resource's declaration types: a proxy's methods follow from them (lib/client/resource-proxy.ts).
          + '|^lib/resources/(wire-types|field)\\.ts$|^lib/audit/audit-models\\.ts$',
      },
    },
    {
      name: 'client-types-only',
      comment: 'The client runs in browsers: what it takes from the rest of lib/ is types, never code.',
      severity: 'error',
      from: { path: '^lib/client/' },
      to: { path: '^lib/', pathNot: '^lib/client/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'domain-never-koa',
      comment: 'Auth and lookup are domains: the HTTP adapters (lib/http/) carry them to Koa.',
      severity: 'error',
      from: { path: '^lib/(auth|lookup|storage|config|shared)/' },
      to: { path: 'node_modules/(koa|@koa/|koa-)' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^dist/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'] },
  },
};
