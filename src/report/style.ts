/**
 * The icon of every page the service serves (the app, the public report, the PDF's source): a gauge on the brand's
 * blue, as an inline SVG so that it needs no request and no route (a data: URL; the pages' CSP allows data: images).
 */
const FAVICON_SVG = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#2456d6"/>' +
  '<path d="M7 22a9 9 0 1 1 18 0" fill="none" stroke="#fff" stroke-width="3" stroke-linecap="round"/>' +
  '<path d="M16 22l5-7" stroke="#fff" stroke-width="3" stroke-linecap="round"/></svg>';
export const FAVICON_LINK = `<link rel="icon" type="image/svg+xml" href="data:image/svg+xml,${encodeURIComponent(FAVICON_SVG)}">`;

/** The report page's stylesheet, inline (the page loads nothing but its own pictures). Print rules feed the PDF. */
export const REPORT_CSS = `
:root{--ink:#1b2333;--muted:#5f6b7d;--line:#e3e7ee;--bg:#f3f5f8;--card:#fff;--good:#0b8040;--ok:#9b6a00;--poor:#d23a2a;
--brand:#2456d6}
*{box-sizing:border-box}
body{font:14px/1.45 "Liberation Sans",Arial,system-ui,sans-serif;margin:0;color:var(--ink);background:var(--bg);
-webkit-print-color-adjust:exact;print-color-adjust:exact}
a{color:var(--brand)}
header{background:#141b2b;color:#fff;padding:18px 0 22px}
header .wrap{display:flex;gap:24px;align-items:center;justify-content:space-between}
header .title{min-width:0}
.thumb{flex:0 0 auto;width:200px;height:124px;overflow:hidden;border-radius:6px;border:2px solid #ffffff30;background:#fff;display:block}
.thumb img{width:100%;display:block}
.wrap{max-width:1160px;margin:0 auto;padding:0 24px}
.brand{font-weight:700;letter-spacing:.04em;color:#9db8ff;font-size:13px;text-transform:uppercase}
.brand span{color:#fff;opacity:.6;font-weight:400;text-transform:none;letter-spacing:0;margin-left:8px}
header h1{margin:6px 0 4px;font-size:22px;font-weight:600;word-break:break-all}
header h1 a{color:#fff;text-decoration:none}
.meta{color:#aab4c6;font-size:13px}.meta b{color:#dfe6f3;font-weight:600}.meta a{color:#dfe6f3;text-decoration:underline}
main.wrap{padding:22px 24px 40px}
section{margin:0 0 22px}
h2{font-size:17px;margin:0 0 10px;font-weight:650}
h2 small{font-weight:400;color:var(--muted);font-size:13px;margin-left:6px}
.card{background:var(--card);border-radius:10px;box-shadow:0 1px 2px #0001,0 0 0 1px #0000000d;padding:16px 18px}
.summary{display:grid;grid-template-columns:170px 1fr 1.6fr;gap:16px;align-items:stretch}
.grade{border-radius:10px;color:#fff;display:flex;flex-direction:column;align-items:center;justify-content:center;padding:14px}
.grade .letter{font-size:76px;font-weight:800;line-height:1}
.grade .label{font-size:12px;text-transform:uppercase;letter-spacing:.08em}
.grade .pct{font-size:15px;margin-top:4px;font-weight:600}
.how-scored{margin:-8px 0 22px;color:var(--muted);font-size:13px;padding:10px 18px}.how-scored p{margin:2px 0}.how-scored b{color:var(--ink)}
.scores{display:flex;gap:18px;align-items:center;justify-content:space-around}
.ring{--v:0;--c:var(--good);width:104px;height:104px;border-radius:50%;display:grid;place-items:center;
background:conic-gradient(var(--c) calc(var(--v)*1%),#e8ecf2 0)}
.ring div{width:82px;height:82px;border-radius:50%;background:#fff;display:grid;place-items:center;font-size:26px;font-weight:700}
.score{text-align:center}.score p{margin:8px 0 0;color:var(--muted);font-size:13px;font-weight:600}
.vitals{display:grid;grid-template-columns:repeat(3,1fr);gap:12px}
.vital{border-left:4px solid var(--c);padding:4px 0 4px 12px}
.vital p{margin:0;color:var(--muted);font-size:12px;text-transform:uppercase;letter-spacing:.05em;font-weight:600}
.vital b{display:block;font-size:26px;font-weight:700;color:var(--c)}
.vital span{font-size:12px;color:var(--muted)}.vital .bands{display:block;font-size:11px;color:var(--muted);margin-top:2px}
.keys{display:grid;grid-template-columns:repeat(3,1fr);gap:10px 12px;margin-top:16px;padding-top:12px;border-top:1px solid var(--line)}
.key p{margin:0;color:var(--muted);font-size:12px}.key b{font-size:18px}
.cols{display:grid;grid-template-columns:1fr 1fr;gap:16px}
table{border-collapse:collapse;width:100%}
td,th{padding:6px 8px;border-bottom:1px solid var(--line);text-align:left;vertical-align:top}
th{font-size:12px;color:var(--muted);font-weight:600;text-transform:uppercase;letter-spacing:.04em}
.num,td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
.kv td:first-child{color:var(--muted)}.kv td:last-child{text-align:right;font-weight:600;font-variant-numeric:tabular-nums}
.kv small{display:block;font-weight:400;color:var(--muted);font-size:11px}
.spread td:not(:first-child),.spread th:not(:first-child){text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
.spread td.range{white-space:normal}.spread .range span{white-space:nowrap}
.spread td:first-child{color:var(--muted)}.note{color:var(--muted);font-size:13px;margin:10px 0 0}
.stack{display:flex;height:14px;border-radius:7px;overflow:hidden;margin:4px 0 12px;background:#e8ecf2}
.stack i{display:block;height:100%}
.dot{display:inline-block;width:10px;height:10px;border-radius:3px;margin-right:6px;vertical-align:-1px}
.t-html{background:#4c7ef3}.t-css{background:#a65ce0}.t-javascript{background:#f0b429}.t-image{background:#2bb3a3}
.t-font{background:#e8684a}.t-json{background:#7d8ba1}.t-media{background:#d64e8a}.t-other{background:#b8c1cf}
.film{display:flex;gap:10px;overflow-x:auto;padding-bottom:4px}
.film figure{margin:0;flex:0 0 auto;text-align:center}
.film img{height:118px;border:1px solid var(--line);border-radius:4px;display:block;background:#fff}
.film figcaption{font-size:12px;color:var(--muted);margin-top:4px;font-variant-numeric:tabular-nums}
.film .painted figcaption{color:var(--good);font-weight:600}
.film-step h3{font-size:13px;font-weight:650;margin:0 0 6px}.film-step h3 small{font-weight:400;color:var(--muted)}
.film-step{border-left:3px solid var(--brand);padding:2px 0 2px 10px;margin:0 0 14px}.film-step:last-child{margin-bottom:0}
.film-step .film p{margin:0;font-size:12px}
.journey-note{margin:0 0 10px;color:var(--muted)}.steps-wrap{overflow-x:auto}
table.steps th,table.steps td{vertical-align:top}
table.steps .step-name{text-transform:none;letter-spacing:0;color:var(--ink);font-size:14px;font-weight:600;min-width:200px;max-width:340px}
.step-url{display:block;font-weight:400;font-size:12px;color:var(--muted);word-break:break-all}
.step-warnings{margin:4px 0 0;padding-left:16px;font-weight:400;font-size:12px;color:var(--ok)}
table.steps td.none{color:var(--muted)}
table.steps tr.measured>*{background:#fff6d8}table.steps tr.measured>:first-child{box-shadow:inset 4px 0 0 #c08a00}
.measured-tag{display:inline-block;margin-left:4px;padding:0 7px;border-radius:9px;background:#7a5600;color:#fff;font-size:11px;font-weight:700;white-space:nowrap}
@media screen and (max-width:700px){table.steps thead{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)}
table.steps,table.steps tbody,table.steps tr,table.steps td,table.steps th{display:block;width:100%;max-width:none}
table.steps tr{border-bottom:1px solid var(--line);padding:8px 6px;display:flex;flex-direction:column}table.steps .step-name{order:-1}table.steps td,table.steps th{border:0;padding:2px 0}
table.steps td{display:flex;justify-content:space-between;gap:12px}table.steps td.none{display:none}
table.steps td[data-label]::before{content:attr(data-label);color:var(--muted)}
table.steps tr.measured>:first-child{box-shadow:none}table.steps tr.measured{box-shadow:inset 4px 0 0 #c08a00;padding-left:12px}}
video{width:100%;max-width:820px;display:block;margin:0 auto;border-radius:6px;border:1px solid var(--line);background:#fff}
.waterfall table{table-layout:fixed}
.waterfall td,.waterfall th{padding:3px 6px;font-size:12px;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
.waterfall th:nth-child(1){width:34px}.waterfall th:nth-child(2){width:30%}.waterfall th:nth-child(3){width:64px}
.waterfall th:nth-child(4){width:78px}.waterfall th:nth-child(5){width:70px}
.waterfall .url .path{display:flex;min-width:0}
.waterfall .url .dir,.waterfall .url .file{min-width:0;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
.waterfall .url .dir{flex:0 1000 auto;min-width:1.2em}.waterfall .url .file{flex:0 1 auto}
.waterfall .url small{display:block;color:var(--muted);font-size:10px}
.waterfall .n{color:var(--muted)}.waterfall .bad{color:var(--poor);font-weight:700}
@media screen and (max-width:700px){
.waterfall table,.waterfall thead,.waterfall tbody{display:block}
.waterfall tr{display:grid;grid-template-columns:22px minmax(0,1fr) auto auto auto;align-items:start;border-bottom:1px solid var(--line)}
.waterfall td,.waterfall th{border:0;padding:2px 3px;width:auto}
.waterfall thead th:not(.bar){position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)}
.waterfall td.bar,.waterfall th.bar{grid-column:1/-1;width:auto}.waterfall td.bar{height:20px}.waterfall td.bar b{top:5px}.waterfall td.bar em{top:3px}}
.bar{position:relative}
td.bar{height:30px}
.bar b{position:absolute;top:10px;height:10px;min-width:1px}
.bar em{position:absolute;top:8px;margin-left:4px;font-style:normal;font-size:10px;color:var(--muted)}
.axis{position:relative;height:22px}
.tick{position:absolute;top:4px;transform:translateX(-50%);font-size:10px;color:var(--muted);font-weight:400;text-transform:none}
.mark{position:absolute;top:0;bottom:0;width:0;border-left:1px dashed}
.legend .mark{position:static;display:inline-block;height:10px;margin-right:6px;border-left-width:2px}
.fcp{border-color:#0c8a43}.dcl{border-color:#2456d6}.onload{border-color:#d23a2a}.fl{border-color:#c2189b}
b.queued{background:#d7dce4}b.blocked{background:#aab3c2}b.dns{background:#22a699}b.connect{background:#f39c34}
b.send{background:#5b8def}b.wait{background:#46b86a}b.receive{background:#2456d6}
.legend{display:flex;flex-wrap:wrap;gap:6px 16px;margin-top:10px;font-size:12px;color:var(--muted)}
.legend b{display:inline-block;width:14px;height:10px;margin-right:6px;vertical-align:-1px}
.audits td:first-child{width:64px}
.badge{display:inline-block;min-width:48px;text-align:center;border-radius:12px;padding:1px 8px;font-size:12px;font-weight:700;color:#fff}
.impact{font-size:11px;text-transform:uppercase;letter-spacing:.05em;color:var(--muted)}
.savings{font-size:12px;color:var(--muted);white-space:nowrap}
.offenders{margin:4px 0 0;padding-left:18px;color:var(--muted);font-size:12px;word-break:break-all}
.shot img{width:100%;max-width:760px;border:1px solid var(--line);border-radius:4px;display:block;margin:0 auto}
.shot{max-height:820px;overflow:auto}
details summary{cursor:pointer;color:var(--brand);font-weight:600;padding:10px 8px 4px}
.muted{color:var(--muted)}
footer{color:var(--muted);font-size:12px;padding:8px 0 30px}
@media (max-width:900px){.summary{grid-template-columns:1fr}.cols{grid-template-columns:1fr}.thumb{display:none}}
@media (max-width:480px){td,th{padding:6px 4px}th{letter-spacing:0}.spread{font-size:13px}}
@media print{
  @page{size:A4;margin:10mm 9mm}
  body{background:#fff;font-size:11px}
  header{padding:12px 0 14px}
  .wrap{max-width:none;padding:0 4px}
  .card{box-shadow:none;border:1px solid var(--line)}
  section,.card,tr,figure{break-inside:avoid}
  section.long,section.long .card{break-inside:auto}
  h2{break-after:avoid}
  .summary{grid-template-columns:104px 1fr 1.9fr;gap:10px}
  .cols{grid-template-columns:1fr 1fr}
  .grade .letter{font-size:56px}
  .vital p{font-size:9px}.vital b{font-size:19px}.key b{font-size:14px}
  .thumb{display:block}
  .waterfall th:nth-child(2){width:26%}.waterfall td,.waterfall th{font-size:10px}.tick{font-size:8px}
  .scores{gap:6px;padding:12px 8px}
  .ring{width:74px;height:74px}.ring div{width:58px;height:58px;font-size:17px}
  .keys{grid-template-columns:repeat(3,1fr)}
  .thumb{width:150px;height:93px}
  .shot img{max-width:none}
  .shot{max-height:none;overflow:visible}
  .film{flex-wrap:wrap;overflow:visible}.film img{height:82px}
  .steps-wrap{overflow:visible}table.steps{font-size:9px}table.steps th,table.steps td{padding:4px 3px}
  table.steps thead th{font-size:7.5px;letter-spacing:0}table.steps .step-name{font-size:9.5px;min-width:0;max-width:none}
  table.steps .step-url{font-size:8px}.measured-tag{font-size:8px}
}
`;
