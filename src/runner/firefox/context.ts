/** A Firefox load's shared state, handed from phase to phase (load.ts, collect.ts), as load/context.ts for Chromium. */
import type { Browser, Page } from 'puppeteer-core';
import type { RunSpec } from '../types.js';
import type { PhaseTimer } from '../load/context.js';
import type { RunDeadline } from '../load/deadline.js';
import type { GuardedBrowser } from '../launch-ahead.js';
import type { Emulation } from '../conditions/emulation.js';
import type { CpuSample } from '../host-load.js';
import type { FirefoxNetwork } from './network.js';
import type { BidiConnection } from './requests.js';
import type { ScreenRecording } from './screen-recording.js';

/** A Firefox load set up: its browser and page, and what the phases learn on the way. */
export interface FirefoxLoad {
  readonly spec: RunSpec;
  readonly timer: PhaseTimer;
  readonly deadline: RunDeadline;
  readonly launched: GuardedBrowser;
  readonly browser: Browser;
  readonly page: Page;
  readonly connection: BidiConnection;
  readonly topContext: string;
  readonly emulation: Emulation;
  readonly network: FirefoxNetwork;
  readonly warnings: string[];
  readonly maxWaitMs: number;
  /** The film of the load's screen (screen-recording.ts), when its display could be recorded; stopped at the load's end. */
  readonly recording?: ScreenRecording;
  /** Epoch ms: when the load wait ended and the recording was stopped (the film's last moment). */
  observedUntil?: number;
  /** Epoch ms: when the load event fired, and when the load was over by the quiet rule (or onload). */
  loadFiredAt?: number;
  loadOverAt?: number;
  cpuAtStart?: CpuSample;
  cpuAtEnd?: CpuSample;
}

