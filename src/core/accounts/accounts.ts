import type { Db, RootDb } from '../../store/db.js';
import {
  accountByEmail, accountById, accountByKeyHash, addCredits, countAccountRows, creditBalance, insertAccount, listAccountRows,
  passwordHashByEmail, setAccountSecrets, setCreditBalance, updateAccountByEmail,
} from '../../store/accounts.js';
import type { AccountsTable } from '../../store/schema.js';
import { accountsChanged } from './auth-cache.js';
import { clock } from '../clock.js';
import { hashApiKey, hashSessionToken, newApiKey, newId } from '../ids.js';
import { deleteSessionsOf } from '../../store/sessions.js';
import { ApiError } from '../errors.js';
import { hashPassword, PasswordError, verifyPassword } from './passwords.js';
import type { Plan, PlanName, PlanRegistry, Role } from './plans.js';

export const DAY_MS = 86_400_000;

/** Who is calling: the key's own account, and the account whose data and credits it works with. */
export interface Principal {
  /** The account that owns the data: the key's account, or its team owner for a team member. */
  accountId: string;
  /** The account the API key belongs to. */
  keyAccountId: string;
  apiKey: string;
  email: string;
  role: Role;
  plan: Plan;
  emailValidated: boolean;
}

export const tenths = (credits: number): number => Math.round(credits * 10);
export const fromTenths = (t: number): number => Math.round(t) / 10;

export interface CreateAccountInput {
  email: string;
  plan: PlanName;
  credits?: number;
  role?: Role;
  /** E-mail of the team owner whose data a member works with. */
  teamOf?: string;
  emailValidated?: boolean;
}

export class AccountInputError extends Error {}

function knownPlan(plans: PlanRegistry, name: string): Plan {
  if (!plans.has(name)) throw new AccountInputError(`unknown plan "${name}"; the plans are ${plans.names().join(', ')}`);
  return plans.get(name);
}

function validCredits(credits: number): number {
  if (!Number.isFinite(credits) || credits < 0) throw new AccountInputError(`credits must be a number ≥ 0, got ${credits}`);
  return credits;
}

export async function createAccount(db: RootDb, plans: PlanRegistry, input: CreateAccountInput): Promise<{ id: string; apiKey: string }> {
  const email = input.email.trim().toLowerCase();
  if (!/^[^\s@]+@[^\s@]+$/.test(email)) throw new AccountInputError(`"${input.email}" is not an e-mail address`);
  const plan = knownPlan(plans, input.plan);
  const role = input.role ?? 'owner';
  if (role !== 'owner' && role !== 'viewer') throw new AccountInputError(`role must be owner or viewer, got "${role}"`);
  let teamOwnerId: string | null = null;
  if (input.teamOf) {
    const owner = await accountByEmail(db, input.teamOf.trim().toLowerCase());
    if (!owner) throw new AccountInputError(`no account with e-mail ${input.teamOf} to join as a team member`);
    teamOwnerId = owner.team_owner_id ?? owner.id;
  } else if (role === 'viewer') {
    throw new AccountInputError('a viewer must belong to a team: give --team-of EMAIL');
  }
  const existing = await accountByEmail(db, email);
  if (existing) throw new AccountInputError(`an account with e-mail ${email} already exists`);
  const credits = validCredits(input.credits ?? plan.initialCredits);
  const apiKey = newApiKey();
  const id = newId();
  const now = clock.now();
  await insertAccount(db, {
    id,
    email,
    plan: plan.name,
    role,
    team_owner_id: teamOwnerId,
    api_key_hash: hashApiKey(apiKey),
    credits_tenths: tenths(credits),
    credits_refilled_at: now,
    email_validated: input.emailValidated === false ? 0 : 1,
    created: now,
  });
  return { id, apiKey };
}

/** Sets (or replaces) the web app password of the account with this e-mail. */
export async function setPassword(db: RootDb, email: string, password: string): Promise<void> {
  let hash: string;
  try {
    hash = await hashPassword(password);
  } catch (err) {
    if (err instanceof PasswordError) throw new AccountInputError(err.message);
    throw err;
  }
  const account = await accountByEmail(db, email.trim().toLowerCase());
  if (!account) throw new AccountInputError(`no account with e-mail ${email}`);
  await setAccountSecrets(db, account.id, { password_hash: hash });
  // Whoever signed in with the old password (or a leaked one) is signed out.
  await deleteSessionsOf(db, account.id);
}

/** The account whose e-mail and password these are; undefined otherwise (no password set counts as wrong). */
export async function accountByPassword(db: Db, email: string, password: string): Promise<string | undefined> {
  const row = await passwordHashByEmail(db, email.trim().toLowerCase());
  if (!row?.password_hash) return undefined;
  return (await verifyPassword(password, row.password_hash)) ? row.id : undefined;
}

export async function regenerateKey(db: RootDb, email: string): Promise<string> {
  const account = await accountByEmail(db, email.trim().toLowerCase());
  if (!account) throw new AccountInputError(`no account with e-mail ${email}`);
  return regenerateKeyOf(db, account.id);
}

export interface AccountSummary {
  email: string;
  plan: string;
  credits: number;
  role: Role;
  teamOf: string | null;
}

/** Every account, oldest first, without anything secret. */
export async function listAccounts(db: RootDb): Promise<AccountSummary[]> {
  const rows = await listAccountRows(db);
  return rows.map((r) => ({ email: r.email, plan: r.plan, credits: fromTenths(r.credits_tenths), role: r.role as Role, teamOf: r.team_of }));
}

/** Move an account to another plan and/or set its balance (the operator's `account update`). */
export async function updateAccount(db: RootDb, plans: PlanRegistry, email: string, change: { plan?: string; credits?: number }):
  Promise<AccountSummary> {
  const set: { plan?: string; credits_tenths?: number } = {};
  if (change.plan !== undefined) set.plan = knownPlan(plans, change.plan).name;
  if (change.credits !== undefined) set.credits_tenths = tenths(validCredits(change.credits));
  if (set.plan === undefined && set.credits_tenths === undefined) throw new AccountInputError('nothing to change: give --plan and/or --credits');
  const normalised = email.trim().toLowerCase();
  if (!(await updateAccountByEmail(db, normalised, set))) throw new AccountInputError(`no account with e-mail ${email}`);
  accountsChanged();
  return (await listAccounts(db)).find((a) => a.email === normalised)!;
}

export async function countAccounts(db: RootDb): Promise<number> {
  return countAccountRows(db);
}

export async function authenticate(db: RootDb, plans: PlanRegistry, apiKey: string): Promise<Principal | null> {
  const row = await accountByKeyHash(db, hashApiKey(apiKey));
  return row ? principalOfRow(db, plans, row, apiKey) : null;
}

/** The principal of an account signed in to the web app (its API key is not known: keys are stored hashed). */
export async function principalOfAccount(db: RootDb, plans: PlanRegistry, accountId: string): Promise<Principal | null> {
  const row = await accountById(db, accountId);
  return row ? principalOfRow(db, plans, row, '') : null;
}

async function principalOfRow(db: RootDb, plans: PlanRegistry, row: AccountsTable, apiKey: string): Promise<Principal | null> {
  let owner: AccountsTable = row;
  if (row.team_owner_id) {
    const o = await accountById(db, row.team_owner_id);
    if (!o) return null;
    owner = o;
  }
  return {
    accountId: owner.id,
    keyAccountId: row.id,
    apiKey,
    email: row.email,
    role: row.role as Role,
    plan: plans.get(owner.plan),
    emailValidated: row.email_validated === 1,
  };
}

/**
 * A new API key for the account that holds this ID; the old key stops at once here, and the account's web app
 * sessions end (one may have been opened with the old key), but the one of the person asking (`keepSession`).
 */
export async function regenerateKeyOf(db: RootDb, accountId: string, keepSession?: string): Promise<string> {
  const apiKey = newApiKey();
  await setAccountSecrets(db, accountId, { api_key_hash: hashApiKey(apiKey) });
  await deleteSessionsOf(db, accountId, keepSession === undefined ? undefined : hashSessionToken(keepSession));
  accountsChanged();
  return apiKey;
}

/**
 * Daily refill: once a day has passed since the last refill, a balance below the plan's allowance goes back up
 * to it; a balance at or above it is left alone (credits never accumulate beyond the allowance by refilling).
 * Returns the balance in tenths after any refill. Call inside the transaction that spends credits.
 */
export async function refilledCredits(db: Db, accountId: string, plan: Plan): Promise<{ tenths: number; nextRefill: number }> {
  const acc = await creditBalance(db, accountId);
  const now = clock.now();
  let balance = acc.credits_tenths;
  let refilledAt = acc.credits_refilled_at;
  if (now - refilledAt >= DAY_MS) {
    const days = Math.floor((now - refilledAt) / DAY_MS);
    refilledAt += days * DAY_MS;
    balance = Math.max(balance, tenths(plan.dailyCredits));
    await setCreditBalance(db, accountId, { credits_tenths: balance, credits_refilled_at: refilledAt });
  }
  return { tenths: balance, nextRefill: refilledAt + DAY_MS };
}

/**
 * Charge `cost` tenths to the principal's (owner) account after any refill, refusing with 402 E40201 (`what`
 * costs so much, the account has so much) when the balance is short. An unlimited plan is neither refused nor
 * debited. Returns what was charged (to refund on failure) and the balance after. Call inside a transaction.
 */
export async function spendCredits(db: Db, principal: Pick<Principal, 'accountId' | 'plan'>, cost: number, what: string):
  Promise<{ chargedTenths: number; leftTenths: number }> {
  const credits = await refilledCredits(db, principal.accountId, principal.plan);
  if (principal.plan.unlimitedCredits) return { chargedTenths: 0, leftTenths: credits.tenths };
  if (credits.tenths < cost) {
    throw new ApiError('E40201', `${what} costs ${fromTenths(cost)} credits and the account has ${fromTenths(credits.tenths)}; ` +
      `credits refill at ${new Date(credits.nextRefill).toISOString()}.`);
  }
  await adjustCredits(db, principal.accountId, -cost);
  return { chargedTenths: cost, leftTenths: credits.tenths - cost };
}

export async function adjustCredits(db: Db, accountId: string, deltaTenths: number): Promise<void> {
  await addCredits(db, accountId, deltaTenths);
}
