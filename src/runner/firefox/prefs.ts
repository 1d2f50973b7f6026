/**
 * The preferences of every Firefox profile the runner makes (written to its user.js by puppeteer, on top of
 * puppeteer's own test profile: @puppeteer/browsers firefox.ts). Three kinds, each for a reason:
 * - the connection guard: every connection through its SOCKS5 relay with the host name handed over (remote DNS),
 *   never direct: no DNS of Firefox's own (DoH, prefetch), no HTTP/3 (QUIC is UDP, which SOCKS does not carry), no
 *   WebRTC UDP, no direct failover when the relay refuses;
 * - the browser's own traffic off (remote settings, telemetry, captive portal, connectivity checks, updates):
 *   a tested site must see only the page's requests, and the guard only the page's connections;
 * - a first visit as a user makes it, as Chromium's load does: no connection opened before the page asks for one
 *   (Chromium: `net.network_prediction_options: 2`), so the document's DNS and connect phases are in the HAR; but
 *   the page's own hints (preconnect, prefetch) work, and the popup blocker stays on (puppeteer turns it off).
 */

/** The preferences for a browser whose guard listens on 127.0.0.1:`guardPort`. */
export function firefoxPrefs(guardPort: number): Record<string, string | number | boolean> {
  return {
    // The connection guard (conditions/connection-guard.ts).
    'network.proxy.type': 1,
    'network.proxy.socks': '127.0.0.1',
    'network.proxy.socks_port': guardPort,
    'network.proxy.socks_version': 5,
    'network.proxy.socks_remote_dns': true,
    'network.proxy.socks5_remote_dns': true,
    'network.proxy.no_proxies_on': '',
    // Loopback destinations go through the guard too (Firefox otherwise connects to them direct).
    'network.proxy.allow_hijacking_localhost': true,
    'network.proxy.failover_direct': false,
    'network.trr.mode': 5,
    'network.dns.disablePrefetch': true,
    'network.dns.disablePrefetchFromHTTPS': true,
    'network.http.http3.enable': false,
    'media.peerconnection.ice.proxy_only': true,
    'media.peerconnection.ice.proxy_only_if_behind_proxy': true,
    'media.peerconnection.ice.default_address_only': true,
    // The browser's own traffic. Remote settings: the dummy server is honoured with MOZ_REMOTE_SETTINGS_DEVTOOLS=1
    // in the browser's environment (launch.ts); a data: URL reaches no network.
    'services.settings.server': 'data:,#remote-settings-dummy/v1',
    'security.remote_settings.intermediates.enabled': false,
    'security.remote_settings.crlite_filters.enabled': false,
    'network.captive-portal-service.enabled': false,
    'network.connectivity-service.enabled': false,
    'toolkit.telemetry.enabled': false,
    'toolkit.telemetry.unified': false,
    'toolkit.telemetry.archive.enabled': false,
    'datareporting.usage.uploadEnabled': false,
    'app.normandy.enabled': false,
    'app.shield.optoutstudies.enabled': false,
    'browser.region.network.url': '',
    'browser.region.update.enabled': false,
    'geo.provider.network.url': '',
    'browser.topsites.contile.enabled': false,
    'browser.newtabpage.activity-stream.feeds.snippets': false,
    'browser.ping-centre.telemetry': false,
    'extensions.blocklist.enabled': false,
    'extensions.systemAddon.update.enabled': false,
    'dom.push.connection.enabled': false,
    'browser.safebrowsing.provider.mozilla.updateURL': '',
    'network.sntp.pools': '',
    // A first visit: nothing preconnected before the page asks (address bar and history predictions), the
    // page's own hints honoured (puppeteer's profile sets this limit to 0; 20 is Firefox's own).
    'network.predictor.enabled': false,
    'browser.urlbar.speculativeConnect.enabled': false,
    'browser.places.speculativeConnect.enabled': false,
    'network.http.speculative-parallel-limit': 20,
    'dom.disable_open_during_load': true,
    // First paint as Firefox reports it (the Paint Timing API has only first-contentful-paint in Firefox).
    'dom.performance.time_to_non_blank_paint.enabled': true,
  };
}
