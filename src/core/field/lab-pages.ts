/**
 * Field meets lab: which paths of a field site have lab tests in the site's own account (a page, with a report, whose
 * URL is one of the site's origins and that path). The Field screen links such a path's row to its page.
 */
import type { Db } from '../../store/db.js';
import { labPagesOf } from '../../store/field.js';
import type { FieldSite } from './sites.js';

/** Per path of `paths` that has lab tests: the ID of its most recently tested page (the account's own pages only). */
export function labPagesOfPaths(db: Db, site: Pick<FieldSite, 'accountId' | 'origins'>, paths: readonly string[]): Promise<Map<string, string>> {
  if (paths.length === 0) return Promise.resolve(new Map());
  return labPagesOf(db, site.accountId, site.origins, paths);
}
