/** The typed database handles every repository takes (db.ts opens them; prepared.ts and engine.ts only need their types). */
import type { Kysely, Transaction } from 'kysely';
import type { Database } from './schema.js';

export type Engine = 'sqlite' | 'postgres';

/** What a query runs on: the database, or a transaction of it. */
export type Db = Kysely<Database> | Transaction<Database>;
/** The database itself: what can start a transaction. */
export type RootDb = Kysely<Database>;
/** Inside a transaction (what row locks need). */
export type Trx = Transaction<Database>;
