/**
 * Queries compiled once and then run with new parameters. For the few queries every API request runs, Kysely's
 * builder and compiler cost more than the query itself (about 20 µs against 4 µs on SQLite); together with the
 * statement cache of db.ts, a compiled query costs what the database does.
 */
import { createHash } from 'node:crypto';
import type { Compilable, CompiledQuery } from 'kysely';
import type { Db } from './handles.js';

type Argument = string | number;

const STAND_IN = '\u0000webgauge-argument-';

/** The SQL texts of compiled queries, with the name PostgreSQL keeps each one prepared under (db.ts). */
const statementNames = new Map<string, string>();

/** The server-side statement name for a compiled query's SQL; undefined for any other SQL. */
export function statementName(text: string): string | undefined {
  return statementNames.get(text);
}

/**
 * `build` gets stand-ins for its arguments and must use each as a plain parameter value (a `where` operand, not
 * a table or column name); the compiled query is kept per database handle, so SQL of the right dialect is used.
 */
export function compiledQuery<A extends Argument[], R>(arity: number, build: (db: Db, ...args: A) => Compilable<R>) {
  const cache = new WeakMap<Db, { query: CompiledQuery<R>; slots: number[] }>();
  const compile = (db: Db) => {
    const standIns = Array.from({ length: arity }, (_, i) => `${STAND_IN}${i}`);
    const query = build(db, ...(standIns as A)).compile();
    const slots = query.parameters.map((p) => (typeof p === 'string' && p.startsWith(STAND_IN) ? Number(p.slice(STAND_IN.length)) : -1));
    for (let i = 0; i < arity; i++) {
      if (!slots.includes(i)) throw new Error(`compiledQuery: argument ${i} does not appear as a parameter of ${query.sql}`);
    }
    const compiled = { query, slots };
    if (!statementNames.has(query.sql)) statementNames.set(query.sql, `webgauge_${createHash('sha256').update(query.sql).digest('hex').slice(0, 16)}`);
    cache.set(db, compiled);
    return compiled;
  };
  return async (db: Db, ...args: A): Promise<R[]> => {
    const { query, slots } = cache.get(db) ?? compile(db);
    const parameters = query.parameters.map((p, i) => (slots[i] >= 0 ? args[slots[i]] : p));
    const result = await db.executeQuery<R>({ ...query, parameters });
    return result.rows;
  };
}
