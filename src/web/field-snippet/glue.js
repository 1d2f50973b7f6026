// The field snippet's glue (issue 50, point 2). scripts/build-field-snippet.ts puts web-vitals' attribution build
// (which defines `var webVitals`) where WEB_VITALS stands, all inside one function: nothing reaches the page's globals,
// and a page view that is not measured never even runs web-vitals (whose modules observe the page from their first
// line). web-vitals measures; this only decides whether the page view is measured, then puts what web-vitals reports
// into one beacon (src/core/field/beacon.ts), sent once, when the page is first hidden. No cookie, no storage, no
// identifier: selectors (never an element's text), URLs without their fragment and (unless the site keeps it) query.
let s = document.currentScript, d = s?.dataset, n = navigator;
// Decided before anything is measured: a page view sampled out (data-sample="0" compares as 0: never in), or from
// a browser asking not to be tracked (Global Privacy Control, unless the site ignores it), registers nothing at all.
if (d?.site && Math.random() * 100 < (d.sample || 100) && (d.gpc == 'ignore' || !n.globalPrivacyControl)) {
  WEB_VITALS;
  let c = n.connection || {}, ua = n.userAgent, view,
    // Times to 0.1 ms (CLS to 4 decimals); past the server's bound (10 minutes) left out, not the beacon refused.
    f = (v, k) => Math.round(v * k) / k,
    r = (v) => (v < 6e5 ? f(v, 10) : void 0),
    u = (x) => x && ((x = x.split('#')[0]), d.query == 'keep' ? x : x.split('?')[0]).slice(0, 2e3),
    sel = (x) => x?.slice(0, 300),
    // A metric into the page view's beacon, the last report of each kept; a page view sent (view 0) takes no more.
    put = (k, m, p, v = k == 'cls' ? f(m.value, 1e4) : r(m.value)) => {
      if (view && v != null) (p.v = v), (view.nav = m.navigationType), (view[k] = p);
    },
    start = () => {
      view = { v: 1, url: u(location.href),
        dev: n.userAgentData?.mobile ? 'mobile' : /iPad|Tablet|Android(?!.*Mobi)/.test(ua) ? 'tablet' : /Mobi|iPhone|Android/.test(ua) ? 'mobile' : 'desktop',
        ect: c.effectiveType, rtt: c.rtt, vw: innerWidth || void 0, vh: innerHeight || void 0 };
    },
    // One beacon per page view, at its first hidden (visibilitychange). pagehide comes BEFORE it when a page is left
    // (Chromium, as the HTML standard says), while the page is still visible: sending then would lose what web-vitals
    // hands over at the hidden (INP's last interaction); pagehide sends only for a browser already hidden by then.
    hide = () => {
      if (document.visibilityState == 'hidden' && view) {
        view.nav && n.sendBeacon(new URL(s.src).origin + '/field/beacon/' + encodeURIComponent(d.site), new Blob([JSON.stringify(view)], { type: 'text/plain' }));
        view = 0;
      }
    },
    // Every change is taken (web-vitals handles event entries when idle: the final reports alone would come too late
    // for an INP not yet handled). Its INP target is empty when the interaction's first entry (pointerdown) has lost
    // its node, as in Chromium 156: the element of the first entry of its frame that still has one (the click's).
    all = { reportAllChanges: true, includeProcessedEventEntries: true };
  start();
  // Before web-vitals' own listeners (it reports a restored page's TTFB within the same pageshow): a page restored from
  // the back-forward cache is a new page view, whose beacon goes at its own next hidden.
  addEventListener('pageshow', (e) => e.persisted && start(), true);
  webVitals.onLCP((m, a = m.attribution) => put('lcp', m, { el: sel(a.target), src: u(a.url), ttfb: r(a.timeToFirstByte),
    delay: r(a.resourceLoadDelay), load: r(a.resourceLoadDuration), render: r(a.elementRenderDelay) }), all);
  webVitals.onINP((m, a = m.attribution, l = a.longestScript, x = l?.entry, t = a.processedEventEntries.find((e) => e.target)?.target) => put('inp', m, {
    el: sel(a.interactionTarget || t && t.localName + (t.id ? '#' + t.id : '')),
    type: a.interactionType, delay: r(a.inputDelay), proc: r(a.processingDuration), pres: r(a.presentationDelay),
    script: x && { src: u(x.sourceURL), fn: sel(x.sourceFunctionName), dur: r(l.intersectingDuration), part: l.subpart } }), all);
  webVitals.onCLS((m, a = m.attribution) => put('cls', m, { el: sel(a.largestShiftTarget),
    shift: a.largestShiftValue && f(a.largestShiftValue, 1e4), t: r(a.largestShiftTime) }), all);
  webVitals.onFCP((m) => put('fcp', m, {}));
  webVitals.onTTFB((m, a = m.attribution) => put('ttfb', m, { wait: r(a.waitingDuration), cache: r(a.cacheDuration),
    dns: r(a.dnsDuration), conn: r(a.connectionDuration), req: r(a.requestDuration) }));
  // On window as the event bubbles up to it: after every listener of web-vitals (on window, capturing), which hand
  // over the final LCP, CLS and INP then.
  addEventListener('visibilitychange', hide);
  addEventListener('pagehide', hide);
}
