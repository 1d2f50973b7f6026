// The field snippet's glue (issue 50, point 2): the build (scripts/build-field-snippet.ts) puts web-vitals' attribution
// build where WEB_VITALS stands, inside the same function, where it defines `webVitals`: only a page view that is
// measured runs it (at its start it already observes the page's resources). web-vitals measures; this decides
// whether the page view is measured at all, then gathers what it reports into one beacon, sent when the page is
// first hidden. The beacon's shape is src/core/field/beacon.ts. No cookie, no storage, no identifier; selectors
// (web-vitals' own), never an element's text. The device class is the server's reading of the user agent.
var script = document.currentScript;
var settings = script && script.dataset;
// Decided before anything is measured: a page view left out, or a browser asking not to be tracked, costs nothing more.
if (settings && settings.site && Math.random() * 100 < (settings.sample || 100) &&
  !(settings.gpc != 'ignore' && navigator.globalPrivacyControl)) {
  WEB_VITALS;
  var endpoint = new URL(script.src).origin + '/field/beacon/' + encodeURIComponent(settings.site);
  var round = function (v) { return v && Math.round(v * 10) / 10; };
  var clean = function (u) {
    u = u && u.split('#')[0];
    return u && (settings.query == 'keep' ? u : u.split('?')[0]).slice(0, 2000);
  };
  var cut = function (s) { return s && s.slice(0, 300); };
  // The attribution's fields the beacon keeps, under the beacon's names: times rounded to 0.1 ms.
  var pick = function (a, names) {
    var part = {};
    for (var k in names) part[k] = round(a[names[k]]);
    return part;
  };
  // The element each recent interaction started on: web-vitals' own INP target is often empty (its event entry has
  // lost the node by the time it is read).
  var interactions = [];
  ['pointerdown', 'keydown'].forEach(function (type) {
    addEventListener(type, function (e) {
      var el = e.target;
      interactions.unshift([e.timeStamp, el.localName + (el.id ? '#' + el.id : '')]);
      interactions.length = Math.min(interactions.length, 9);
    }, true);
  });
  var view, state, c = navigator.connection;
  var start = function (nav) {
    state = 0;
    view = { v: 1, url: clean(location.href), nav: nav, ect: c && /^(slow-2g|[234]g)$/.test(c.effectiveType) ? c.effectiveType : undefined,
      rtt: c && c.rtt, vw: innerWidth || undefined, vh: innerHeight || undefined };
  };
  start('navigate');
  // A page restored from the back-forward cache is a new page view (web-vitals reports its metrics anew).
  addEventListener('pageshow', function (e) { e.persisted && start('back-forward-cache'); }, true);
  // A metric into the page view's beacon; once the beacon is sent, the page view is over.
  var put = function (name, part, m) {
    if (state > 1) return;
    part.v = name == 'cls' ? Math.round(m.value * 1e4) / 1e4 : round(m.value);
    view.nav = m.navigationType;
    view[name] = part;
    state = 1;
  };
  // Every change is taken (reportAllChanges), the beacon keeps the last: web-vitals reports INP's final value only some
  // time after the page is hidden (seen in Chromium 156: later than any listener of the hiding), so waiting for the
  // final reports alone would lose it.
  var all = { reportAllChanges: true };
  webVitals.onLCP(function (m) {
    var a = m.attribution, part = pick(a, { ttfb: 'timeToFirstByte', delay: 'resourceLoadDelay', load: 'resourceLoadDuration', render: 'elementRenderDelay' });
    part.el = cut(a.target);
    part.src = clean(a.url);
    put('lcp', part, m);
  }, all);
  webVitals.onINP(function (m) {
    var a = m.attribution, s = a.longestScript, e = s && s.entry, t = a.interactionTarget,
      part = pick(a, { delay: 'inputDelay', proc: 'processingDuration', pres: 'presentationDelay' });
    interactions.forEach(function (i) { t = t || (Math.abs(i[0] - a.interactionTime) < 50 && i[1]); });
    part.el = cut(t);
    part.type = a.interactionType;
    part.script = e && { src: clean(e.sourceURL), fn: cut(e.sourceFunctionName) || undefined, dur: round(s.intersectingDuration), part: s.subpart };
    put('inp', part, m);
  }, all);
  webVitals.onCLS(function (m) {
    var a = m.attribution;
    put('cls', { el: cut(a.largestShiftTarget), shift: a.largestShiftValue && Math.round(a.largestShiftValue * 1e4) / 1e4, t: round(a.largestShiftTime) }, m);
  }, all);
  webVitals.onFCP(function (m) { put('fcp', {}, m); });
  webVitals.onTTFB(function (m) {
    put('ttfb', pick(m.attribution, { wait: 'waitingDuration', cache: 'cacheDuration', dns: 'dnsDuration', conn: 'connectionDuration', req: 'requestDuration' }), m);
  });
  // One beacon per page view, when it is first hidden. Listened on window as the event bubbles: after every listener
  // of web-vitals (on window, capturing), which report the final LCP, CLS and INP then.
  var send = function () {
    if (state == 1) navigator.sendBeacon(endpoint, new Blob([JSON.stringify(view)], { type: 'text/plain' }));
    state = 2;
  };
  addEventListener('visibilitychange', function () { document.visibilityState == 'hidden' && send(); });
  addEventListener('pagehide', send);
}
