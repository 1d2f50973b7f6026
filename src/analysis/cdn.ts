/**
 * Was a response served by a content delivery network? Evidence from the response headers a CDN adds, then
 * from well-known CDN hostnames. Shared by the structure audit "use-a-cdn" and YSlow's ycdn.
 */
import { hostname, responseHeader, type HarEntryLike } from './har.js';

/** Header names whose mere presence means a CDN edge answered. */
const CDN_HEADERS = [
  'cf-ray', // Cloudflare
  'x-amz-cf-id', 'x-amz-cf-pop', // CloudFront
  'x-fastly-request-id', // Fastly
  'x-akamai-transformed', 'x-akamai-request-id', 'akamai-grn', 'x-akamai-staging',
  'x-azure-ref', 'x-msedge-ref', // Azure Front Door / CDN
  'x-edge-location', 'x-cdn', 'x-cdn-geo', 'x-cdn-pop',
  'x-vercel-id', 'x-nf-request-id', // Vercel, Netlify edges
  'cdn-pullzone', 'cdn-requestid', // Bunny
  'x-77-cache', // CDN77
  'x-sucuri-id', 'x-iinfo', // Sucuri, Imperva
  'x-hw', // StackPath/Highwinds
  'powered-by-chinacache',
];

/** `server` header values of CDN edges. */
const CDN_SERVERS = /cloudflare|akamai|cloudfront|fastly|^ecacc|^ecs \(|bunnycdn|keycdn|cdn77|netlify|vercel|^gws$|google frontend|^sffe$|edgecast|cachefly|stackpath|sucuri/i;

/** `via` / `x-cache` / `x-served-by` values that name a CDN. */
const CDN_VIA = /cloudfront|akamai|fastly|cache-[a-z]{3}\d|edgecast|cdn/i;

/** Hostnames of CDNs and of libraries and assets that are always served through one. */
const CDN_HOSTS = [
  /\.cloudfront\.net$/, /\.akamai(hd|zed)?\.net$/, /\.edgesuite\.net$/, /\.edgekey\.net$/, /\.akamaitechnologies\.com$/,
  /\.fastly\.net$/, /\.fastlylb\.net$/, /\.azureedge\.net$/, /\.azurefd\.net$/, /\.b-cdn\.net$/, /\.cdn77\.org$/,
  /\.kxcdn\.com$/, /\.stackpath(dns|cdn)\.com$/, /\.llnwd\.net$/, /\.cachefly\.net$/, /\.hwcdn\.net$/,
  /\.rackcdn\.com$/, /\.cdn\.cloudflare\.net$/, /^cdnjs\.cloudflare\.com$/, /(^|\.)jsdelivr\.net$/, /^unpkg\.com$/,
  /^ajax\.googleapis\.com$/, /^fonts\.googleapis\.com$/, /(^|\.)gstatic\.com$/, /\.googleusercontent\.com$/,
  /\.ytimg\.com$/, /\.ggpht\.com$/, /\.fbcdn\.net$/, /\.cdninstagram\.com$/, /\.twimg\.com$/, /^i\d\.wp\.com$/,
  /^cdn\.shopify\.com$/, /\.squarespace-cdn\.com$/, /\.imgix\.net$/, /^res\.cloudinary\.com$/,
  /\.bootstrapcdn\.com$/, /^code\.jquery\.com$/, /\.netlify\.app$/, /\.vercel\.app$/, /\.pages\.dev$/,
  /\.github\.io$/, /\.githubusercontent\.com$/, /\.wixstatic\.com$/, /\.sitecdn\.net$/, /\.yimg\.com$/,
  /\.chinacache\.com$/, /\.alicdn\.com$/, /\.kunlun[a-z]*\.com$/,
];

/** A label named like a CDN host (cdn.example.com, cdn2.example.com, img-cdn.example.com). */
const CDN_LABEL = /^(cdn[\d-]*|[a-z0-9-]+-cdn)$/;

export function servedByCdn(e: HarEntryLike): boolean {
  if (CDN_HEADERS.some((name) => responseHeader(e, name) !== undefined)) return true;
  const server = responseHeader(e, 'server') ?? '';
  if (server && CDN_SERVERS.test(server)) return true;
  for (const name of ['via', 'x-served-by', 'x-cache']) {
    const value = responseHeader(e, name);
    if (value && CDN_VIA.test(value)) return true;
  }
  const host = hostname(e.request.url);
  return CDN_HOSTS.some((re) => re.test(host)) || host.split('.').slice(0, -2).some((l) => CDN_LABEL.test(l));
}
