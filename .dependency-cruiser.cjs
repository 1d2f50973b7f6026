/**
 * The import rules of src/ (checked by test/unit/dependencies.test.ts, or `npx depcruise src`): no import circle,
 * and each layer imports only the layers below it. From the top:
 *   main.ts, admin.ts, app.ts          composition: the command, the service built and started, its administration
 *   api/, web/, gate/                  the edges (HTTP API, web app, the CI gate `webgauge test`): never import each
 *                                      other (edges-apart); the gate is a client of the API and imports only pure code
 *                                      below: analysis/, core/vocabulary/, lib/ (gate-is-a-client)
 *   context/, config.ts                what the edges are handed: the application context, links, configuration
 *   agent/, scheduler/, report/        work loops and rendering
 *   notify/                            webhook deliveries and e-mail
 *   core/                              the rules
 *   store/, artifacts/                 persistence
 *   runner/, analysis/, discovery/     the page load, pure analysis of what it captured, a scan's discovery of pages
 *                                      (a fetch of text, never a page load: imports only net/ and lib/,
 *                                      discovery-is-a-leaf)
 *   net/, lib/                         addresses and the target policy; generic helpers (leaves)
 * Type-only imports count: a circle of types is a circle of knowledge.
 */
const LAYERS = [
  ['^src/(main|admin|app)\\.ts$'],
  ['^src/api/', '^src/web/', '^src/gate/'],
  ['^src/context/', '^src/config\\.ts$'],
  ['^src/agent/', '^src/scheduler/', '^src/report/'],
  ['^src/notify/'],
  ['^src/core/'],
  ['^src/store/', '^src/artifacts/'],
  ['^src/runner/', '^src/analysis/', '^src/discovery/'],
  ['^src/net/', '^src/lib/'],
];

const upward = [];
LAYERS.forEach((layer, i) => {
  const above = LAYERS.slice(0, i).flat();
  if (above.length === 0) return;
  upward.push({
    name: `layer-${layer.map((p) => p.replace(/^\^src\/|\/$|\\\.ts\$$|\\|\(|\)/g, '')).join('-')}`,
    comment: 'A layer imports only the layers below it (see the head of .dependency-cruiser.cjs)',
    severity: 'error',
    from: { path: layer.join('|') },
    to: { path: above.join('|') },
  });
});

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'No import circle, type-only imports included',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'edges-apart',
      comment: 'The edges (api/, web/, gate/) never import each other',
      severity: 'error',
      from: { path: '^src/(api|web|gate)/' },
      to: { path: '^src/(api|web|gate)/', pathNot: '^src/$1/' },
    },
    {
      name: 'gate-is-a-client',
      comment: 'The CI gate talks to a server only through API 2.0: it imports pure code (analysis, the vocabulary, lib), never the service',
      severity: 'error',
      from: { path: '^src/gate/' },
      to: { path: '^src/', pathNot: '^src/(gate|analysis|lib|core/vocabulary)/' },
    },
    {
      name: 'discovery-is-a-leaf',
      comment: "A scan's discovery fetches text through the target policy and knows nothing of the service: it imports only net/ and lib/",
      severity: 'error',
      from: { path: '^src/discovery/' },
      to: { path: '^src/', pathNot: '^src/(discovery|net|lib)/' },
    },
    ...upward,
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    includeOnly: '^src/',
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    // src/web/client is the browser's script, built on its own (tsconfig.web.json)
    exclude: { path: '^src/web/client/' },
  },
};
