/**
 * Webgauge's own ad-blocking filter list, used when a test asks for `adblock=1`. Written for this project and
 * shipped under the project's licence (MIT), in Adblock Plus filter syntax. It is deliberately small: the ad
 * servers and ad scripts that most pages load, not a replacement for the community lists. An operator who wants
 * a fuller list (EasyList, uBlock filters...) puts a copy in a file, under that list's own licence, and names it
 * in WEBGAUGE_ADBLOCK_LIST (docs/api.md "Test options"); its rules are used together with these.
 */
export const WEBGAUGE_FILTER_LIST = `! Title: Webgauge ad servers
! Licence: MIT (part of Webgauge)
! Ad servers and exchanges
||doubleclick.net^
||googlesyndication.com^
||googleadservices.com^
||adservice.google.com^
||googletagservices.com^
||amazon-adsystem.com^
||adnxs.com^
||adsrvr.org^
||advertising.com^
||adform.net^
||adition.com^
||admixer.net^
||adroll.com^
||adsafeprotected.com^
||casalemedia.com^
||criteo.com^
||criteo.net^
||contextweb.com^
||districtm.io^
||doubleverify.com^
||emxdgt.com^
||gumgum.com^
||indexww.com^
||innovid.com^
||ligatus.com^
||media.net^
||moatads.com^
||openx.net^
||outbrain.com^
||pubmatic.com^
||quantserve.com^
||revcontent.com^
||rubiconproject.com^
||serving-sys.com^
||sharethrough.com^
||smartadserver.com^
||sovrn.com^
||spotxchange.com^
||taboola.com^
||teads.tv^
||tribalfusion.com^
||triplelift.com^
||yieldmo.com^
||zedo.com^
||33across.com^
||bidswitch.net^
||lijit.com^
||mgid.com^
||propellerads.com^
||popads.net^
||adcolony.com^
||unityads.unity3d.com^
||ads.yahoo.com^
||ads.linkedin.com^
||ads-twitter.com^
||ads.pinterest.com^
||an.facebook.com^
! Ad scripts and slots wherever they are served from
/adsbygoogle.js
/pagead/js/*
/pagead/show_ads.js
/gpt/pubads_impl_
/prebid.js
/prebid.min.js
/ads/banner/*
/adserver/*
/banner_ads/*
&ad_slot=
?ad_unit=
`;
