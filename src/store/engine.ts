import { SqliteAdapter, type Kysely } from 'kysely';
import type { Engine } from './handles.js';

/** Which engine a Kysely handle speaks to (for the few statements that differ: migrations, list-query.ts). */
export function engineOf(db: Kysely<any>): Engine {
  return db.getExecutor().adapter instanceof SqliteAdapter ? 'sqlite' : 'postgres';
}
