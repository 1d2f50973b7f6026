import type { Db } from '../../store/db.js';
import { tagIdsOfPages } from '../../store/tags.js';

/**
 * The one way pages and reports get their `page_tags`: tag IDs per page ID (every asked page is in the map,
 * with [] when untagged). Reads `page_tag_links`; the query itself lives with the tags (store/tags.ts) so the
 * order of the IDs (tag creation order) is decided in one place.
 */
export function tagIdsForPages(db: Db, pageIds: string[]): Promise<Map<string, string[]>> {
  return tagIdsOfPages(db, [...new Set(pageIds)]);
}
