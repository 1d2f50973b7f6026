import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { newId } from '../core/ids.js';
import { scrubError, secretScrubber, testSecrets } from '../core/options/secrets.js';
import type { RunResult, RunSpec } from '../runner/types.js';
import type { BrowserSandbox } from '../runner/browser.js';
import type { TargetPolicy } from '../net/policy.js';
import { RunError } from '../runner/types.js';
import { agentBrowsers } from '../core/catalog/catalog.js';
import { measurementsPerRun } from '../core/options/journey.js';
import type { AgentInfo, AgentTransport, Job } from './transport.js';
import type { HostQualityCheck } from './host-check.js';
import type { HostReading, LaunchAhead } from '../runner/launch-ahead.js';
import { runSeries } from './run-series.js';
import { calibrationStale, cpuUsed, type CpuCalibration, type CpuUsed } from '../runner/cpu-calibration.js';
import { CPU_TARGETS } from '../core/vocabulary/device-classes.js';
import type { TestPhase } from '../core/tests/phases.js';

/** How many times a warming agent tries for a reading of the host that no other process disturbed. */
const WARM_UP_READINGS = 3;

export interface AgentOptions {
  transport: AgentTransport;
  location: string;
  slots: number;
  leaseMs: number;
  runTimeoutMs: number;
  chromePath: string;
  /** A working Firefox this agent found (runner/firefox/launch.ts firefoxVersion); none: it offers Chrome alone. */
  firefoxPath?: string;
  /** The target policy of this agent's network (the one a hostile page would reach into). */
  policy: TargetPolicy;
  sandbox: BrowserSandbox;
  log: Logger;
  /** The page load; injectable so the queue logic can be driven by a real runner or a benchmark. */
  run: (spec: RunSpec) => Promise<RunResult>;
  /** How long an idle slot sleeps before asking again (a wake-up call cuts it short). */
  idlePollMs?: number;
  /** Discards loads made on a busy or slow host (host-check.ts); none: every load counts. */
  hostCheck?: HostQualityCheck;
  /** How often the agent tells the service it is alive (three missed: offline). */
  heartbeatMs: number;
  /**
   * Browsers launched ahead of the loads (runner/launch-ahead.ts), where the host is also read; none (a stand-in
   * runner): each load launches its own, and the host is read by the loads themselves.
   */
  ahead?: LaunchAhead;
  /**
   * Firefox browsers launched ahead (a Firefox launch takes seconds): the next one is launched once a Firefox test's
   * result is stored, as the next test is most often of the same browser; until then a Firefox load launches its own.
   */
  firefoxAhead?: LaunchAhead;
  /** Work the runner does once per process, done at warm-up rather than in the first test (Lighthouse's configuration). */
  warmRunner?: () => Promise<void>;
  /**
   * The service's outages (its database away, its disk full: store/health.ts), said once there and not again here
   * each second; a result is kept and offered again until the service takes it. None: the transport retries itself
   * (http-transport.ts).
   */
  outages?: { noticed(err: unknown): boolean };
}

/** How long a finished test's result is offered again while the service is away (the HTTP transport's own bound). */
const OUTAGE_RETRY_MS = 600_000;

/**
 * The work loop: `slots` workers, each claiming one test at a time, renewing its lease while the browser works,
 * and reporting the outcome. Stopping aborts running loads and hands their tests back to the queue.
 */
export class Agent {
  readonly id = `agent-${newId()}`;
  private stopping = false;
  private readonly running = new Map<string, AbortController>();
  private readonly loops: Promise<void>[] = [];
  private wakers: (() => void)[] = [];

  private heartbeats?: NodeJS.Timeout;
  /** The latest reading of the host (launch-ahead.ts), reported by loads when no host-quality check chooses one. */
  private hostReading: HostReading | undefined;
  private reading: Promise<void> | undefined;
  /** This host's CPU calibrated to each device class's target (runner/cpu-calibration.ts), made while idle. */
  private calibration: CpuCalibration | undefined;
  /** The calibration under way: one at a time, whichever idle slot asked. */
  private calibrating: Promise<void> | undefined;

  constructor(private readonly opts: AgentOptions) {}

  /** What this agent offers: the browsers of this code, and its slots. */
  get info(): AgentInfo {
    return { browsers: agentBrowsers({ firefox: this.opts.firefoxPath !== undefined }), slots: this.opts.slots };
  }

  /** Tells the service this agent is alive (done at start, then every heartbeat). */
  announce(): Promise<void> {
    return this.opts.transport.heartbeat(this.id, this.info);
  }

  /**
   * Before the first claim, so the first test is like the others: the first browser launched ahead, Lighthouse's
   * configuration resolved meanwhile, then the host read in that browser (the host-quality check's first reading). Never
   * rejects: a browser that would not launch or a reading that failed leaves the loads to launch and read themselves.
   */
  async warmUp(): Promise<void> {
    const { ahead } = this.opts;
    if (!ahead) return;
    ahead.prepare();
    await this.opts.warmRunner?.().catch((err: unknown) => this.opts.log.warn({ err }, 'warming up the runner failed'));
    // A reading disturbed by another process is dropped; a few more tries, or the first loads read the host themselves.
    for (let attempt = 0; attempt < WARM_UP_READINGS; attempt++) {
      await this.readHost();
      if (!this.opts.hostCheck || this.opts.hostCheck.currentReading() !== undefined) break;
    }
    await this.calibrateWhenStale();
  }

  /**
   * The phones' CPU calibrated on this host, when there is no calibration yet or the host's reading moved more than
   * RECALIBRATE_WHEN_MOVED from the one it was made at (another machine, a new CPU governor). Idle only; a test
   * claimed meanwhile stops it after its current benchmark run, and the loads use the calibration before it.
   */
  private calibrateWhenStale(): Promise<void> {
    const { ahead } = this.opts;
    const host = this.opts.hostCheck?.currentReading() ?? this.hostReading?.benchmarkIndex;
    if (!ahead || this.stopping || this.running.size > 0 || !calibrationStale(this.calibration, host)) return this.calibrating ?? Promise.resolve();
    this.calibrating ??= ahead.calibrate(CPU_TARGETS.map((t) => t.target), host).then((made) => {
      if (!made) return;
      this.calibration = made;
      this.opts.log.info({ hostIndex: made.hostIndex, settings: made.settings }, 'CPU calibrated for the phone device classes');
    }).finally(() => (this.calibrating = undefined));
    return this.calibrating;
  }

  /** Reads the host in the browser launched ahead; one reading at a time, and only while no load of this agent runs. */
  private readHost(): Promise<void> {
    const { ahead } = this.opts;
    if (!ahead || this.running.size > 0) return Promise.resolve();
    this.reading ??= ahead.readHost().then((reading) => {
      this.hostReading = reading ?? this.hostReading;
      this.opts.hostCheck?.record(reading);
    }).finally(() => (this.reading = undefined));
    return this.reading;
  }

  /**
   * Heartbeats from now on: called once the agent said hello, before its warm-up, so that a location whose agents
   * are warming up (seconds on a busy machine) is not taken for one without agents by the queue timeout.
   */
  startHeartbeats(): void {
    if (this.heartbeats) return;
    this.heartbeats = setInterval(() => {
      this.announce().catch((err: unknown) => this.quietly(err) || this.opts.log.warn({ err }, 'heartbeat failed'));
    }, this.opts.heartbeatMs);
    this.heartbeats.unref();
  }

  /** Heartbeats (if not yet started) and the slots' claim loops. */
  start(): void {
    this.startHeartbeats();
    for (let i = 0; i < this.opts.slots; i++) this.loops.push(this.loop(i));
  }

  /** New work was queued: wake idle slots now instead of at their next poll. */
  wake(): void {
    const w = this.wakers;
    this.wakers = [];
    for (const f of w) f();
  }

  get activeTests(): string[] {
    return [...this.running.keys()];
  }

  async stop(): Promise<void> {
    this.stopping = true;
    clearInterval(this.heartbeats);
    for (const ctrl of this.running.values()) ctrl.abort(new Error('server stopping'));
    this.wake();
    await Promise.allSettled(this.loops);
    await this.reading;
    // A calibration under way stops when its browser closes (it is only ever made again).
    await this.opts.ahead?.close();
    await this.calibrating;
    await this.opts.firefoxAhead?.close();
  }

  /** An outage of the service, already said by it: true, and not logged here again. */
  private quietly(err: unknown): boolean {
    return this.opts.outages?.noticed(err) ?? false;
  }

  /**
   * A call that hands the service what must not be lost (a result): while the service is away, offered again every
   * second until it is taken, the agent stops, or OUTAGE_RETRY_MS passed.
   */
  private async untilTaken<T>(call: () => Promise<T>): Promise<T> {
    const until = Date.now() + OUTAGE_RETRY_MS;
    for (;;) {
      try {
        return await call();
      } catch (err) {
        if (this.stopping || Date.now() > until || !this.quietly(err)) throw err;
        await new Promise((resolve) => setTimeout(resolve, 1000));
      }
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const t = setTimeout(done, ms);
      function done() {
        clearTimeout(t);
        resolve();
      }
      this.wakers.push(done);
    });
  }

  private async loop(slot: number): Promise<void> {
    const log = this.opts.log.child({ agent: this.id, slot });
    while (!this.stopping) {
      let job: Job | null = null;
      try {
        job = await this.opts.transport.claim(this.id, this.opts.location, this.opts.leaseMs, this.info.browsers);
      } catch (err) {
        if (!this.quietly(err)) log.error({ err }, 'claiming a test failed');
      }
      if (!job) {
        // Idle: the host is read again now and then, off every test's critical path.
        if (this.opts.hostCheck?.wantsReading()) await this.readHost();
        await this.calibrateWhenStale();
        await this.sleep(this.opts.idlePollMs ?? 1000);
        continue;
      }
      await this.work(job, log);
    }
  }

  /** The calibrated CPU of the job's device class; none (no target, no calibration yet): the load sees to it. */
  private cpuFor(job: Job): CpuUsed | undefined {
    const { deviceClass, cpuTarget } = job.conditions.device;
    return cpuTarget !== undefined && this.calibration ? cpuUsed(deviceClass, this.calibration, cpuTarget) : undefined;
  }

  private async work(job: Job, log: Logger): Promise<void> {
    const { transport } = this.opts;
    const ctrl = new AbortController();
    this.running.set(job.testId, ctrl);
    let leaseLost = false;
    const renewEvery = Math.max(200, Math.floor(this.opts.leaseMs / 3));
    const renewer = setInterval(() => {
      transport.renew(this.id, job.testId, this.opts.leaseMs).then(
        (held) => {
          if (!held && !leaseLost) {
            leaseLost = true;
            ctrl.abort(new Error('lease lost'));
          }
        },
        (err) => this.quietly(err) || log.warn({ err, test: job.testId }, 'lease renewal failed'),
      );
    }, renewEvery);
    // Named like the browser profiles, so a restart after kill -9 finds what this process left behind.
    const workDir = await mkdtemp(join(tmpdir(), `webgauge-run-${this.opts.sandbox.tag}-${process.pid}-`));
    const started = Date.now();
    log.info({ test: job.testId }, 'test claimed');
    // What the agent logs or stores about the test is scrubbed of its secrets (a failure can quote a URL).
    const scrub = secretScrubber(testSecrets(job.options));
    const ahead = job.browser === 'firefox' ? this.opts.firefoxAhead : this.opts.ahead;
    // Each phase the test enters is told the service at once, with a renewal; one after the other, so they land in order.
    let reported = Promise.resolve();
    let load = 1;
    const report = (phase: TestPhase, run: number): void => {
      load = run;
      reported = reported.then(() => transport.renew(this.id, job.testId, this.opts.leaseMs, { phase, run }).then(() => undefined,
        (err: unknown) => void (this.quietly(err) || log.warn({ err, test: job.testId }, 'reporting the phase failed'))));
    };
    try {
      // A browser of the other kind still launching ahead would share the CPU with this load: it finishes first.
      await (job.browser === 'firefox' ? this.opts.ahead : this.opts.firefoxAhead)?.ready();
      const { result, runs } = await runSeries({
        testId: job.testId,
        options: job.options,
        conditions: job.conditions,
        device: job.device,
        browser: job.browser,
        chromePath: this.opts.chromePath,
        firefoxPath: this.opts.firefoxPath,
        sandbox: this.opts.sandbox,
        policy: this.opts.policy,
        workDir,
        // A journey's run is as many measurements as it has measured steps, each within the run time limit.
        timeoutMs: this.opts.runTimeoutMs * measurementsPerRun(job.options),
        signal: ctrl.signal,
        ahead,
        benchmarkIndex: this.hostReading?.benchmarkIndex,
        cpu: this.cpuFor(job),
      }, this.opts.run, this.opts.hostCheck, report);
      clearInterval(renewer);
      if (this.stopping || leaseLost) throw ctrl.signal.reason ?? new Error('aborted');
      report('storing', load);
      const done = await this.untilTaken(() => transport.complete(this.id, job.testId, result, runs));
      log.info({ test: job.testId, ms: Date.now() - started, phases: result.phases, stored: done }, 'test completed');
    } catch (err) {
      clearInterval(renewer);
      if (this.stopping) {
        await transport.release(this.id, job.testId).catch((e) => log.error({ err: e }, 'release failed'));
        log.info({ test: job.testId }, 'test handed back to the queue (stopping)');
      } else if (leaseLost) {
        log.warn({ test: job.testId }, 'lease lost; result discarded');
      } else {
        const message =
          err instanceof RunError ? scrub.text(err.message) : 'The test could not be run because of an internal error of the test agent.';
        if (!(err instanceof RunError)) log.error({ err: scrubError(scrub, err), test: job.testId }, 'run failed unexpectedly');
        await transport.fail(this.id, job.testId, message, err instanceof RunError ? err.progress : undefined)
          .catch((e) => log.error({ err: scrubError(scrub, e) }, 'marking failure failed'));
      }
    } finally {
      clearInterval(renewer);
      this.running.delete(job.testId);
      // Whatever the outcome (a failed test's browser too): the next load's browser is on its way before the next claim.
      // Not sooner: a launch (Chromium ~1.1 s of both cores here, Firefox ~5 s) beside the storing of the result made
      // storing (the legacy rules, the files) ~0.1-0.3 s slower, which a test to an idle agent paid in full; back to
      // back, the launch costs the next test about the same CPU either way.
      if (!this.stopping) ahead?.prepare();
      await rm(workDir, { recursive: true, force: true }).catch(() => undefined);
    }
  }
}
