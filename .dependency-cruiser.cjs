/**
 * The import rules of src/ (checked by test/unit/dependencies.test.ts, or `npx depcruise src`): no import circle,
 * and each layer imports only the layers below it. From the top:
 *   main.ts, app.ts                    composition: builds everything and starts it
 *   api/, web/                         the two edges (HTTP API and web app): never import each other
 *   context/, config.ts                what the edges are handed: the application context, links, configuration
 *   agent/, scheduler/, report/        work loops and rendering
 *   notify/                            webhook deliveries and e-mail
 *   core/                              the rules
 *   store/, artifacts/                 persistence
 *   runner/, analysis/                 the page load and pure analysis of what it captured
 *   net/, lib/                         addresses and the target policy; generic helpers (leaves)
 * Type-only imports count: a circle of types is a circle of knowledge.
 */
const LAYERS = [
  ['^src/(main|app)\\.ts$'],
  ['^src/api/', '^src/web/'],
  ['^src/context/', '^src/config\\.ts$'],
  ['^src/agent/', '^src/scheduler/', '^src/report/'],
  ['^src/notify/'],
  ['^src/core/'],
  ['^src/store/', '^src/artifacts/'],
  ['^src/runner/', '^src/analysis/'],
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
      name: 'api-not-web',
      comment: 'The HTTP API and the web app are equally thin edges over core: neither imports the other',
      severity: 'error',
      from: { path: '^src/api/' },
      to: { path: '^src/web/' },
    },
    {
      name: 'web-not-api',
      comment: 'The HTTP API and the web app are equally thin edges over core: neither imports the other',
      severity: 'error',
      from: { path: '^src/web/' },
      to: { path: '^src/api/' },
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
