/**
 * Field sites (issue 50, point 1): an account's site to collect real visitors' figures for. The rules of a site's
 * settings live here; api/ and web/ hand their input to `parseFieldSiteInput` and show `FieldSite`s.
 */
import { assertOwnerRole } from '../accounts/roles.js';
import type { Principal } from '../accounts/accounts.js';
import { ApiError, show } from '../errors.js';
import { clock } from '../clock.js';
import { newId } from '../ids.js';
import { checkPathPattern } from '../../discovery/templates.js';
import type { Store } from '../../store/db.js';
import type { Db } from '../../store/db.js';
import {
  countFieldSites, deleteFieldSite, getFieldSite, insertFieldSite, listFieldSites, updateFieldSite, type FieldSiteRow,
} from '../../store/field.js';

export const FIELD_SITE_NAME_MAX = 100;
export const MAX_ORIGINS = 20;
export const MAX_TEMPLATES = 50;
export const MAX_FIELD_SITES = 50;
export const DEFAULT_RAW_RETENTION_DAYS = 7;
export const MAX_RAW_RETENTION_DAYS = 30;
/** The longest window a figure is read over, and how long the daily rollups are kept. */
export const MAX_WINDOW_DAYS = 90;

export interface FieldSite {
  id: string;
  accountId: string;
  name: string;
  /** `https://example.com`, `http://localhost:8080`: scheme, host and port, no path. */
  origins: string[];
  /** The share of page views measured, in percent (0 < rate ≤ 100). */
  sampleRate: number;
  /** The user's own URL templates (path patterns), matched before the shape rules. */
  templates: string[];
  keepQuery: boolean;
  honourGpc: boolean;
  rawRetentionDays: number;
  created: number;
}

export function fieldSiteOf(r: FieldSiteRow): FieldSite {
  return {
    id: r.id, accountId: r.account_id, name: r.name, origins: JSON.parse(r.origins) as string[], sampleRate: r.sample_rate,
    templates: JSON.parse(r.templates) as string[], keepQuery: r.keep_query === 1, honourGpc: r.honour_gpc === 1,
    rawRetentionDays: r.raw_retention_days, created: r.created,
  };
}

export type FieldSiteInput = Partial<Pick<FieldSite, 'name' | 'origins' | 'sampleRate' | 'templates' | 'keepQuery' | 'honourGpc' | 'rawRetentionDays'>>;

const bad = (detail: string) => new ApiError('E4001', detail);

/** An origin as a browser sends it in `Origin`: scheme, host and port; what is wrong with it otherwise. */
export function normaliseOrigin(value: unknown): string | { problem: string } {
  if (typeof value !== 'string' || value.trim() === '') return { problem: 'is not a non-empty string' };
  let u: URL;
  try {
    u = new URL(value.trim());
  } catch {
    return { problem: `${show(value)} is not a URL; give an origin such as https://www.example.com` };
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') return { problem: `${show(value)} is not http or https` };
  if (u.username || u.password) return { problem: `${show(value)} carries credentials` };
  if ((u.pathname !== '/' && u.pathname !== '') || u.search || u.hash) {
    return { problem: `${show(value)} has a path, query or fragment; give the origin alone (${u.origin})` };
  }
  return u.origin;
}

/**
 * A site's attributes as the API and the app's form send them (JSON:API names), checked; `create` requires a
 * name and at least one origin. Unknown attributes are refused, naming the ones there are.
 */
export function parseFieldSiteInput(a: Record<string, unknown>, mode: 'create' | 'patch'): FieldSiteInput {
  const known = ['name', 'origins', 'sample_rate', 'templates', 'keep_query', 'honour_gpc', 'raw_retention_days'];
  for (const k of Object.keys(a)) {
    if (!known.includes(k)) throw bad(`Unknown attribute ${show(k)}; a field site has ${known.join(', ')}.`);
  }
  const out: FieldSiteInput = {};
  if (a.name !== undefined || mode === 'create') {
    const name = typeof a.name === 'string' ? a.name.trim() : '';
    if (name === '' || name.length > FIELD_SITE_NAME_MAX) throw bad(`name must be 1 to ${FIELD_SITE_NAME_MAX} characters (surrounding spaces are trimmed).`);
    out.name = name;
  }
  if (a.origins !== undefined || mode === 'create') {
    if (!Array.isArray(a.origins) || a.origins.length === 0 || a.origins.length > MAX_ORIGINS) {
      throw bad(`origins must be a list of 1 to ${MAX_ORIGINS} origins, e.g. ["https://www.example.com"].`);
    }
    const origins: string[] = [];
    a.origins.forEach((o, i) => {
      const n = normaliseOrigin(o);
      if (typeof n !== 'string') throw bad(`origins[${i}] ${n.problem}.`);
      if (!origins.includes(n)) origins.push(n);
    });
    out.origins = origins;
  }
  if (a.sample_rate !== undefined) {
    const r = a.sample_rate;
    if (typeof r !== 'number' || !Number.isFinite(r) || r <= 0 || r > 100) throw bad('sample_rate must be a percentage above 0 and at most 100 (100: every page view).');
    out.sampleRate = Math.round(r * 100) / 100;
  }
  if (a.templates !== undefined) {
    if (!Array.isArray(a.templates) || a.templates.length > MAX_TEMPLATES) throw bad(`templates must be a list of at most ${MAX_TEMPLATES} path patterns (/blog/:slug, /p/*).`);
    out.templates = a.templates.map((t, i) => {
      const problem = typeof t === 'string' ? checkPathPattern(t) : 'is not a string';
      if (problem) throw bad(`templates[${i}] ${problem}.`);
      return t as string;
    });
  }
  for (const [attr, key] of [['keep_query', 'keepQuery'], ['honour_gpc', 'honourGpc']] as const) {
    if (a[attr] === undefined) continue;
    if (typeof a[attr] !== 'boolean') throw bad(`${attr} must be true or false.`);
    out[key] = a[attr];
  }
  if (a.raw_retention_days !== undefined) {
    const d = a.raw_retention_days;
    if (typeof d !== 'number' || !Number.isInteger(d) || d < 1 || d > MAX_RAW_RETENTION_DAYS) {
      throw bad(`raw_retention_days must be a whole number of days from 1 to ${MAX_RAW_RETENTION_DAYS}.`);
    }
    out.rawRetentionDays = d;
  }
  return out;
}

export function fieldSiteNotFound(id: unknown): ApiError {
  return new ApiError('E40418', `No field site with ID ${show(id)} in this account; GET /field_sites lists them.`);
}

export async function requireFieldSite(db: Db, accountId: string, id: string): Promise<FieldSite> {
  const row = await getFieldSite(db, accountId, id);
  if (!row) throw fieldSiteNotFound(id);
  return fieldSiteOf(row);
}

export async function listSites(db: Db, accountId: string): Promise<FieldSite[]> {
  return (await listFieldSites(db, accountId)).map(fieldSiteOf);
}

export async function createFieldSite(store: Store, p: Principal, input: FieldSiteInput): Promise<FieldSite> {
  assertOwnerRole(p, 'create field sites');
  return store.db.transaction().execute(async (trx) => {
    if ((await countFieldSites(trx, p.accountId)) >= MAX_FIELD_SITES) {
      throw bad(`The account has ${MAX_FIELD_SITES} field sites, the most it may have; delete one first.`);
    }
    const row: FieldSiteRow = {
      id: newId(), account_id: p.accountId, name: input.name!, origins: JSON.stringify(input.origins!),
      sample_rate: input.sampleRate ?? 100, templates: JSON.stringify(input.templates ?? []),
      keep_query: input.keepQuery ? 1 : 0, honour_gpc: input.honourGpc === false ? 0 : 1,
      raw_retention_days: input.rawRetentionDays ?? DEFAULT_RAW_RETENTION_DAYS, created: clock.now(),
    };
    await insertFieldSite(trx, row);
    return fieldSiteOf(row);
  });
}

export async function changeFieldSite(store: Store, p: Principal, site: FieldSite, input: FieldSiteInput): Promise<FieldSite> {
  assertOwnerRole(p, 'change field sites');
  const fields: Parameters<typeof updateFieldSite>[2] = {};
  if (input.name !== undefined) fields.name = input.name;
  if (input.origins !== undefined) fields.origins = JSON.stringify(input.origins);
  if (input.sampleRate !== undefined) fields.sample_rate = input.sampleRate;
  if (input.templates !== undefined) fields.templates = JSON.stringify(input.templates);
  if (input.keepQuery !== undefined) fields.keep_query = input.keepQuery ? 1 : 0;
  if (input.honourGpc !== undefined) fields.honour_gpc = input.honourGpc ? 1 : 0;
  if (input.rawRetentionDays !== undefined) fields.raw_retention_days = input.rawRetentionDays;
  if (Object.keys(fields).length > 0) await updateFieldSite(store.db, site.id, fields);
  return requireFieldSite(store.db, p.accountId, site.id);
}

export async function removeFieldSite(store: Store, p: Principal, site: FieldSite): Promise<void> {
  assertOwnerRole(p, 'delete field sites');
  await store.db.transaction().execute((trx) => deleteFieldSite(trx, site.id));
}
