/** The locations repository: locations, the agent tokens of each, and the agents heard from. */
import type { Selectable } from 'kysely';
import type { Db } from './db.js';
import type { AgentsTable, AgentTokensTable, LocationsTable } from './schema.js';

export type LocationRow = Selectable<LocationsTable>;
export type AgentTokenRow = Selectable<AgentTokensTable>;
export type AgentRow = Selectable<AgentsTable>;

export function allLocations(db: Db): Promise<LocationRow[]> {
  return db.selectFrom('locations').selectAll().orderBy('created').orderBy('id').execute();
}

export function findLocation(db: Db, id: string): Promise<LocationRow | undefined> {
  return db.selectFrom('locations').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function insertLocation(db: Db, row: LocationRow): Promise<void> {
  await db.insertInto('locations').values(row).execute();
}

/** Location 1's name and region follow the configuration of the node that starts. */
export async function upsertLocation(db: Db, row: LocationRow): Promise<void> {
  await db
    .insertInto('locations')
    .values(row)
    .onConflict((oc) => oc.column('id').doUpdateSet({ name: row.name, region: row.region }))
    .execute();
}

export async function clearDefaultLocation(db: Db): Promise<void> {
  await db.updateTable('locations').set({ is_default: 0 }).where('is_default', '=', 1).execute();
}

export async function setDefaultLocation(db: Db, id: string): Promise<void> {
  await db.updateTable('locations').set({ is_default: 1 }).where('id', '=', id).execute();
}

export async function deleteLocation(db: Db, id: string): Promise<boolean> {
  const res = await db.deleteFrom('locations').where('id', '=', id).executeTakeFirst();
  return Number(res.numDeletedRows) === 1;
}

export async function insertAgentToken(db: Db, row: AgentTokenRow): Promise<void> {
  await db.insertInto('agent_tokens').values(row).execute();
}

export function agentTokenByHash(db: Db, hash: string): Promise<AgentTokenRow | undefined> {
  return db.selectFrom('agent_tokens').selectAll().where('token_hash', '=', hash).executeTakeFirst();
}

export function agentTokensOf(db: Db, location?: string): Promise<AgentTokenRow[]> {
  let q = db.selectFrom('agent_tokens').selectAll().orderBy('created');
  if (location !== undefined) q = q.where('location', '=', location);
  return q.execute();
}

/** Revoke a token by its ID; false when there is no such token or it was revoked already. */
export async function revokeAgentToken(db: Db, id: string, now: number): Promise<boolean> {
  const res = await db.updateTable('agent_tokens').set({ revoked: now }).where('id', '=', id).where('revoked', 'is', null).executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

export async function revokeLocationTokens(db: Db, location: string, now: number): Promise<void> {
  await db.updateTable('agent_tokens').set({ revoked: now }).where('location', '=', location).where('revoked', 'is', null).execute();
}

/** An agent said hello or is still alive. */
export async function upsertAgent(db: Db, row: AgentRow): Promise<void> {
  await db
    .insertInto('agents')
    .values(row)
    .onConflict((oc) => oc.column('id').doUpdateSet({ browsers: row.browsers, slots: row.slots, last_seen: row.last_seen, version: row.version }))
    .execute();
}

/** Refresh an agent's heartbeat; false when the server does not know it (it must say hello again). */
export async function touchAgent(db: Db, id: string, now: number): Promise<boolean> {
  const res = await db.updateTable('agents').set({ last_seen: now }).where('id', '=', id).executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

export function findAgent(db: Db, id: string): Promise<AgentRow | undefined> {
  return db.selectFrom('agents').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function deleteAgent(db: Db, id: string): Promise<void> {
  await db.deleteFrom('agents').where('id', '=', id).execute();
}

/** Agents heard from since `since`. */
export function agentsSeenSince(db: Db, since: number): Promise<AgentRow[]> {
  return db.selectFrom('agents').selectAll().where('last_seen', '>=', since).execute();
}

/** Forget agents not heard from since `before` (they stay offline; a returning agent says hello again). */
export async function deleteAgentsSeenBefore(db: Db, before: number): Promise<void> {
  await db.deleteFrom('agents').where('last_seen', '<', before).execute();
}
