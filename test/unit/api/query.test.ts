/**
 * The list query language (spec 4.1, 4.3, 7; COMPAT "Requests"): every rule of the parser and every error code
 * it assigns, through parseQuery as the server runs it, so raw brackets, `+` and repeated keys are real.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { listLinks, parseListQuery } from '../../../src/api/query.js';
import { parseQuery } from '../../../src/api/server.js';
import { ApiError } from '../../../src/core/errors.js';
import type { ListSpec } from '../../../src/store/list-query.js';
import { PAGES_LIST, REPORTS_LIST, TESTS_LIST } from '../../../src/core/vocabulary/lists.js';

const parse = (spec: ListSpec, qs: string) => parseListQuery(spec, parseQuery(qs));
const tests = (qs: string) => parse(TESTS_LIST, qs);
const pages = (qs: string) => parse(PAGES_LIST, qs);
const reports = (qs: string) => parse(REPORTS_LIST, qs);

/** Asserts the spec error code and that the detail says what is accepted (matches `mentions`). */
function refuses(fn: () => unknown, code: string, mentions?: RegExp) {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof ApiError, `ApiError, got ${String(err)}`);
    assert.equal(err.code, code, `code (detail: ${err.detail})`);
    assert.equal(err.status, code === 'E42902' ? 429 : 400);
    assert.ok(err.detail && err.detail.length > 10, 'a detail that helps');
    if (mentions) assert.match(err.detail!, mentions);
    return true;
  });
}

describe('defaults', () => {
  it('tests: created ascending, 50 a page, page 1, no filter', () => {
    const q = tests('');
    assert.deepEqual(q.filters, []);
    assert.deepEqual(q.sort, []);
    assert.deepEqual(q.page, { size: 50, number: 1 });
    assert.equal(q.bool, 'AND');
    assert.equal(q.filteredOrSorted, false);
    assert.deepEqual(TESTS_LIST.defaultSort, [{ attr: 'created', desc: false }]);
  });
  it('pages: 10 a page, created descending', () => {
    assert.deepEqual(pages('').page, { size: 10, number: 1 });
    assert.deepEqual(PAGES_LIST.defaultSort, [{ attr: 'created', desc: true }]);
  });
  it('reports: 50 a page, created descending (newer variant)', () => {
    assert.deepEqual(reports('').page, { size: 50, number: 1 });
    assert.deepEqual(REPORTS_LIST.defaultSort, [{ attr: 'created', desc: true }]);
  });
  it('page parameters alone are not a filter or a sort', () => {
    assert.equal(reports('page[size]=5&page[number]=2').filteredOrSorted, false);
  });
});

describe('sort', () => {
  it('one key ascending, "-" descending', () => {
    assert.deepEqual(tests('sort=finished').sort, [{ attr: 'finished', desc: false }]);
    assert.deepEqual(tests('sort=-started').sort, [{ attr: 'started', desc: true }]);
  });
  it('several keys comma-separated, in order', () => {
    assert.deepEqual(tests('sort=-created,started').sort, [
      { attr: 'created', desc: true },
      { attr: 'started', desc: false },
    ]);
  });
  it('several keys by repeating the parameter', () => {
    assert.deepEqual(tests('sort=started&sort=-finished').sort, [
      { attr: 'started', desc: false },
      { attr: 'finished', desc: true },
    ]);
  });
  it('spaces and + around the keys are ignored; a leading + (a space once decoded) means ascending', () => {
    assert.deepEqual(tests('sort=+created+,+-finished').sort, [
      { attr: 'created', desc: false },
      { attr: 'finished', desc: true },
    ]);
  });
  it('an empty sort is the default sort', () => {
    assert.deepEqual(tests('sort=').sort, []);
    assert.equal(tests('sort=').filteredOrSorted, false);
  });
  it('a sort counts as "sorted" for the report-list lock', () => {
    assert.equal(reports('sort=-created').filteredOrSorted, true);
  });
  it('reports sort by created, expires, scores and any numeric attribute', () => {
    for (const k of ['created', 'expires', 'performance_score', 'structure_score', 'fully_loaded_time', 'cumulative_layout_shift', 'service_score']) {
      assert.deepEqual(reports(`sort=-${k}`).sort, [{ attr: k, desc: true }]);
    }
  });
  it('pages sort by created and latest_report_time', () => {
    assert.deepEqual(pages('sort=latest_report_time,-created').sort.map((k) => k.attr), ['latest_report_time', 'created']);
  });
  it('an unknown attribute is E40007 naming the accepted ones', () => {
    refuses(() => tests('sort=url'), 'E40007', /"created", "started", "finished"/);
  });
  it('a filter-only attribute is not sortable: E40007', () => {
    refuses(() => tests('sort=state'), 'E40007');
    refuses(() => reports('sort=service_grade'), 'E40007');
    refuses(() => pages('sort=url'), 'E40007');
  });
  it('pages by report_count is refused with E40007 saying it is unavailable', () => {
    refuses(() => pages('sort=report_count'), 'E40007', /report_count is unavailable/);
    refuses(() => pages('sort=-report_count'), 'E40007', /report_count/);
  });
  it('a lone "-" and a key given twice are E40007', () => {
    refuses(() => tests('sort=-'), 'E40007');
    refuses(() => tests('sort=created,-created'), 'E40007', /twice/);
  });
  it('the attribute name is case-sensitive', () => {
    refuses(() => tests('sort=Created'), 'E40007');
  });
});

describe('filters', () => {
  it('filter[attr]=value is an eq term', () => {
    assert.deepEqual(tests('filter[state]=completed').filters, [{ attr: 'state', type: 'enum', op: 'eq', values: ['completed'] }]);
    assert.equal(tests('filter[state]=completed').filteredOrSorted, true);
  });
  it('percent-encoded brackets are the same key', () => {
    assert.deepEqual(tests('filter%5Bstate%5D=error').filters[0].values, ['error']);
  });
  it('several values comma-separated, with spaces or + around commas (COMPAT)', () => {
    assert.deepEqual(tests('filter[state]=queued+,+started , error').filters[0].values, ['queued', 'started', 'error']);
  });
  it('several values by repeating the parameter: one term, OR within it', () => {
    const q = tests('filter[state]=queued&filter[state]=error');
    assert.equal(q.filters.length, 1);
    assert.deepEqual(q.filters[0].values, ['queued', 'error']);
  });
  it('enum values are matched case-insensitively and given canonically', () => {
    assert.deepEqual(tests('filter[state]=COMPLETED').filters[0].values, ['completed']);
    assert.deepEqual(reports('filter[service_grade]=a,b').filters[0].values, ['A', 'B']);
  });
  it('monitored accepts "none" for "no"', () => {
    assert.deepEqual(pages('filter[monitored]=none,daily').filters[0].values, ['no', 'daily']);
  });
  it('an unknown enum value is E40006 listing the accepted values', () => {
    refuses(() => tests('filter[state]=foo'), 'E40006', /"queued", "started", "error", "completed"/);
    refuses(() => tests('filter[source]=bar'), 'E40006', /"api", "on-demand", "monitored"/);
    refuses(() => reports('filter[service_grade]=G'), 'E40006', /"A"/);
    refuses(() => pages('filter[monitored]=yearly'), 'E40006', /"hourly"/);
  });
  it('one bad value among good ones is still E40006', () => {
    refuses(() => tests('filter[state]=queued,foo'), 'E40006', /"foo"/);
  });
  it('a filter with no value is E40006', () => {
    refuses(() => tests('filter[state]='), 'E40006');
    refuses(() => tests('filter[state]=+,+'), 'E40006');
  });
  it('browser and location take any ID (an unknown one matches nothing)', () => {
    assert.deepEqual(tests('filter[browser]=3,7&filter[location]=1').filters.map((f) => f.values), [['3', '7'], ['1']]);
  });
  it('each filter name is its own term', () => {
    const q = tests('filter[state]=error&filter[created:gt]=5&filter[created:lt]=9');
    assert.deepEqual(q.filters.map((f) => `${f.attr}:${f.op}`), ['state:eq', 'created:gt', 'created:lt']);
  });
});

describe('operators', () => {
  it('eq lt lte gt gte on a time attribute; values are Unix seconds', () => {
    for (const op of ['eq', 'lt', 'lte', 'gt', 'gte']) {
      assert.deepEqual(tests(`filter[finished:${op}]=1700000000`).filters[0], { attr: 'finished', type: 'time', op, values: [1_700_000_000] });
    }
  });
  it('operators are case-insensitive', () => {
    assert.equal(tests('filter[created:GTE]=1').filters[0].op, 'gte');
  });
  it('an unknown operator is E40005 naming the five', () => {
    refuses(() => tests('filter[created:ne]=1'), 'E40005', /eq, lt, lte, gt or gte/);
    refuses(() => tests('filter[created:]=1'), 'E40005');
  });
  it('a comparison on a non-numeric attribute is E40005; :eq is allowed', () => {
    refuses(() => tests('filter[state:gt]=queued'), 'E40005', /not numeric/);
    refuses(() => pages('filter[url:lt]=a'), 'E40005');
    assert.equal(tests('filter[state:eq]=queued').filters[0].op, 'eq');
  });
  it('a time value must be whole seconds: E40006 otherwise', () => {
    refuses(() => tests('filter[created:gt]=yesterday'), 'E40006', /whole seconds/);
    refuses(() => tests('filter[created:gt]=1.5'), 'E40006');
    refuses(() => tests('filter[created:gt]=1e9'), 'E40006');
  });
  it('numeric report attributes take integers, decimals and negatives; other text is E40006', () => {
    assert.deepEqual(reports('filter[performance_score:gte]=49.5').filters[0].values, [49.5]);
    assert.deepEqual(reports('filter[fully_loaded_time]=-1').filters[0].values, [-1]);
    assert.deepEqual(reports('filter[cumulative_layout_shift:lt]=0.1').filters[0].values, [0.1]);
    refuses(() => reports('filter[performance_score:gte]=high'), 'E40006', /number/);
    refuses(() => pages('filter[report_count:gt]=many'), 'E40006');
  });
});

describe('attributes per resource', () => {
  it('tests filter on state, source, created, started, finished, browser, location', () => {
    for (const a of ['state=queued', 'source=api', 'created=1', 'started=1', 'finished=1', 'browser=3', 'location=1']) {
      assert.equal(tests(`filter[${a}`.replace('=', ']=')).filters.length, 1, a);
    }
  });
  it('an unknown filter attribute is E40005 listing the filterable ones', () => {
    refuses(() => tests('filter[url]=x'), 'E40005', /"state", "source"/);
    refuses(() => pages('filter[state]=queued'), 'E40005', /"url", "monitored"/);
  });
  it('reports filter on source, service_grade, created, expires, browser, location and numeric attributes', () => {
    for (const a of ['source', 'service_grade', 'browser', 'location']) assert.equal(reports(`filter[${a}]=A`.replace('=A', a === 'source' ? '=api' : '=A')).filters.length, 1);
    for (const a of ['created', 'expires', 'performance_score', 'page_bytes', 'time_to_first_byte']) assert.equal(reports(`filter[${a}:gt]=1`).filters.length, 1);
  });
  it('reports do not filter on the older variant\'s started and finished', () => {
    refuses(() => reports('filter[started:gt]=1'), 'E40005');
    refuses(() => reports('filter[finished]=1'), 'E40005');
  });
  it('pages filter on url, monitored, browser, location, page_tag, created, latest_report_time, report_count', () => {
    const q = pages('filter[url]=x&filter[monitored]=no&filter[browser]=3&filter[location]=1&filter[page_tag]=t&filter[created:gt]=1&filter[latest_report_time:lt]=2&filter[report_count:gte]=3');
    assert.equal(q.filters.length, 8);
  });
  it('the url filter keeps the text as given (the translator matches case-insensitively)', () => {
    assert.deepEqual(pages('filter[url]=Example.COM/a_b').filters[0], { attr: 'url', type: 'fuzzy', op: 'eq', values: ['Example.COM/a_b'] });
  });
  it('malformed filter keys are E40005', () => {
    refuses(() => tests('filter[]=x'), 'E40005');
    refuses(() => tests('filter[created:gt:lt]=1'), 'E40005');
    refuses(() => tests('filter=state'), 'E40005');
    refuses(() => tests('filter[state]]=queued'), 'E40005');
    refuses(() => tests('filter[[state]=queued'), 'E40005');
  });
});

describe('page_tag', () => {
  it('takes many tag IDs comma-separated or repeated', () => {
    assert.deepEqual(pages('filter[page_tag]=a,b&filter[page_tag]=c').filters[0].values, ['a', 'b', 'c']);
  });
  it('takes up to 500 distinct tags; 501 is E40005', () => {
    const ids = (n: number) => Array.from({ length: n }, (_, i) => `t${i}`).join(',');
    assert.equal(pages(`filter[page_tag]=${ids(500)}`).filters[0].values.length, 500);
    assert.equal(pages(`filter[page_tag]=${ids(500)},t0,t1`).filters[0].values.length, 500, 'repeats count once, and are one term');
    refuses(() => pages(`filter[page_tag]=${ids(501)}`), 'E40005', /500/);
  });
  it('is not a filter of tests or reports', () => {
    refuses(() => tests('filter[page_tag]=a'), 'E40005');
    refuses(() => reports('filter[page_tag]=a'), 'E40005');
  });
});

describe('filter[:bool]', () => {
  it('AND by default, OR when asked, case-insensitive', () => {
    assert.equal(tests('filter[state]=error&filter[source]=api').bool, 'AND');
    assert.equal(tests('filter[state]=error&filter[source]=api&filter[:bool]=OR').bool, 'OR');
    assert.equal(tests('filter[state]=error&filter[:bool]=or').bool, 'OR');
    assert.equal(tests('filter[state]=error&filter[:bool]=AND').bool, 'AND');
  });
  it('without another filter it is E40005 (newer variant), AND or OR alike', () => {
    refuses(() => tests('filter[:bool]=OR'), 'E40005', /at least one other filter/);
    refuses(() => tests('filter[:bool]=AND&sort=created'), 'E40005');
  });
  it('a value other than AND/OR, or both at once, is E40005', () => {
    refuses(() => tests('filter[state]=error&filter[:bool]=XOR'), 'E40005', /AND or OR/);
    refuses(() => tests('filter[state]=error&filter[:bool]=AND,OR'), 'E40005');
    refuses(() => tests('filter[state]=error&filter[:bool]=AND&filter[:bool]=OR'), 'E40005');
    refuses(() => tests('filter[state]=error&filter[:bool]='), 'E40005');
  });
  it('the same value twice is fine', () => {
    assert.equal(tests('filter[state]=error&filter[:bool]=OR&filter[:bool]=or').bool, 'OR');
  });
});

describe('page[size] and page[number]', () => {
  it('accepts 1 to 500', () => {
    assert.equal(tests('page[size]=1').page.size, 1);
    assert.equal(tests('page[size]=500').page.size, 500);
    assert.equal(tests('page[size]=+20+').page.size, 20);
  });
  it('0, 501, negatives, fractions, words and empty values are E40008 saying 1 to 500', () => {
    for (const v of ['0', '501', '-1', '1.5', 'ten', '', '1e2', '0x10']) refuses(() => tests(`page[size]=${v}`), 'E40008', /1 to 500/);
  });
  it('page[number] is 1-based; 0 and words are E40008', () => {
    assert.equal(tests('page[number]=3').page.number, 3);
    for (const v of ['0', '-2', 'two', '', '99999999999']) refuses(() => tests(`page[number]=${v}`), 'E40008', /page\[number\]/);
  });
  it('a page parameter given twice is E40008', () => {
    refuses(() => tests('page[size]=10&page[size]=10'), 'E40008', /once/);
    refuses(() => tests('page[number]=1&page[number]=2'), 'E40008');
  });
  it('other page keys are unknown parameters: E40005', () => {
    refuses(() => tests('page[offset]=10'), 'E40005');
    refuses(() => tests('page=2'), 'E40005');
  });
});

describe('unknown parameters', () => {
  it('any other name is E40005 naming the accepted parameters', () => {
    refuses(() => tests('include=report'), 'E40005', /sort, filter\[attribute\]/);
    refuses(() => tests('state=queued'), 'E40005');
    refuses(() => tests('Sort=created'), 'E40005');
  });
  it('an empty query string and stray "&" are accepted', () => {
    assert.deepEqual(tests('&&').filters, []);
  });
});

describe('list links', () => {
  const origin = 'http://h:1';
  it('self is the request; no prev on page 1; next only when there is one', () => {
    assert.deepEqual(listLinks(origin, '/api/2.0/tests', 1, false), { self: 'http://h:1/api/2.0/tests' });
    assert.deepEqual(listLinks(origin, '/api/2.0/tests?', 1, true), {
      self: 'http://h:1/api/2.0/tests',
      next: 'http://h:1/api/2.0/tests?page[number]=2',
    });
  });
  it('keeps the query, replacing only page[number] (raw or encoded)', () => {
    const l = listLinks(origin, '/api/2.0/pages?filter%5Burl%5D=a%2Cb&page[size]=5&page%5Bnumber%5D=3&sort=-created', 3, true);
    assert.equal(l.self, 'http://h:1/api/2.0/pages?filter%5Burl%5D=a%2Cb&page[size]=5&page%5Bnumber%5D=3&sort=-created');
    assert.equal(l.prev, 'http://h:1/api/2.0/pages?filter%5Burl%5D=a%2Cb&page[size]=5&sort=-created&page[number]=2');
    assert.equal(l.next, 'http://h:1/api/2.0/pages?filter%5Burl%5D=a%2Cb&page[size]=5&sort=-created&page[number]=4');
  });
  it('collapses repeated slashes in the path', () => {
    assert.equal(listLinks(origin, '//api/2.0//tests?page[number]=2', 2, false).prev, 'http://h:1/api/2.0/tests?page[number]=1');
  });
});

