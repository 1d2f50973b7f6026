/**
 * What POST /tests makes of a body (core/options/options.ts parseTestOptions): its shape, the defaults and the normal
 * form, each option's rules, plans and browser capabilities, the fingerprint and the public view. urlPatternMatches
 * (runner/conditions/url-patterns.ts) is checked here with the allow_url and block_url rules that name it.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { AnalysisOptions } from '../../../../src/core/options/analysis-options.js';
import { createCatalog, type Browser, type Catalog } from '../../../../src/core/catalog/catalog.js';
import { ApiError, type ErrorCode } from '../../../../src/core/errors.js';
import {
  optionsFingerprint,
  parseTestOptions,
  publicOptions,
  type OptionsContext,
} from '../../../../src/core/options/options.js';
import { PLANS } from '../../../../src/core/accounts/plans.js';
import { loadConditions } from '../../../../src/core/options/conditions.js';
import { urlPatternMatches } from '../../../../src/runner/conditions/url-patterns.js';
import { testAttributes } from '../../../../src/api/resource-body.js';

/** What POST /tests does with a body: the API unwraps it, core parses the options. */
const parseTestAttributes = (b: unknown, c: Parameters<typeof parseTestOptions>[1]) => parseTestOptions(testAttributes(b), c);

const catalog = createCatalog({ locationName: 'Test machine', locationRegion: 'Local' });
const pro: OptionsContext = { plan: PLANS.pro, catalog, defaultLocation: '1', defaultBrowser: '3' };
const basic: OptionsContext = { ...pro, plan: PLANS.basic };

const body = (attributes: Record<string, unknown>) => ({ data: { type: 'test', attributes } });
const parse = (attributes: Record<string, unknown>, ctx: OptionsContext = pro) =>
  parseTestAttributes(body({ url: 'https://example.com/', ...attributes }), ctx);

/** Asserts the call throws ApiError `code` whose detail matches every pattern. */
function rejects(fn: () => unknown, code: ErrorCode, ...patterns: RegExp[]): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof ApiError, `expected ApiError, got ${String(e)}`);
    assert.equal(e.code, code, `code of "${e.detail}"`);
    for (const p of patterns) assert.match(e.detail ?? '', p);
    return true;
  });
}

/** A catalogue whose only browser lacks every capability, to reach the "browser does not support" paths. */
function bareCatalog(): Catalog {
  const base = createCatalog({ locationName: 'x', locationRegion: 'y' });
  const b = base.browser('3')!;
  const caps = ['adblock', 'lighthouse', 'cookies', 'filtering', 'http_auth', 'throttle', 'video', 'dns', 'user_agent', 'resolution'];
  const limited = { ...b, ...Object.fromEntries(caps.map((c) => [c, false])) } as Browser;
  return { ...base, browsers: () => [limited], browser: (id) => (id === '3' ? limited : undefined) };
}

describe('request body shape', () => {
  test('a body that is not an object gets E40002', () => {
    for (const b of [null, 'x', 42, [], undefined]) rejects(() => parseTestAttributes(b, pro), 'E40002', /JSON object/);
  });
  test('a body without a data object gets E40002 naming data', () => {
    rejects(() => parseTestAttributes({}, pro), 'E40002', /data is missing/);
    rejects(() => parseTestAttributes({ data: [1] }, pro), 'E40002', /data is missing or not an object/);
  });
  test('data.type other than "test" gets E40002', () => {
    rejects(() => parseTestAttributes({ data: { type: 'tests', attributes: {} } }, pro), 'E40002', /data\.type must be "test"/);
    rejects(() => parseTestAttributes({ data: { attributes: { url: 'x.com' } } }, pro), 'E40002', /data\.type/);
  });
  test('attributes that are not an object get E40002', () => {
    rejects(() => parseTestAttributes({ data: { type: 'test' } }, pro), 'E40002', /data\.attributes/);
    rejects(() => parseTestAttributes({ data: { type: 'test', attributes: ['url'] } }, pro), 'E40002', /data\.attributes/);
  });
});

describe('defaults and normal form', () => {
  test('a bare url gets every default and no optional field', () => {
    const o = parse({});
    assert.deepEqual(o, {
      url: 'https://example.com/',
      location: '1',
      browser: '3',
      report: 'lighthouse',
      retention: 1,
      adblock: 0,
      cookies: [],
      video: 0,
      stop_onload: 0,
      allow_url: [],
      block_url: [],
      dns: [],
      browser_rotate: 0,
    });
    for (const k of ['httpauth_username', 'httpauth_password', 'throttle', 'simulate_device', 'user_agent', 'browser_width', 'browser_height', 'browser_dppx']) {
      assert.equal(k in o, false, `${k} must be absent`);
    }
  });
  test('the context defaults choose location and browser when the request names none', () => {
    rejects(() => parse({}, { ...pro, defaultLocation: '24' }), 'E40003', /location "24"/);
  });
  test('keys come out in a fixed order whatever the request order', () => {
    const a = parse({ video: 1, throttle: '1/2/3', retention: 6, report: 'none' });
    const b = parseTestAttributes(body({ report: 'none', retention: 6, throttle: '1/2/3', video: 1, url: 'https://example.com/' }), pro);
    assert.deepEqual(Object.keys(a), Object.keys(b));
    assert.deepEqual(a, b);
  });
  test('unknown attributes are ignored', () => {
    assert.deepEqual(parse({ frobnicate: 1, location_name: 'x' }), parse({}));
  });
  test('null and empty strings mean "not given"', () => {
    const o = parse({
      location: '', browser: null, report: '', retention: null, adblock: '', cookies: null, throttle: '',
      allow_url: '', dns: null, user_agent: '  ', httpauth_username: '', browser_width: null, browser_height: '',
    });
    assert.deepEqual(o, parse({}));
  });
  test('a full pro request is kept with every option', () => {
    const o = parse({
      location: 1, browser: 3, report: 'legacy', retention: 24, httpauth_username: 'u', httpauth_password: ' p ',
      adblock: 1, cookies: ['a=1'], video: 1, stop_onload: 1, throttle: '5000/1000/30', allow_url: ['example.com'],
      block_url: ['*.js'], dns: ['example.com:1.2.3.4'], simulate_device: 'iphone-13-pro', user_agent: 'UA/1',
      browser_width: 800, browser_height: 600, browser_dppx: 1.5, browser_rotate: 1,
    });
    assert.equal(o.location, '1');
    assert.equal(o.browser, '3');
    assert.equal(o.httpauth_password, ' p ', 'passwords are not trimmed');
    assert.equal(o.simulate_device, 'iphone-13-pro');
    assert.equal(o.browser_dppx, 1.5);
    assert.deepEqual(publicOptions(o), o);
    assert.equal(Object.keys(o).length, 21);
  });
});

describe('url', () => {
  test('a missing url gets E40004 saying it is required', () => {
    rejects(() => parseTestAttributes(body({}), pro), 'E40004', /url is required/);
    rejects(() => parseTestAttributes(body({ url: '' }), pro), 'E40004', /url is required/);
  });
  test('a url without scheme gets http:// prepended', () => {
    assert.equal(parse({ url: 'example.com' }).url, 'http://example.com/');
    assert.equal(parse({ url: '  Example.COM/Path?q=1 ' }).url, 'http://example.com/Path?q=1');
    assert.equal(parse({ url: 'localhost:8080/x' }).url, 'http://localhost:8080/x');
    assert.equal(parse({ url: '//cdn.example.com/a' }).url, 'http://cdn.example.com/a');
  });
  test('https and international names are normalised', () => {
    assert.equal(parse({ url: 'HTTPS://bücher.de' }).url, 'https://xn--bcher-kva.de/');
  });
  test('a non-http scheme gets E40004 naming the scheme', () => {
    rejects(() => parse({ url: 'ftp://example.com/' }), 'E40004', /http or https, not ftp/);
    rejects(() => parse({ url: 'file:///etc/passwd' }), 'E40004', /not file/);
    rejects(() => parse({ url: 'javascript:alert(1)' }), 'E40004', /not javascript/);
  });
  test('an unparseable url, a non-string url, a hostless or a too-long url get E40004', () => {
    rejects(() => parse({ url: 'http://exa mple.com/' }), 'E40004', /not a valid URL/);
    rejects(() => parse({ url: 42 }), 'E40004', /url must be a string/);
    rejects(() => parse({ url: `https://example.com/${'a'.repeat(5000)}` }), 'E40004', /at most 4096/);
  });
  test('credentials inside the url get E40004 pointing at httpauth_*', () => {
    rejects(() => parse({ url: 'https://user:pw@example.com/' }), 'E40004', /httpauth_username/);
  });
});

describe('location and browser', () => {
  test('an unknown location gets E40003 listing the locations', () => {
    rejects(() => parse({ location: '24' }), 'E40003', /location "24" is not available/, /"1" \(Test machine\)/);
  });
  test('an unknown browser gets E40003 listing the browsers of the location', () => {
    rejects(() => parse({ browser: '1' }), 'E40003', /browser "1" is not available at location "1"/, /"3" \(Chrome \(Desktop\)\)/);
  });
  test('an id of another type gets E40004', () => {
    rejects(() => parse({ location: { id: 1 } }), 'E40004', /location must be an ID string/);
  });
});

describe('report and retention', () => {
  test('every report type is accepted, with lenient spelling', () => {
    for (const r of ['lighthouse', 'legacy', 'lighthouse,legacy', 'none']) assert.equal(parse({ report: r }).report, r);
    assert.equal(parse({ report: 'Legacy, Lighthouse' }).report, 'lighthouse,legacy');
  });
  test('an invalid report type gets E40004 listing the types', () => {
    rejects(() => parse({ report: 'pagespeed' }), 'E40004', /report "pagespeed" is not a report type/, /lighthouse,legacy or none/);
    rejects(() => parse({ report: 'none,legacy' }), 'E40004', /report/);
    rejects(() => parse({ report: 1 }), 'E40004', /report must be one of/);
  });
  test('a browser without Lighthouse refuses a Lighthouse report with E40004, and runs the legacy kind by default', () => {
    const ctx = { ...pro, catalog: bareCatalog() };
    rejects(() => parse({ report: 'lighthouse' }, ctx), 'E40004', /does not support the report type \(Lighthouse reports\)/);
    assert.equal(parse({}, ctx).report, 'legacy');
    assert.equal(parse({ report: 'legacy' }, ctx).report, 'legacy');
  });
  test('Firefox (Desktop): report left out is legacy; a Lighthouse report is refused naming the browser, an option it lacks naming the option', () => {
    // A location whose agents offer both browsers.
    const both = createCatalog({ locationName: 'x', locationRegion: 'y' },
      { locations: () => [{ id: '1', name: 'x', region: 'y', default: true, browsers: ['1', '3'] }], defaultLocation: '1' });
    const ctx = { ...pro, catalog: both };
    const firefox = { browser: '1' };
    assert.equal(parse(firefox, ctx).report, 'legacy');
    assert.equal(parse({}, ctx).report, 'lighthouse', 'Chrome, the default browser, still runs Lighthouse by default');
    assert.equal(parse({ ...firefox, report: 'none' }, ctx).report, 'none');
    for (const report of ['lighthouse', 'legacy,lighthouse']) {
      rejects(() => parse({ ...firefox, report }, ctx), 'E40004', /browser "1" \(Firefox \(Desktop\)\) does not support the report type/);
    }
    assert.equal(parse({ ...firefox, video: 1 }, ctx).video, 1);
    // A browser whose flag for an option is false (none today) is refused that option by name.
    const withoutVideo = { ...both, browser: (id: string) => (id === '1' ? { ...both.browser('1')!, video: false } : both.browser(id)) };
    rejects(() => parse({ ...firefox, video: 1 }, { ...ctx, catalog: withoutVideo }), 'E40004',
      /browser "1" \(Firefox \(Desktop\)\) does not support video/);
    rejects(() => parse(firefox), 'E40003', /browser "1" is not available at location "1"/);
    const every = parse({ ...firefox, adblock: 1, cookies: ['a=b'], httpauth_username: 'u', throttle: '5000/1000/30',
      block_url: ['ads'], dns: ['example.com:192.0.2.1'], user_agent: 'x', browser_width: 800, browser_height: 600 }, ctx);
    assert.equal(every.browser, '1');
  });
  test('retention accepts 1, 6, 12, 24 as numbers or strings', () => {
    for (const r of [1, 6, 12, 24]) {
      assert.equal(parse({ retention: r }).retention, r);
      assert.equal(parse({ retention: String(r) }).retention, r);
    }
  });
  test('any other retention gets E40004 listing 1, 6, 12 or 24', () => {
    for (const r of [0, 2, 3.5, '6 months', -1, true]) rejects(() => parse({ retention: r }), 'E40004', /retention must be 1, 6, 12 or 24/);
  });
});

describe('flags', () => {
  test('flags accept 0/1, "0"/"1" and false/true', () => {
    for (const [v, want] of [[0, 0], [1, 1], ['0', 0], ['1', 1], [false, 0], [true, 1]] as const) {
      const o = parse({ adblock: v, video: v, stop_onload: v, browser_rotate: v });
      assert.deepEqual([o.adblock, o.video, o.stop_onload, o.browser_rotate], [want, want, want, want]);
    }
  });
  test('a flag that is not 0 or 1 gets E40004 naming the attribute', () => {
    rejects(() => parse({ video: 2 }), 'E40004', /video must be 0 or 1/);
    rejects(() => parse({ stop_onload: 'yes' }), 'E40004', /stop_onload must be 0 or 1/);
  });
  test('anonymize_user_agent is accepted as a flag and ignored', () => {
    assert.deepEqual(parse({ anonymize_user_agent: 1 }), parse({}));
    assert.deepEqual(parse({ anonymize_user_agent: 1 }, basic), parse({}, basic));
    rejects(() => parse({ anonymize_user_agent: 'on' }), 'E40004', /anonymize_user_agent must be 0 or 1/);
  });
});

describe('http auth', () => {
  test('a username alone is accepted (empty password)', () => {
    const o = parse({ httpauth_username: 'alice' });
    assert.equal(o.httpauth_username, 'alice');
    assert.equal('httpauth_password' in o, false);
  });
  test('a password without username gets E40004', () => {
    rejects(() => parse({ httpauth_password: 'secret' }), 'E40004', /httpauth_password was given without httpauth_username/);
  });
  test('a username with a colon, control characters or a non-string get E40004', () => {
    rejects(() => parse({ httpauth_username: 'a:b' }), 'E40004', /must not contain ":"/);
    rejects(() => parse({ httpauth_username: 'a\nb' }), 'E40004', /control characters/);
    rejects(() => parse({ httpauth_username: 7 }), 'E40004', /httpauth_username must be a string/);
    rejects(() => parse({ httpauth_username: 'u'.repeat(1025) }), 'E40004', /at most 1024/);
  });
});

describe('cookies', () => {
  test('a single string is one cookie, and attributes are normalised', () => {
    assert.deepEqual(parse({ cookies: 'session=abc' }).cookies, ['session=abc']);
    assert.deepEqual(parse({ cookies: [' a=1 ;path=/x; SECURE;httponly; samesite=lax; domain=.Example.com; max-age=60', 'b='] }).cookies, [
      'a=1; Domain=example.com; Path=/x; Max-Age=60; Secure; HttpOnly; SameSite=Lax',
      'b=',
    ]);
    assert.deepEqual(parse({ cookies: ['c=1; Expires=Wed, 21 Oct 2026 07:28:00 GMT'] }).cookies, ['c=1; Expires=Wed, 21 Oct 2026 07:28:00 GMT']);
  });
  test('blank items of an array are dropped', () => {
    assert.deepEqual(parse({ cookies: ['', 'a=1', null] }).cookies, ['a=1']);
  });
  test('a string that is not name=value gets E40004 naming the item and the syntax', () => {
    rejects(() => parse({ cookies: ['a=1', 'nonsense'] }), 'E40004', /cookies\[1\]/, /name=value/);
    rejects(() => parse({ cookies: ['=1'] }), 'E40004', /cookies\[0\]/);
    rejects(() => parse({ cookies: ['a b=1'] }), 'E40004', /not a cookie/);
  });
  test('two cookies in one string get E40004 saying one cookie per string', () => {
    rejects(() => parse({ cookies: 'a=1; b=2' }), 'E40004', /"b=2" is not a cookie attribute/, /one cookie per string/);
  });
  test('invalid cookie attributes get E40004', () => {
    rejects(() => parse({ cookies: 'a=1; Path=x' }), 'E40004', /Path must start with "\/"/);
    rejects(() => parse({ cookies: 'a=1; Expires=someday' }), 'E40004', /Expires must be an HTTP date/);
    rejects(() => parse({ cookies: 'a=1; Max-Age=soon' }), 'E40004', /Max-Age/);
    rejects(() => parse({ cookies: 'a=1; Domain=' }), 'E40004', /Domain/);
    rejects(() => parse({ cookies: 'a=1; SameSite=Sometimes' }), 'E40004', /SameSite=Sometimes/);
    rejects(() => parse({ cookies: 'a=1\u0001' }), 'E40004', /control characters/);
    rejects(() => parse({ cookies: `a=${'x'.repeat(4100)}` }), 'E40004', /at most 4096/);
  });
  test('a non-string cookie or a non-array gets E40004', () => {
    rejects(() => parse({ cookies: [{ a: 1 }] }), 'E40004', /cookies\[0\] must be a string/);
    rejects(() => parse({ cookies: { a: 1 } }), 'E40004', /cookies must be an array of strings/);
  });
});

describe('arrays', () => {
  test('more than 100 entries in any array gets E40004', () => {
    const many = Array.from({ length: 101 }, (_, i) => `c${i}=1`);
    rejects(() => parse({ cookies: many }), 'E40004', /cookies has 101 entries; at most 100/);
    rejects(() => parse({ block_url: many }), 'E40004', /block_url has 101 entries/);
    assert.equal(parse({ cookies: many.slice(0, 100) }).cookies.length, 100);
  });
  test('order of entries is kept', () => {
    assert.deepEqual(parse({ block_url: ['b', 'a', 'b'] }).block_url, ['b', 'a', 'b']);
  });
});

describe('throttle', () => {
  test('down/up/latency integers are accepted and normalised', () => {
    assert.equal(parse({ throttle: '5000/1000/30' }).throttle, '5000/1000/30');
    assert.equal(parse({ throttle: ' 1500 / 384 / 0 ' }).throttle, '1500/384/0');
    assert.equal(parse({ throttle: '0020/010/05' }).throttle, '20/10/5');
  });
  test('anything else gets E40004 showing the syntax', () => {
    for (const t of ['5000/1000', '5000/1000/30/1', '0/1000/30', '5000/0/30', '-1/2/3', '1.5/2/3', 'fast', '5000/1000/60001']) {
      rejects(() => parse({ throttle: t }), 'E40004', /throttle must be "down\/up\/latency"/, /5000\/1000\/30/);
    }
    rejects(() => parse({ throttle: 5000 }), 'E40004', /throttle must be a string/);
  });
});

describe('allow_url and block_url', () => {
  test('patterns are kept as given; a single string is one pattern', () => {
    const o = parse({ allow_url: 'example.com', block_url: ['*.doubleclick.net/*', 'https://cdn.example.com/big.js'] });
    assert.deepEqual(o.allow_url, ['example.com']);
    assert.deepEqual(o.block_url, ['*.doubleclick.net/*', 'https://cdn.example.com/big.js']);
  });
  test('a pattern that is not a string, too long or with spaces gets E40004', () => {
    rejects(() => parse({ allow_url: [1] }), 'E40004', /allow_url\[0\] must be a string/);
    rejects(() => parse({ block_url: ['x'.repeat(2049)] }), 'E40004', /block_url\[0\] is 2049 characters long; at most 2048/);
    rejects(() => parse({ block_url: ['a b'] }), 'E40004', /block_url\[0\] must not contain spaces/);
  });
  test('a browser without filtering refuses them', () => {
    rejects(() => parse({ report: 'none', block_url: 'x' }, { ...pro, catalog: bareCatalog() }), 'E40004', /URL filtering/);
  });
  test('urlPatternMatches matches anywhere, with * for any run of characters', () => {
    assert.equal(urlPatternMatches('example.com', 'https://cdn.example.com/a.js'), true);
    assert.equal(urlPatternMatches('*.js', 'https://x.com/a.js?v=1'), true);
    assert.equal(urlPatternMatches('https://*/ads/*', 'https://x.com/ads/1.gif'), true);
    assert.equal(urlPatternMatches('ads/*.gif', 'https://x.com/ads/1.png'), false);
    assert.equal(urlPatternMatches('Example', 'https://example.com/'), false);
  });
});

describe('dns', () => {
  test('host:ip entries are accepted for IPv4 and IPv6, normalised', () => {
    const o = parse({ dns: ['Example.com:93.184.215.14', 'v6.example.com:[2606:2800::1]', '*.example.org:2606:2800::1', 'bücher.de:1.2.3.4'] });
    assert.deepEqual(o.dns, ['example.com:93.184.215.14', 'v6.example.com:2606:2800::1', '*.example.org:2606:2800::1', 'xn--bcher-kva.de:1.2.3.4']);
    assert.deepEqual(parse({ dns: 'example.com:1.2.3.4' }).dns, ['example.com:1.2.3.4']);
  });
  test('an entry that is not host:ip gets E40004 showing the syntax', () => {
    for (const d of ['example.com', ':1.2.3.4', 'example.com:', 'example.com:1.2.3', 'example.com:localhost', 'exa mple.com:1.2.3.4', '1.2.3.4:5.6.7.8', 'fe80::1']) {
      rejects(() => parse({ dns: [d] }), 'E40004', /dns\[0\]/, /host:ip_address/);
    }
    rejects(() => parse({ dns: ['example.com:fe80::1%eth0'] }), 'E40004', /not an IPv4 or IPv6 address/);
  });
});

describe('devices and viewport', () => {
  test('simulate_device accepts an ID or the device name', () => {
    assert.equal(parse({ simulate_device: 'iphone-13-pro' }).simulate_device, 'iphone-13-pro');
    assert.equal(parse({ simulate_device: 'iPhone 13 Pro' }).simulate_device, 'iphone-13-pro');
  });
  test('an unknown simulate_device gets E40003', () => {
    rejects(() => parse({ simulate_device: 'nokia-3310' }), 'E40003', /simulate_device "nokia-3310" is not a known device/, /simulated-devices/);
  });
  test('browser_width and browser_height go together', () => {
    const o = parse({ browser_width: '1920', browser_height: 1080 });
    assert.deepEqual([o.browser_width, o.browser_height], [1920, 1080]);
    rejects(() => parse({ browser_width: 800 }), 'E40004', /browser_width requires browser_height/);
    rejects(() => parse({ browser_height: 800 }), 'E40004', /browser_height requires browser_width/);
  });
  test('a viewport side outside 1..10000 or not an integer gets E40004', () => {
    for (const w of [0, 10001, 800.5, '800px', -5]) {
      rejects(() => parse({ browser_width: w, browser_height: 600 }), 'E40004', /browser_width must be an integer from 1 to 10000/);
    }
  });
  test('browser_dppx takes decimals from 1 to 5', () => {
    assert.equal(parse({ browser_dppx: 2.625 }).browser_dppx, 2.625);
    assert.equal(parse({ browser_dppx: '3' }).browser_dppx, 3);
    for (const d of [0.5, 5.1, 'x', '1e1']) rejects(() => parse({ browser_dppx: d }), 'E40004', /browser_dppx must be a number from 1 to 5/);
  });
  test('user_agent is trimmed and kept', () => {
    assert.equal(parse({ user_agent: ' MyBot/1.0 ' }).user_agent, 'MyBot/1.0');
    rejects(() => parse({ user_agent: 'a\r\nX-Evil: 1' }), 'E40004', /user_agent must not contain control characters/);
  });
});

describe('plans', () => {
  test('a basic plan asking for dns gets E40004 naming the pro plan', () => {
    rejects(() => parse({ dns: ['example.com:1.2.3.4'] }, basic), 'E40004', /dns is a pro analysis option/, /basic plan/, /pro plan/);
  });
  test('a basic plan gets E40004 for every pro-only option', () => {
    const asks: Record<string, unknown>[] = [
      { simulate_device: 'iphone-13-pro' }, { user_agent: 'x' }, { browser_width: 1, browser_height: 1 },
      { browser_height: 1 }, { browser_dppx: 2 }, { browser_rotate: 1 },
    ];
    for (const ask of asks) rejects(() => parse(ask, basic), 'E40004', new RegExp(`${Object.keys(ask)[0]} is a pro analysis option`));
  });
  test('a basic plan may send pro options empty, null or browser_rotate 0', () => {
    assert.deepEqual(parse({ dns: [], user_agent: '', browser_dppx: null, browser_rotate: 0 }, basic), parse({}, basic));
  });
  test('a basic plan keeps every non-pro option', () => {
    const o = parse({ adblock: 1, video: 1, cookies: 'a=1', throttle: '1/1/1', block_url: 'x', httpauth_username: 'u' }, basic);
    assert.equal(o.video, 1);
  });
});

describe('browser capabilities', () => {
  test('every option needing a capability is refused by a browser without it', () => {
    const ctx = { ...pro, catalog: bareCatalog() };
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ httpauth_username: 'u' }, /HTTP authentication/],
      [{ adblock: 1 }, /support adblock/],
      [{ video: 1 }, /support video/],
      [{ cookies: 'a=1' }, /support cookies/],
      [{ throttle: '1/1/1' }, /support throttle/],
      [{ dns: 'a.com:1.2.3.4' }, /support dns/],
      [{ user_agent: 'x' }, /support user_agent/],
      [{ simulate_device: 'ipad' }, /simulate_device or a custom resolution/],
      [{ browser_rotate: 1 }, /custom resolution/],
    ];
    for (const [ask, re] of cases) rejects(() => parse({ report: 'none', ...ask }, ctx), 'E40004', re, /GET \/browsers/);
    assert.equal(parse({ report: 'none' }, ctx).report, 'none');
  });
});

describe('fingerprint and public view', () => {
  const base = { url: 'https://example.com/', cookies: ['a=1'], dns: ['example.com:1.2.3.4'], throttle: '1/2/3' };
  test('the fingerprint is a sha256 hex string, stable under attribute order', () => {
    const a = optionsFingerprint(parse(base));
    const reversed = Object.fromEntries(Object.entries(base).reverse());
    const b = optionsFingerprint(parseTestAttributes(body(reversed), pro));
    assert.match(a, /^[0-9a-f]{64}$/);
    assert.equal(a, b);
    const shuffled = Object.fromEntries(Object.entries(parse(base)).reverse()) as unknown as AnalysisOptions;
    assert.equal(optionsFingerprint(shuffled), a);
  });
  test('the fingerprint ignores retention, video and the http auth password', () => {
    const a = optionsFingerprint(parse({ ...base, httpauth_username: 'u' }));
    assert.equal(optionsFingerprint(parse({ ...base, httpauth_username: 'u', retention: 24, video: 1, httpauth_password: 'p' })), a);
  });
  test('the fingerprint changes with every identity option', () => {
    const a = optionsFingerprint(parse(base));
    const changes: Record<string, unknown>[] = [
      { url: 'https://example.com/b' }, { report: 'none' }, { adblock: 1 }, { cookies: ['a=2'] }, { stop_onload: 1 },
      { throttle: '1/2/4' }, { allow_url: 'x' }, { block_url: 'x' }, { dns: [] }, { simulate_device: 'ipad' },
      { user_agent: 'x' }, { browser_width: 1, browser_height: 2 }, { browser_dppx: 2 }, { browser_rotate: 1 },
      { httpauth_username: 'u' }, { cookies: ['b=1', 'a=1'] },
    ];
    const seen = new Set([a]);
    for (const c of changes) {
      const f = optionsFingerprint(parse({ ...base, ...c }));
      assert.ok(!seen.has(f), `fingerprint did not change for ${JSON.stringify(c)}`);
      seen.add(f);
    }
  });
  test('publicOptions includes http auth and cookies, in fixed order, as a copy', () => {
    const o = parse({ httpauth_username: 'u', httpauth_password: 'p', cookies: 'a=1' });
    const pub = publicOptions(o);
    assert.equal(pub.httpauth_password, 'p');
    assert.deepEqual(pub.cookies, ['a=1']);
    assert.notEqual(pub.cookies, o.cookies);
    assert.deepEqual(Object.keys(pub).slice(0, 7), ['url', 'location', 'browser', 'report', 'retention', 'httpauth_username', 'httpauth_password']);
  });
});

describe('device classes (issue 49)', () => {
  const both = createCatalog({ locationName: 'x', locationRegion: 'y' },
    { locations: () => [{ id: '1', name: 'x', region: 'y', default: true, browsers: ['1', '3'] }], defaultLocation: '1' });
  test('device_class is one of the classes; anything else gets E40004 naming them', () => {
    assert.equal(parse({ device_class: 'phone-low' }).device_class, 'phone-low');
    assert.equal(parse({ device_class: 'phone-mid' }, basic).device_class, 'phone-mid', 'not a pro option');
    rejects(() => parse({ device_class: 'phone' }), 'E40004', /device_class must be "desktop", "phone-mid" or "phone-low"; got "phone"/);
    rejects(() => parse({ device_class: 3 }), 'E40004', /device_class/);
  });
  test('the default class stays out of the options, so a simulated device tested before classes is the same page', () => {
    assert.equal('device_class' in parse({ device_class: 'desktop' }), false);
    assert.equal('device_class' in parse({ simulate_device: 'pixel-5', device_class: 'phone-mid' }), false);
    assert.equal(parse({ simulate_device: 'pixel-5', device_class: 'desktop' }).device_class, 'desktop');
    assert.equal(optionsFingerprint(parse({ simulate_device: 'pixel-5' })),
      optionsFingerprint(parse({ simulate_device: 'pixel-5', device_class: 'phone-mid' })));
    assert.notEqual(optionsFingerprint(parse({})), optionsFingerprint(parse({ device_class: 'phone-mid' })), 'a URL as a phone is another page');
  });
  test('Firefox cannot slow its CPU: a phone class is refused there, and a simulated device there stays on the desktop CPU', () => {
    const ctx = { ...pro, catalog: both };
    rejects(() => parse({ browser: '1', device_class: 'phone-mid' }, ctx), 'E40004',
      /browser "1" \(Firefox \(Desktop\)\) does not support a phone's CPU \(device_class "phone-mid" or "phone-low"\)/);
    const o = parse({ browser: '1', simulate_device: 'pixel-5' }, ctx);
    assert.equal('device_class' in o, false);
    assert.equal(loadConditions(o, false).device.deviceClass, 'desktop');
  });
  test('the load\'s conditions: a phone gets its CPU target and slow 4G unless the test names a link', () => {
    const phone = loadConditions(parse({ simulate_device: 'pixel-5' }));
    assert.deepEqual(phone.device, { deviceClass: 'phone-mid', cpuTarget: 1000, phoneScreen: true });
    assert.deepEqual(phone.throttle, { downloadKbps: 1600, uploadKbps: 750, latencyMs: 150 });
    const own = loadConditions(parse({ device_class: 'phone-low', throttle: '5000/1000/30' }));
    assert.deepEqual([own.device.cpuTarget, own.throttle], [264, { downloadKbps: 5000, uploadKbps: 1000, latencyMs: 30 }]);
    const desktop = loadConditions(parse({ simulate_device: 'pixel-5', device_class: 'desktop' }));
    assert.deepEqual([desktop.device.cpuTarget, desktop.throttle], [undefined, undefined]);
  });
});
