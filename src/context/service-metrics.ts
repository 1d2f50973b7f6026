/**
 * The service's Prometheus metrics (served by api/metrics.ts at `GET /metrics` when WEBGAUGE_METRICS_TOKEN is set).
 * Queue and agents are read from the database at each scrape, so every node tells the same; finished tests are
 * counted by the node that follows them up (scheduler/test-events.ts: exactly once across nodes), so sum them over
 * the nodes; HTTP durations are this node's.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { LocationDirectory } from '../core/catalog/locations.js';
import type { Store } from '../store/db.js';
import { queuedTestCounts } from '../core/tests/tests.js';

export class ServiceMetrics {
  readonly registry = new Registry();
  private readonly testsTotal: Counter<'location' | 'state'>;
  private readonly testDuration: Histogram<'location'>;
  readonly httpDuration: Histogram<'method' | 'route' | 'status_code'>;

  constructor(store: Store, locations: LocationDirectory) {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry, prefix: 'webgauge_process_' });
    new Gauge({
      name: 'webgauge_tests_queued', help: 'Tests waiting for an agent, by location', labelNames: ['location'], registers,
      async collect() {
        const queued = await queuedTestCounts(store.db);
        this.reset();
        for (const l of locations.locations()) this.set({ location: l.id }, queued.get(l.id) ?? 0);
      },
    });
    new Gauge({
      name: 'webgauge_agents_online', help: 'Agents heard from within three heartbeats, by location', labelNames: ['location'], registers,
      collect() {
        this.reset();
        for (const l of locations.locations()) this.set({ location: l.id }, l.agentsOnline ?? 0);
      },
    });
    this.testsTotal = new Counter({
      name: 'webgauge_tests_total', help: 'Tests finished (completed or error), followed up by this node', labelNames: ['location', 'state'], registers,
    });
    this.testDuration = new Histogram({
      name: 'webgauge_test_duration_seconds', help: 'From an agent starting a test to its end', labelNames: ['location'], registers,
      buckets: [1, 2, 5, 10, 20, 30, 60, 120, 300, 600],
    });
    this.httpDuration = new Histogram({
      name: 'webgauge_http_request_duration_seconds', help: 'HTTP requests answered by this node', registers,
      labelNames: ['method', 'route', 'status_code'], buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10],
    });
  }

  testFinished(t: { location: string; state: string; started: number | null; finished: number | null }): void {
    this.testsTotal.inc({ location: t.location, state: t.state });
    if (t.started !== null && t.finished !== null) this.testDuration.observe({ location: t.location }, (t.finished - t.started) / 1000);
  }
}
