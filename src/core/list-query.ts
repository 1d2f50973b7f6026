import { ApiError } from './errors.js';
import { hasControlCharacter } from './ids.js';
import {
  OPS,
  isNumericType,
  type AttrSpec,
  type FilterTerm,
  type ListQuery,
  type ListSpec,
  type ListTable,
  type Op,
  type SortKey,
} from '../store/list-query.js';

/**
 * The list query language of spec 4.1 and 4.3, in one parser: `sort`, `filter[attr]`, `filter[attr:op]`,
 * `filter[:bool]`, `page[size]`, `page[number]`. Input is the query as `parseQuery` (server.ts) leaves it:
 * raw brackets in keys, repeated keys as arrays, `+` already a space. The API's lists read it (api/query.ts), and so
 * does the app's filter of a scan's pages: one set of rules and messages.
 */

export const MAX_PAGE_SIZE = 500;
/**
 * Values one filter takes (page_tag's 500 tags of the spec, and as many for every other filter), and all the
 * filters of one query together: each value is a bound parameter and a term of the WHERE clause, so these keep
 * a query well inside SQLite's and PostgreSQL's limits and its cost bounded.
 */
export const MAX_FILTER_VALUES = 500;
export const MAX_QUERY_FILTER_VALUES = 1000;
const MAX_PAGE_NUMBER = 1_000_000_000;
/** Unix seconds whose milliseconds JavaScript dates (and so bigint columns and safe integers) hold: ±8.64e12. */
const TIME_MAX = 8_640_000_000_000;

const FILTER_KEY = /^filter\[([^\][]*)\]$/;
const NUMBER = /^-?\d+(\.\d+)?$/;
const INTEGER = /^-?\d+$/;

function list(v: string | string[] | undefined): string[] {
  return v === undefined ? [] : Array.isArray(v) ? v : [v];
}

/** Comma-separated or repeated values, each trimmed (COMPAT: spaces or `+` around commas); empties dropped. */
function items(v: string | string[] | undefined): string[] {
  return list(v)
    .flatMap((s) => s.split(','))
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

const quoted = (xs: readonly string[]) => xs.map((x) => `"${x}"`).join(', ');

function filterable(spec: ListSpec): string[] {
  return Object.entries(spec.attrs as Record<string, AttrSpec>).filter(([, a]) => a.filter).map(([k]) => k);
}

function sortable(spec: ListSpec): string[] {
  return Object.entries(spec.attrs as Record<string, AttrSpec>).filter(([, a]) => a.sort).map(([k]) => k);
}

function parseValue(name: string, attr: AttrSpec, raw: string): string | number {
  switch (attr.type) {
    case 'enum': {
      const values = attr.values ?? [];
      const hit = values.find((v) => v.toLowerCase() === raw.toLowerCase()) ?? attr.aliases?.[raw.toLowerCase()];
      if (hit === undefined) throw new ApiError('E40006', `filter[${name}] does not accept "${raw}"; use one of ${quoted(values)}.`);
      return hit;
    }
    case 'time':
      return wholeNumber(name, raw, -TIME_MAX, TIME_MAX, 'a Unix time in whole seconds');
    // Any finite decimal, also for integer columns: the store compares as double precision (49.5 and 1e20 too).
    case 'int':
    case 'number': {
      if (!NUMBER.test(raw)) throw new ApiError('E40006', `filter[${name}] takes a number, not "${shown(raw)}".`);
      const n = Number(raw);
      if (!Number.isFinite(n)) throw new ApiError('E40006', `filter[${name}] takes a finite number, not "${shown(raw)}".`);
      return n;
    }
    default:
      if (hasControlCharacter(raw)) throw new ApiError('E40006', `filter[${name}] has a value with a control character (such as NUL); no ${name} has one.`);
      return raw;
  }
}

function wholeNumber(name: string, raw: string, min: number, max: number, what: string): number {
  const n = Number(raw);
  if (!INTEGER.test(raw) || n < min || n > max) {
    throw new ApiError('E40006', `filter[${name}] takes ${what} from ${min} to ${max}, not "${shown(raw)}".`);
  }
  return n;
}

/** A value quoted in a detail, cut short: details stay readable whatever was sent. */
const shown = (raw: string) => (raw.length > 40 ? `${raw.slice(0, 37)}...` : raw);

function parseFilter(spec: ListSpec, key: string, inner: string, raw: string | string[]): FilterTerm {
  const parts = inner.split(':');
  const name = parts[0];
  const attr = (spec.attrs as Record<string, AttrSpec | undefined>)[name];
  if (parts.length > 2 || name === '' || !attr?.filter) {
    throw new ApiError('E40005', `Unknown filter ${key}; the ${spec.table} list filters on ${quoted(filterable(spec))}, with :eq, :lt, :lte, :gt or :gte on numeric attributes.`);
  }
  const op = (parts.length === 2 ? parts[1].toLowerCase() : 'eq') as Op;
  if (!OPS.includes(op)) {
    throw new ApiError('E40005', `Unknown operator "${parts[1]}" in ${key}; use eq, lt, lte, gt or gte.`);
  }
  if (op !== 'eq' && !isNumericType(attr.type)) {
    throw new ApiError('E40005', `filter[${name}] is not numeric and takes no :${op}; give filter[${name}]=value.`);
  }
  const values = items(raw);
  if (values.length === 0) throw new ApiError('E40006', `${key} has no value; give at least one (several comma-separated).`);
  const distinct = new Set(values).size;
  if (distinct > MAX_FILTER_VALUES) {
    throw new ApiError('E40005', `${key} takes at most ${MAX_FILTER_VALUES} ${attr.type === 'tag' ? 'tag IDs' : 'values'}, got ${distinct}.`);
  }
  // A value given twice (or spelled twice: "Completed" and "completed") is one term: repeats never reach SQL.
  return { attr: name, type: attr.type, op, values: [...new Set(values.map((v) => parseValue(name, attr, v)))] };
}

function parseSort(spec: ListSpec, raw: string | string[]): SortKey[] {
  const keys: SortKey[] = [];
  const accepted = `sort by ${quoted(sortable(spec))}, "-" before a name for descending, several comma-separated`;
  for (const item of items(raw)) {
    const desc = item.startsWith('-');
    const attr = desc ? item.slice(1).trim() : item;
    const why = spec.unsortable?.[attr];
    if (why) throw new ApiError('E40007', `${why}; ${accepted}.`);
    if (!(spec.attrs as Record<string, AttrSpec | undefined>)[attr]?.sort) {
      throw new ApiError('E40007', `Unknown sort "${item}"; ${accepted}.`);
    }
    if (keys.some((k) => k.attr === attr)) throw new ApiError('E40007', `sort names "${attr}" twice; give each attribute once.`);
    keys.push({ attr, desc });
  }
  return keys;
}

function parsePageParam(name: string, raw: string | string[], max: number): number {
  const values = list(raw).map((s) => s.trim());
  const accepted = name === 'size' ? `an integer from 1 to ${MAX_PAGE_SIZE}` : 'an integer from 1 (the first page)';
  if (values.length !== 1) throw new ApiError('E40008', `page[${name}] is given ${values.length} times; give it once, ${accepted}.`);
  const v = values[0];
  if (!/^\d{1,10}$/.test(v) || Number(v) < 1 || Number(v) > max) {
    throw new ApiError('E40008', `page[${name}] must be ${accepted}, not "${v}".`);
  }
  return Number(v);
}

/** Parse and check a list query against the resource's table; every refusal is a spec 400 with what is accepted. */
export function parseListQuery<T extends ListTable>(spec: ListSpec<T>, query: Record<string, string | string[]>): ListQuery {
  const filters: FilterTerm[] = [];
  let bools: string[] = [];
  let sort: SortKey[] = [];
  let size = spec.defaultPageSize;
  let number = 1;
  for (const [key, raw] of Object.entries(query)) {
    const m = FILTER_KEY.exec(key);
    if (key === 'sort') sort = parseSort(spec, raw);
    else if (key === 'page[size]') size = parsePageParam('size', raw, MAX_PAGE_SIZE);
    else if (key === 'page[number]') number = parsePageParam('number', raw, MAX_PAGE_NUMBER);
    else if (m && m[1] === ':bool') bools = items(raw).map((b) => b.toUpperCase());
    else if (m) filters.push(parseFilter(spec, key, m[1], raw));
    else {
      throw new ApiError('E40005', `Unknown query parameter "${key}"; lists take sort, filter[attribute], filter[attribute:operator], filter[:bool], page[size] and page[number].`);
    }
  }
  const valueCount = filters.reduce((n, f) => n + new Set(f.values).size, 0);
  if (valueCount > MAX_QUERY_FILTER_VALUES) {
    throw new ApiError('E40005', `The filters of this query have ${valueCount} values in all; at most ${MAX_QUERY_FILTER_VALUES} are accepted (${MAX_FILTER_VALUES} per filter).`);
  }
  const boolGiven = Object.prototype.hasOwnProperty.call(query, 'filter[:bool]');
  if (boolGiven) {
    const distinct = [...new Set(bools)];
    if (distinct.length !== 1 || (distinct[0] !== 'AND' && distinct[0] !== 'OR')) {
      throw new ApiError('E40005', `filter[:bool] must be AND or OR (once), not "${list(query['filter[:bool]']).join(',')}".`);
    }
    if (filters.length === 0) throw new ApiError('E40005', 'filter[:bool] must be given with at least one other filter.');
  }
  return {
    filters,
    bool: boolGiven && bools[0] === 'OR' ? 'OR' : 'AND',
    sort,
    filteredOrSorted: filters.length > 0 || sort.length > 0,
    page: { size, number },
  };
}
