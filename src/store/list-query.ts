import { sql, type Expression, type SelectQueryBuilder, type SqlBool } from 'kysely';
import type { Engine } from './db.js';
import type { Database } from './schema.js';

/**
 * The typed list query (made by api/query.ts from the query string) and its one translation into Kysely.
 * Column names come only from the per-resource table (`ListSpec`, core/vocabulary/lists.ts): the parser emits no
 * attribute that is not a key of it, and every value reaches the database as a bound parameter.
 */

export type ValueType =
  /** One of a fixed set of words (state, source, grade...). */
  | 'enum'
  /** An opaque ID compared for equality (browser, location). */
  | 'id'
  /** Case-insensitive substring of the URL. */
  | 'fuzzy'
  /** Tag IDs of the page (pages list only): all of them, or any with `filter[:bool]=OR`. */
  | 'tag'
  | 'int'
  | 'number'
  /** Unix seconds at the API, milliseconds in the database. */
  | 'time';

export type Op = 'eq' | 'lt' | 'lte' | 'gt' | 'gte';
export const OPS: readonly Op[] = ['eq', 'lt', 'lte', 'gt', 'gte'];
export const isNumericType = (t: ValueType): boolean => t === 'int' || t === 'number' || t === 'time';

export interface AttrSpec {
  type: ValueType;
  /** enum: the accepted words; `aliases` maps other spellings onto them. */
  values?: readonly string[];
  aliases?: Readonly<Record<string, string>>;
  filter?: boolean;
  sort?: boolean;
  /** The column may be NULL: sorted last either way, on both engines. */
  nullable?: boolean;
}

export type ListTable = 'tests' | 'pages' | 'reports' | 'alert_events' | 'field_alert_events' | 'deliveries' | 'scan_pages' | 'scans';

export interface ListSpec<T extends ListTable = ListTable> {
  table: T;
  /** Keys are column names of the table (checked by the type), plus `page_tag` for the tag filter. */
  attrs: Partial<Record<(keyof Database[T] & string) | 'page_tag', AttrSpec>>;
  defaultSort: readonly SortKey[];
  defaultPageSize: number;
  /** Attributes that exist but cannot be sorted, with the reason (spec: pages by report_count). */
  unsortable?: Readonly<Record<string, string>>;
}

export interface FilterTerm {
  attr: string;
  type: ValueType;
  op: Op;
  /** OR within one filter name; numbers for numeric types (time in seconds), strings otherwise. */
  values: (string | number)[];
}

export interface SortKey {
  attr: string;
  desc: boolean;
}

export interface ListQuery {
  filters: FilterTerm[];
  /** How filter names combine (and how page_tag's tags combine). */
  bool: 'AND' | 'OR';
  sort: SortKey[];
  /** The client gave a filter or a sort (the report list allows one such query at a time per account). */
  filteredOrSorted: boolean;
  page: { size: number; number: number };
}

export interface ListPage<R> {
  rows: R[];
  hasNext: boolean;
}

/** Case-insensitive LIKE pattern for a substring; `!` escapes the wildcards so they match themselves. */
export function substringPattern(s: string): string {
  return `%${s.toLowerCase().replace(/[!%_]/g, (c) => `!${c}`)}%`;
}

function column<T extends ListTable>(spec: ListSpec<T>, attr: string) {
  if (!(attr in spec.attrs)) throw new Error(`list query attribute ${attr} is not in the ${spec.table} table`);
  return sql.ref(`${spec.table}.${attr}`);
}

const CMP = { eq: '=', lt: '<', lte: '<=', gt: '>', gte: '>=' } as const;

/**
 * One value of one term. Time in the database is ms and the API shows floor(ms / 1000), so a comparison in
 * seconds becomes a range in ms that is exact for every stored ms value.
 */
function condition<T extends ListTable>(spec: ListSpec<T>, term: FilterTerm, value: string | number, engine: Engine): Expression<SqlBool> {
  const col = column(spec, term.attr);
  switch (term.type) {
    case 'time': {
      const s = value as number;
      const ms = s * 1000;
      switch (term.op) {
        case 'eq':
          return sql<SqlBool>`(${col} >= ${ms} and ${col} < ${ms + 1000})`;
        case 'gt':
          return sql<SqlBool>`${col} >= ${ms + 1000}`;
        case 'gte':
          return sql<SqlBool>`${col} >= ${ms}`;
        case 'lt':
          return sql<SqlBool>`${col} < ${ms}`;
        case 'lte':
          return sql<SqlBool>`${col} < ${ms + 1000}`;
      }
    }
    // falls through: unreachable, every op returns above
    // As double precision on both engines: a decimal or a value past the integer column's range (1.5, 1e20)
    // compares as numbers do, where PostgreSQL would refuse it as an integer parameter.
    case 'int':
    case 'number':
      return sql<SqlBool>`${col} ${sql.raw(CMP[term.op])} cast(${value} as double precision)`;
    case 'fuzzy':
      // SQLite's LIKE ignores ASCII case, as its lower() folds it, and without lower() the page list's index
      // (migration 005) holds all the filter reads; PostgreSQL's trigram index is on lower(url).
      return engine === 'sqlite'
        ? sql<SqlBool>`${col} like ${substringPattern(String(value))} escape '!'`
        : sql<SqlBool>`lower(${col}) like ${substringPattern(String(value))} escape '!'`;
    case 'enum':
    case 'id':
      return sql<SqlBool>`${col} = ${value}`;
    case 'tag':
      throw new Error('tag terms are translated as a whole');
  }
}

/** Pages having all the tags (AND) or at least one (OR); an unknown tag ID is simply never linked. */
function tagCondition(term: FilterTerm, bool: 'AND' | 'OR'): Expression<SqlBool> {
  const tags = [...new Set(term.values.map(String))];
  const inTags = sql.join(tags.map((t) => sql`${t}`));
  if (bool === 'OR') {
    return sql<SqlBool>`exists (select 1 from page_tag_links l where l.page_id = ${sql.ref('pages.id')} and l.tag_id in (${inTags}))`;
  }
  return sql<SqlBool>`(select count(*) from page_tag_links l where l.page_id = ${sql.ref('pages.id')} and l.tag_id in (${inTags})) = ${tags.length}`;
}

function termCondition<T extends ListTable>(spec: ListSpec<T>, term: FilterTerm, bool: 'AND' | 'OR', engine: Engine): Expression<SqlBool> {
  if (term.type === 'tag') return tagCondition(term, bool);
  const parts = term.values.map((v) => condition(spec, term, v, engine));
  return parts.length === 1 ? parts[0] : sql<SqlBool>`(${sql.join(parts, sql` or `)})`;
}

/** The filters of the query as one condition, or undefined when there are none. */
export function filterCondition<T extends ListTable>(spec: ListSpec<T>, q: ListQuery, engine: Engine): Expression<SqlBool> | undefined {
  if (q.filters.length === 0) return undefined;
  const parts = q.filters.map((t) => termCondition(spec, t, q.bool, engine));
  if (parts.length === 1) return parts[0];
  return sql<SqlBool>`(${sql.join(parts, q.bool === 'OR' ? sql` or ` : sql` and `)})`;
}

/**
 * Filters, sort (with `id` as the last tiebreaker, in the direction of the last key, so pages never overlap
 * and one index can serve `created, id`), and one page: size + 1 rows, to know whether a next page exists.
 */
export function listQueryBuilder<T extends ListTable, O>(
  qb: SelectQueryBuilder<Database, T, O>,
  spec: ListSpec<T>,
  q: ListQuery,
  engine: Engine,
): SelectQueryBuilder<Database, T, O> {
  const where = filterCondition(spec, q, engine);
  let query = where ? qb.where(where) : qb;
  const keys = q.sort.length > 0 ? q.sort : spec.defaultSort;
  for (const k of keys) {
    const col = column(spec, k.attr);
    const nullable = spec.attrs[k.attr as keyof typeof spec.attrs]?.nullable;
    query = query.orderBy(col, (ob) => {
      const dir = k.desc ? ob.desc() : ob.asc();
      return nullable ? dir.nullsLast() : dir;
    });
  }
  const lastDesc = keys.length > 0 && keys[keys.length - 1].desc;
  return query
    .orderBy(sql.ref(`${spec.table}.id`), lastDesc ? 'desc' : 'asc')
    .limit(q.page.size + 1)
    .offset((q.page.number - 1) * q.page.size);
}

export async function runListQuery<T extends ListTable, O>(
  qb: SelectQueryBuilder<Database, T, O>,
  spec: ListSpec<T>,
  q: ListQuery,
  engine: Engine,
): Promise<ListPage<O>> {
  const rows = await listQueryBuilder(qb, spec, q, engine).execute();
  const hasNext = rows.length > q.page.size;
  return { rows: hasNext ? rows.slice(0, q.page.size) : rows, hasNext };
}
