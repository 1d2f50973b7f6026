/**
 * The API's side of the list query language: the parser is core's (core/list-query.ts: the API and the app read lists
 * alike); the links of a list's pages are the API's own.
 */
export { MAX_FILTER_VALUES, MAX_PAGE_SIZE, MAX_QUERY_FILTER_VALUES, parseListQuery } from '../core/list-query.js';

/**
 * `links.self`, `links.prev`, `links.next` of a list: absolute, the request's own path and query with only
 * page[number] replaced; prev absent on the first page, next absent on the last.
 */
export function listLinks(origin: string, rawUrl: string, page: number, hasNext: boolean): { self: string; prev?: string; next?: string } {
  const q = rawUrl.indexOf('?');
  const path = (q < 0 ? rawUrl : rawUrl.slice(0, q)).replace(/\/{2,}/g, '/');
  const pairs = (q < 0 ? '' : rawUrl.slice(q + 1)).split('&').filter((p) => p !== '');
  const kept = pairs.filter((p) => decodeKey(p.split('=')[0]) !== 'page[number]');
  const at = (n: number) => `${origin}${path}?${[...kept, `page[number]=${n}`].join('&')}`;
  const links: { self: string; prev?: string; next?: string } = {
    self: pairs.length > 0 ? `${origin}${path}?${pairs.join('&')}` : `${origin}${path}`,
  };
  if (page > 1) links.prev = at(page - 1);
  if (hasNext) links.next = at(page + 1);
  return links;
}

function decodeKey(k: string): string {
  try {
    return decodeURIComponent(k.replace(/\+/g, ' '));
  } catch {
    return k;
  }
}
