import type { ArtifactStore } from '../artifacts/store.js';
import type { Config } from '../config.js';
import type { PrincipalCache } from '../core/auth-cache.js';
import type { Catalog } from '../core/catalog.js';
import type { RateLimiter } from '../core/ratelimit.js';
import type { Store } from '../store/db.js';
import type { BrowserSandbox } from '../runner/browser.js';

/** What route handlers work with. Nothing here is Fastify-specific. */
export interface AppContext {
  config: Config;
  store: Store;
  artifacts: ArtifactStore;
  catalog: Catalog;
  /** Who an API key is, remembered briefly (core/auth-cache.ts). */
  principals: PrincipalCache;
  rateLimiter: RateLimiter;
  /** Who the browsers of this process (PDFs, the in-process agent) run as. */
  sandbox: BrowserSandbox;
  /** Tell the in-process agent that work was queued (no-op when the agent runs elsewhere). */
  notifyQueued(): void;
}
