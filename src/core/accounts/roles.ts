import type { Principal } from './accounts.js';
import { ApiError } from '../errors.js';

/** The Viewer role reads; only the Owner role changes anything or spends credits (spec 5). */
export const mayChange = (p: Pick<Principal, 'role'>): boolean => p.role !== 'viewer';

/** The refusal of mayChange, the same words wherever a Viewer tries (API and web app). */
export function assertOwnerRole(p: Pick<Principal, 'role'>, what: string): void {
  if (!mayChange(p)) throw new ApiError('E40301', `The Viewer role cannot ${what}; ask the team owner for a key with the Owner role.`);
}
