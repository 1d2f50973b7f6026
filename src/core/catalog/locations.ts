/**
 * Locations and their agents. Location 1 is this service's own (its in-process agent, WEBGAUGE_AGENT_SLOTS); the
 * operator adds others (`webgauge location add`) and starts agents there (`webgauge agent`), each signed in with a
 * token of its location. A location offers the browsers its online agents announce; an agent not heard from for
 * three heartbeats is offline.
 */
import { randomBytes } from 'node:crypto';
import type { Location } from './catalog.js';
import { clock } from '../clock.js';
import { hashApiKey, newId } from '../ids.js';
import type { Db, Store } from '../../store/db.js';
import {
  agentsSeenSince, agentTokenByHash, agentTokensOf, allLocations, clearDefaultLocation, deleteAgentsSeenBefore, findAgent, touchAgent,
  deleteLocation, findLocation, insertAgentToken, insertLocation, revokeAgentToken, revokeLocationTokens,
  setDefaultLocation, upsertAgent, upsertLocation, type AgentRow, type AgentTokenRow, type LocationRow,
} from '../../store/locations.js';
import { countActiveTests } from '../../store/tests.js';

export const LOCAL_LOCATION_ID = '1';
/** An agent is offline after this many heartbeats without a word. */
export const MISSED_HEARTBEATS = 3;
/** WEBGAUGE_AGENT_HEARTBEAT_MS's default. */
export const DEFAULT_HEARTBEAT_MS = 10_000;

export class LocationInputError extends Error {}

/** How long an agent counts as online after it was last heard from: three heartbeats. */
export const onlineWindowMs = (heartbeatMs: number): number => MISSED_HEARTBEATS * heartbeatMs;

/** Agents heard from since this moment are online. */
const onlineSince = (heartbeatMs: number): number => clock.now() - onlineWindowMs(heartbeatMs);

const text = (what: string, v: string | undefined): string => {
  const t = (v ?? '').trim();
  if (!t || t.length > 100 || /[\u0000-\u001f]/.test(t)) throw new LocationInputError(`${what} must be 1 to 100 printable characters`);
  return t;
};

/** Location 1 carries this node's configured name and region; the first location is the default. */
export async function ensureLocalLocation(store: Store, name: string, region: string): Promise<void> {
  await store.db.transaction().execute(async (trx) => {
    await upsertLocation(trx, { id: LOCAL_LOCATION_ID, name, region, is_default: 0, created: 0 });
    const rows = await allLocations(trx);
    if (!rows.some((l) => l.is_default === 1)) await setDefaultLocation(trx, LOCAL_LOCATION_ID);
  });
}

/** A new location: its ID is the next integer (location IDs are numbers as strings, as in the spec). */
export async function addLocation(store: Store, input: { name?: string; region?: string; makeDefault?: boolean }): Promise<LocationRow> {
  const name = text('--name', input.name);
  const region = text('--region', input.region);
  return store.db.transaction().execute(async (trx) => {
    const rows = await allLocations(trx);
    const next = Math.max(0, ...rows.map((l) => Number(l.id)).filter(Number.isSafeInteger)) + 1;
    const row: LocationRow = { id: String(next), name, region, is_default: 0, created: clock.now() };
    await insertLocation(trx, row);
    if (input.makeDefault) {
      await clearDefaultLocation(trx);
      await setDefaultLocation(trx, row.id);
      row.is_default = 1;
    }
    return row;
  });
}

export interface LocationListing extends LocationRow {
  agents: { id: string; hostname: string; slots: number; version: string; online: boolean }[];
}

/** Every location with the agents it has seen (`webgauge location list`). */
export async function listLocations(db: Db, heartbeatMs = DEFAULT_HEARTBEAT_MS): Promise<LocationListing[]> {
  const [rows, agents] = await Promise.all([allLocations(db), agentsSeenSince(db, 0)]);
  const since = onlineSince(heartbeatMs);
  return rows.map((l) => ({
    ...l,
    agents: agents.filter((a) => a.location === l.id)
      .map((a) => ({ id: a.id, hostname: a.hostname, slots: a.slots, version: a.version, online: a.last_seen >= since })),
  }));
}

export function listAgentTokens(db: Db, location?: string): Promise<AgentTokenRow[]> {
  return agentTokensOf(db, location);
}

/** Remove a location with nothing queued or running there; its tokens stop working. */
export async function removeLocation(store: Store, id: string): Promise<void> {
  if (id === LOCAL_LOCATION_ID) {
    throw new LocationInputError('location 1 is this service\'s own; run no agent there with WEBGAUGE_AGENT_SLOTS=0 instead');
  }
  await store.db.transaction().execute(async (trx) => {
    const row = await findLocation(trx, id);
    if (!row) throw new LocationInputError(`no location with ID ${id} (webgauge location list)`);
    const waiting = await countActiveTests(trx, { location: id });
    if (waiting > 0) throw new LocationInputError(`location ${id} has ${waiting} tests queued or running; remove it when they are done`);
    await revokeLocationTokens(trx, id, clock.now());
    await deleteLocation(trx, id);
    if (row.is_default === 1) await setDefaultLocation(trx, LOCAL_LOCATION_ID);
  });
}

/** Agent tokens: 256 random bits behind a recognisable prefix; stored as SHA-256 like API keys. */
export async function createAgentToken(store: Store, location: string): Promise<{ id: string; token: string }> {
  if (!(await findLocation(store.db, location))) throw new LocationInputError(`no location with ID ${location} (webgauge location list)`);
  const token = `wgat_${randomBytes(32).toString('base64url')}`;
  const id = newId();
  await insertAgentToken(store.db, { id, location, token_hash: hashApiKey(token), created: clock.now(), revoked: null });
  return { id, token };
}

export async function revokeToken(store: Store, id: string): Promise<void> {
  if (!(await revokeAgentToken(store.db, id, clock.now()))) throw new LocationInputError(`no active agent token with ID ${id}`);
}

/** The location a token lets its agent work for; undefined for an unknown or revoked token. */
export async function agentTokenLocation(db: Db, token: string): Promise<{ tokenId: string; location: string } | undefined> {
  const row = await agentTokenByHash(db, hashApiKey(token));
  if (!row || row.revoked !== null) return undefined;
  if (!(await findLocation(db, row.location))) return undefined;
  return { tokenId: row.id, location: row.location };
}

/** What an agent says of itself at hello and in heartbeats. */
export interface AgentAnnouncement {
  agentId: string;
  location: string;
  tokenId: string | null;
  version: string;
  hostname: string;
  browsers: string[];
  slots: number;
}

export async function announceAgent(db: Db, a: AgentAnnouncement): Promise<void> {
  const now = clock.now();
  await upsertAgent(db, {
    id: a.agentId, location: a.location, token_id: a.tokenId, version: a.version, hostname: a.hostname,
    browsers: JSON.stringify(a.browsers), slots: a.slots, started: now, last_seen: now,
  });
}

/** Whether this agent said hello with a token of this location. */
export async function isAgentOf(db: Db, agentId: string, location: string): Promise<boolean> {
  return (await findAgent(db, agentId))?.location === location;
}

/** The agent was heard from now. */
export async function agentSeen(db: Db, agentId: string): Promise<void> {
  await touchAgent(db, agentId, clock.now());
}

const browsersOf = (row: AgentRow): string[] => {
  try {
    const v: unknown = JSON.parse(row.browsers);
    return Array.isArray(v) ? v.filter((b): b is string => typeof b === 'string') : [];
  } catch {
    return [];
  }
};

/** The browsers an agent announced (none for an agent that never said hello). */
export async function agentBrowsers(db: Db, agentId: string): Promise<string[]> {
  const row = await findAgent(db, agentId);
  return row ? browsersOf(row) : [];
}

/** A location as the API shows it, with what its online agents offer. */
export interface LocationView extends Location {
  agentsOnline: number;
}

/**
 * The locations and their online agents, read from the database now and then (every `refreshMs`) so that option
 * checks stay synchronous and cheap; every node sees another node's changes within that time.
 */
export class LocationDirectory {
  private views: LocationView[] = [];
  private timer?: NodeJS.Timeout;

  constructor(private readonly store: Store, readonly heartbeatMs: number, private readonly refreshMs = 1000) {}

  async refresh(): Promise<void> {
    const [rows, agents] = await Promise.all([allLocations(this.store.db), agentsSeenSince(this.store.db, onlineSince(this.heartbeatMs))]);
    this.views = rows.map((l) => {
      const mine = agents.filter((a) => a.location === l.id);
      const browsers = [...new Set(mine.flatMap(browsersOf))].sort();
      return { id: l.id, name: l.name, region: l.region, default: l.is_default === 1, browsers, agentsOnline: mine.length };
    });
  }

  start(): void {
    let ticks = 0;
    this.timer = setInterval(() => {
      this.refresh().catch(() => undefined);
      // Agents gone for a day are forgotten, checked once a minute (a returning one says hello again).
      if (++ticks % 60 === 0) deleteAgentsSeenBefore(this.store.db, clock.now() - 86_400_000).catch(() => undefined);
    }, this.refreshMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  locations(): LocationView[] {
    return this.views.map((l) => ({ ...l, browsers: [...l.browsers] }));
  }

  get defaultLocation(): string {
    return this.views.find((l) => l.default)?.id ?? LOCAL_LOCATION_ID;
  }
}
