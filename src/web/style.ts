/** The app's stylesheet, added after the report page's (which gives colours, cards and tables). */
export const APP_CSS = `
.skip{position:absolute;left:-9999px}.skip:focus{left:8px;top:8px;z-index:9;background:#fff;padding:6px 10px;border-radius:6px}
.appnav{background:#0d1322;color:#fff}
.appnav .wrap{display:flex;flex-wrap:wrap;align-items:center;gap:4px 18px;padding-top:8px;padding-bottom:8px}
.appnav .logo{font-weight:800;letter-spacing:.04em;color:#9db8ff;text-decoration:none;text-transform:uppercase;font-size:14px;margin-right:8px}
.appnav ul{display:flex;flex-wrap:wrap;gap:2px 4px;list-style:none;margin:0;padding:0;flex:1;align-items:center}
.appnav li:last-child{margin-left:auto}
.appnav a.nav{color:#dfe6f3;text-decoration:none;padding:6px 10px;border-radius:6px;display:block}
.appnav a.nav:hover{background:#ffffff18}.appnav a[aria-current=page]{background:#2456d6;color:#fff}
.appnav button{background:none;border:1px solid #ffffff50;color:#dfe6f3;padding:5px 10px;border-radius:6px;font:inherit;cursor:pointer}
:focus-visible{outline:3px solid #f0b429;outline-offset:2px}
main.app{padding:22px 24px 40px}
main.app h1{font-size:22px;margin:0 0 14px}
label{display:block;font-weight:600;margin:0 0 4px}
.hint{display:block;font-weight:400;color:var(--muted);font-size:12px}label+.hint{margin:-2px 0 4px}
input[type=text],input[type=url],input[type=email],input[type=password],input[type=number],input[type=search],select,textarea{
font:inherit;padding:8px 10px;border:1px solid #98a2b3;border-radius:6px;background:#fff;color:var(--ink);width:100%;max-width:100%}
textarea{min-height:64px;resize:vertical}
input[type=color]{width:56px;height:36px;padding:2px;border:1px solid #98a2b3;border-radius:6px;background:#fff}
.btn,button.btn{display:inline-block;font:inherit;font-weight:600;padding:8px 16px;border-radius:6px;border:1px solid var(--brand);
background:var(--brand);color:#fff;cursor:pointer;text-decoration:none;line-height:1.4}
.btn.secondary{background:#fff;color:var(--brand)}.btn.danger{background:#b42318;border-color:#b42318}
.btn.small{padding:4px 10px;font-size:13px}
.field{margin:0 0 14px}
.row{display:flex;flex-wrap:wrap;gap:12px;align-items:flex-end}.row>.field{flex:1 1 180px}
.check{display:flex;gap:8px;align-items:center;font-weight:400}.check input{width:18px;height:18px;margin:0}
fieldset{border:1px solid var(--line);border-radius:8px;padding:10px 14px 4px;margin:0 0 14px;min-width:0}
.device-choice{display:flex;flex-wrap:wrap;gap:6px 20px;align-items:center;padding-bottom:10px}.device-choice .hint{flex-basis:100%}
legend{font-weight:650;padding:0 4px}
.analyze-bar{display:flex;gap:10px;flex-wrap:wrap}.analyze-bar input{flex:1 1 240px}
.error{background:#fdecea;border:1px solid #f5c2bd;color:#8a1c12;border-radius:8px;padding:10px 14px;margin:0 0 14px}
.form-error{scroll-margin:96px 0;overflow-wrap:anywhere}.form-error ul{margin:6px 0 0;padding-left:20px;overflow-wrap:anywhere}.form-error li{margin:2px 0}
.form-error a{color:inherit;font-weight:600}
.ok{background:#e7f6ec;border:1px solid #b5e2c4;color:#0b5a2c;border-radius:8px;padding:10px 14px;margin:0 0 14px}
.signin{max-width:420px;margin:40px auto}.signin h1{text-align:center}
.signin .card{margin-bottom:16px}.signin h2{font-size:16px}
.tablewrap{overflow-x:auto;position:relative}
/* A box that scrolls sideways (client script: .scrolls, named and focusable) shades the edge its content goes on past:
   the white covers scroll with the content, the shades stay at the box's edges. */
.scrolls{background:linear-gradient(90deg,#fff 40%,#fff0) 0 0/32px 100% no-repeat local,linear-gradient(270deg,#fff 40%,#fff0) 100% 0/32px 100% no-repeat local,
radial-gradient(farthest-side at 0 50%,#0d132240,#0d132200) 0 0/14px 100% no-repeat scroll,radial-gradient(farthest-side at 100% 50%,#0d132240,#0d132200) 100% 0/14px 100% no-repeat scroll,#fff}
.scroll-hint{margin:0 0 4px;font-size:12px;color:var(--muted);text-align:right}.scroll-hint[hidden]{display:none}
table.list td,table.list th{white-space:nowrap}table.list td.url{white-space:normal;overflow-wrap:break-word;min-width:160px}
.pill{display:inline-block;border-radius:10px;padding:0 8px;font-size:12px;border:1px solid #0002;margin:1px 2px 1px 0}
.gradebox{display:inline-block;min-width:28px;text-align:center;border-radius:5px;color:#fff;font-weight:700;padding:0 4px}
.pager{display:flex;gap:10px;align-items:center;margin-top:12px;flex-wrap:wrap}
.state{font-size:20px;font-weight:650;margin-top:0}
.actions{display:flex;flex-wrap:wrap;gap:8px;align-items:center;margin:0 0 16px}
.actions form{margin:0}.actions .pdf-cost{font-size:13px}
.tabs{position:sticky;top:0;z-index:2;background:#fff;border-bottom:1px solid var(--line)}
.tabs ul{display:flex;flex-wrap:wrap;gap:2px 4px;list-style:none;margin:0 auto;padding:6px 24px;max-width:1160px}
.tabs a{display:block;padding:6px 10px;border-radius:6px;text-decoration:none;font-weight:600;white-space:nowrap}
.tabs a:hover{background:#eef2fb}
.charts{display:grid;grid-template-columns:repeat(auto-fill,minmax(320px,1fr));gap:14px}
.chart h3{margin:0 0 6px;font-size:14px}.chart svg{width:100%;height:auto;display:block}
.chart a:focus-visible circle{stroke:#f0b429;stroke-width:4}
.compare td.num{white-space:nowrap}.better{color:var(--good)}.worse{color:var(--poor)}.within_noise{color:var(--muted)}
/* A rated figure's cell (screens/figures.ts ratedCell): the report's Web Vitals colours */
.lab-field h3{margin-top:0}table.list.lf-table{max-width:44rem}table.list.lf-table th{white-space:normal}table.list.lf-table th.lf-name{text-transform:none;font-size:14px;color:var(--ink);letter-spacing:0;font-weight:600}
table.list.lf-table .lf-verdict td{white-space:normal}
table.list.field-alerts-table td.wraps,table.list.field-alert-events td.wraps{white-space:normal;min-width:11em}.field-alerts-line{margin:-4px 0 12px}
.lf-table .lf-metric+.lf-metric{border-top:1px solid var(--line)}.lf-table .lf-metric td,.lf-table .lf-metric th{border-bottom:0}
.lf-n{display:block;font-size:.8em;color:var(--muted)}table.list td .lf-n{white-space:normal;min-width:7em}.lf-verdict td{padding-top:0;font-size:.92em}
.lf-flag.lf-lab-better,.lf-flag.lf-lab-worse{display:block;border-left:3px solid var(--ok);padding-left:.5rem}.lf-flag.lf-lab-worse{border-left-color:var(--poor)}
.lf-flag.lf-alike{color:var(--muted)}
.rated-good{color:var(--good)}.rated-needs_improvement{color:var(--ok)}.rated-poor{color:var(--poor);font-weight:600}
.cmpfilm{overflow-x:auto}.cmpfilm .lane{display:flex;align-items:center;gap:8px;margin:6px 0}
.cmpfilm .lane b{flex:0 0 90px;font-size:12px}
.cmpfilm .strip{position:relative;height:96px;flex:1 0 640px}
.cmpfilm .strip img{position:absolute;top:0;height:96px;border:1px solid var(--line);background:#fff}
.key-once{font-family:"Liberation Mono",monospace;background:#f6f8fb;border:1px dashed #98a2b3;padding:8px 10px;border-radius:6px;word-break:break-all}
section.part{margin:0 0 26px}
/* A part followed from its tab scrolls clear of the sticky tabs: their height, measured by the client script (without
   it, their usual height: one row, two on a phone). */
.part{scroll-margin-top:calc(var(--sticky-top,44px) + 8px)}@media (max-width:600px){.part{scroll-margin-top:calc(var(--sticky-top,80px) + 8px)}}.part-title{font-size:20px;border-bottom:2px solid var(--line);padding-bottom:4px;margin:0 0 12px}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:6px 16px;margin:0}dl.facts dt{color:var(--muted)}dl.facts dd{margin:0;font-weight:600}
@media (max-width:600px){main.app,main.wrap{padding:16px 12px 32px}.summary>*{min-width:0}.tabs a{padding:5px 8px}.wrap{padding:0 12px}.tabs ul{padding:6px 12px}
.appnav .wrap{gap:4px 8px}.appnav a.nav{padding:6px 7px}}
/* Account */
.account-grid{columns:3 320px;column-gap:16px}
.account-grid .account-part{break-inside:avoid;margin:0 0 16px}.account-part>:last-child{margin-bottom:0}.account-part h2{font-size:17px;margin:0 0 10px}.account-part p{margin:0 0 10px}
.account-part dl.facts+p{margin-top:12px}
.account-part dl.facts{grid-template-columns:minmax(0,max-content) minmax(0,1fr);overflow-wrap:anywhere}
.account-figure{font-size:26px;font-weight:750}
.account-part .key-once{display:block;font-size:15px}
.account-part .actions{margin:14px 0 0}
/* Pages list and page view (screens/pages.ts, charts.ts) */
.visually-hidden{position:absolute!important;width:1px;height:1px;padding:0;margin:-1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap;border:0}
.pages-filter{margin:0 0 14px;padding-bottom:2px}.pages-filter .row>.field{flex:1 1 170px}.pages-filter .row>.field:first-child{flex:2 1 240px}
.pages-filter .pages-apply{flex:0 0 auto}.pages-empty p{margin:0}
.pages-list td.tags{white-space:normal;min-width:90px}
/* Twelve columns fit 1366 px: headings and the browser and time cells wrap between their words. */
table.list.pages-list th,table.list.pages-list td.wraps{white-space:normal}.pages-list td.wraps{min-width:84px}
.pages-list td,.pages-list th{vertical-align:middle}
.pv-url{overflow-wrap:anywhere}
.pv-facts{margin:-6px 0 14px}
.pv-settings{display:grid;grid-template-columns:repeat(auto-fit,minmax(min(100%,300px),1fr));gap:14px;margin:0 0 22px}
.pv-settings>section{margin:0}.pv-part h2,.pv-section h2{font-size:18px;margin:0 0 10px}
.pv-part select{max-width:260px}.pv-part p{margin:10px 0 0}
.pv-tags{border:0;padding:0;margin:0 0 12px;display:flex;flex-wrap:wrap;gap:8px 16px}
.pv-section{margin:0 0 26px}
.pv-compare{margin:12px 0 0}
.pv-change{margin:0 0 14px}.pv-change h3{font-size:15px;margin:0 0 8px}.pv-change p{margin:8px 0 0;font-size:13px}
.pv-changes{list-style:none;margin:0;padding:0;display:flex;flex-wrap:wrap;gap:8px 22px}.pv-changes li{min-width:110px}
.pv-change-name{display:block;font-size:12px;color:var(--muted)}
.chart{margin:0;min-width:0}.chart h3{display:flex;justify-content:space-between;gap:8px;align-items:baseline}
.chart-latest{font-size:16px;font-weight:700}
.chart svg .axis line{stroke:#c5ccd8;stroke-width:1}
.chart svg .ticks text{fill:#5f6b7d;font-size:11px;font-family:inherit}
.chart svg .line{fill:none;stroke:#2456d6;stroke-width:2;stroke-linejoin:round;stroke-linecap:round}
.chart svg .line-field polyline,.chart svg .line-field line{fill:none;stroke:#c11574;stroke-width:1.5;stroke-dasharray:5 3}
.chart svg .line-crux polyline,.chart svg .line-crux line{fill:none;stroke:#0e9384;stroke-width:1.5;stroke-dasharray:1.5 2.5;stroke-linecap:round}
.chart-legend{margin:4px 0 0;font-size:12px;color:var(--muted);display:flex;flex-wrap:wrap;gap:4px 14px}
.chart-legend span::before{content:"";display:inline-block;width:18px;margin-right:5px;vertical-align:middle;border-top:2px solid #2456d6}
.chart-legend .key-line-field::before{border-top:2px dashed #c11574}.chart-legend .key-line-crux::before{border-top:2px dotted #0e9384}
.chart-plot{position:relative}.chart-plot svg.points{position:absolute;inset:0;width:100%;height:100%;overflow:visible}
.chart svg.points circle{fill:#fff;stroke:#2456d6;stroke-width:2}
.chart svg.points a:hover circle{fill:#2456d6}
.chart svg.points a:focus-visible circle{fill:#f0b429;stroke:#0d1322;stroke-width:2.5;r:6px}
/* A page's alerts (screens/page-alerts.ts) and their flags on the history charts */
.pv-alert-card>.tablewrap{margin:0 0 16px}.pv-alert-card>p.muted{margin:0 0 14px}.pv-alert-card>:last-child{margin-bottom:0}
.pv-alert-new{border-top:1px solid var(--line);padding-top:14px}.pv-alert-new h3,.pv-alert-sub{font-size:15px;margin:0 0 10px}
.pv-alert-sub{margin-top:18px}
.pv-alert-new .row,.pv-alert-edit .row{align-items:flex-start}.pv-alert-new .row>.field,.pv-alert-edit .row>.field{flex:1 1 220px}
.pv-alert-on{color:#b42318;font-weight:700}
.pv-alert-actions .actions{margin:0;gap:6px;flex-wrap:nowrap;justify-content:flex-end}
.pv-alert-edit{max-width:760px}.pv-back{margin:0 0 8px}
table.pv-stack td,table.pv-stack th{vertical-align:middle}
.chart svg .band line{stroke-width:1;stroke-dasharray:4 3}.chart svg .band text{font-size:8px;font-family:inherit}
.chart svg .band-good line{stroke:var(--good)}.chart svg .band-good text{fill:var(--good)}
.chart svg .band-poor line{stroke:var(--poor)}.chart svg .band-poor text{fill:var(--poor)}
.chart svg .lh-change line{stroke:#7a5c00;stroke-width:1;stroke-dasharray:1 2}
.chart svg .lh-change text{fill:#7a5c00;font-size:9px;font-family:inherit}
.chart svg .cpu-change line{stroke:#5b3e96;stroke-width:1;stroke-dasharray:3 2}.chart svg .cpu-change text{fill:#5b3e96;font-size:9px;font-family:inherit}
.chart svg.points .marker line{stroke:#b42318;stroke-width:1.5;stroke-dasharray:3 2}
.chart svg.points .marker path{fill:#b42318}
@media (max-width:600px){table.pv-stack thead{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)}
table.pv-stack,table.pv-stack tbody,table.pv-stack tr,table.pv-stack td{display:block;width:100%}
table.pv-stack tr{border-bottom:1px solid var(--line);padding:6px 0}table.pv-stack tr:last-child{border-bottom:0}
table.pv-stack td{border:0;padding:3px 0;display:flex;justify-content:space-between;align-items:baseline;gap:12px;text-align:right;white-space:normal}
table.pv-stack td[data-label]::before{content:attr(data-label);color:var(--muted);font-weight:600;text-align:left;flex:0 0 auto}
table.pv-stack td.pv-alert-actions{padding-top:6px}.pv-alert-actions .actions{justify-content:flex-start;flex-wrap:wrap}}
/* Compare (screens/compare.ts) */
.cmp-section{margin:0 0 24px}
.cmp-inline-url{word-break:break-all}
.cmp-note{color:var(--muted);font-size:13px;margin:0 0 8px}
.cmp-table{min-width:100%;width:auto}
.cmp-table thead th{text-transform:none;letter-spacing:0;color:var(--ink);font-size:13px;font-weight:400;vertical-align:bottom;min-width:150px;max-width:260px}
.cmp-table thead th:first-child{min-width:0}
.cmp-table th[scope=row]{text-transform:none;letter-spacing:0;font-size:13px;color:var(--ink);font-weight:600;white-space:nowrap}
.cmp-table th:first-child{position:sticky;left:0;background:#fff;z-index:1}
.cmp-table td.num{text-align:right;vertical-align:top}
.cmp-name{font-weight:700;font-size:14px}
.cmp-base{display:inline-block;font-size:11px;border:1px solid var(--line);border-radius:8px;padding:0 6px;color:var(--muted)}
.cmp-url{display:block;word-break:break-all;color:var(--muted);font-size:12px}
.cmp-when{display:block;color:var(--muted);font-size:12px;white-space:nowrap}
.cmp-browser{display:block;font-size:12px;font-weight:600}
.cmp-warn{background:#fff4e5;border:1px solid #f3c98b;color:#6b4100;border-radius:8px;padding:10px 14px;margin:0 0 14px}
.cmp-grade{display:block;margin-top:3px}
.cmp-value{display:block;font-weight:600}
.cmp-delta{display:block;font-size:12px;white-space:nowrap}
.cmp-delta.better{color:#0a6b34}.cmp-delta.worse{color:#b42318}.cmp-delta.same,.cmp-delta.none,.cmp-delta.within_noise{color:var(--muted)}
.noise{color:var(--muted)}.noise b{font-weight:600}
.cmp-delta b{font-weight:700}
.cmp-film{overflow-x:auto;padding:12px 14px}
.cmp-film-inner{position:relative;min-width:100%;padding-right:104px}
.cmp-axis{position:relative;height:20px;border-bottom:1px solid var(--line);margin-bottom:6px}
.cmp-tick{position:absolute;top:2px;font-size:11px;color:var(--muted);white-space:nowrap;padding-left:3px;border-left:1px solid #98a2b3}
.cmp-lane{margin:0 0 10px}
.cmp-lane-name{position:sticky;left:0;display:inline-block;margin:0 0 4px;font-size:12px;background:#fff;padding-right:8px}
.cmp-lane-name span{color:var(--muted)}
.cmp-strip{position:relative;height:86px;background:linear-gradient(#e3e7ee,#e3e7ee) 0 33px/100% 1px no-repeat}
.cmp-frame{position:absolute;top:0;margin:0;width:96px}
.cmp-frame img{display:block;width:96px;height:64px;object-fit:contain;background:#fff;border:1px solid #c4cbd6;border-radius:3px}
.cmp-frame figcaption{display:inline-block;background:#fff;padding-right:3px;font-size:11px;color:var(--muted);font-variant-numeric:tabular-nums;white-space:nowrap}
.cmp-end{position:absolute;top:0;bottom:0;border-left:2px dashed #c2189b}
.cmp-none{position:absolute;top:24px;left:0;font-size:12px}
.cmp-legend{position:sticky;left:0;margin:4px 0 0;font-size:12px;color:var(--muted)}
.cmp-legend .cmp-end{position:static;display:inline-block;height:12px;margin-right:6px;vertical-align:-1px}
@media (max-width:600px){.cmp-wrap{padding:10px 8px}.cmp-table th[scope=row]{white-space:normal;min-width:84px;max-width:104px}
.cmp-table thead th{min-width:100px}.cmp-table td,.cmp-table th{padding:6px 4px}.cmp-delta,.cmp-when{white-space:normal}}
/* Tags (screens/tags.ts) */
.tag-table td{vertical-align:middle}
.tag-new form,.tag-edit{max-width:760px}
.tag-cell{min-width:0;word-break:break-word}
.tag-name{display:inline-flex;align-items:center;flex-wrap:wrap;gap:4px 8px}
.tag-swatch{display:inline-block;flex:0 0 auto;width:18px;height:18px;border-radius:5px;border:1px solid #0000004d}
h1 .tag-swatch{width:22px;height:22px}
.tag-hex{font-size:12px;color:var(--muted);font-variant-numeric:tabular-nums}
.tag-desc{display:block;color:var(--muted);font-size:13px;margin-top:2px}
.tag-sr{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
.tag-new{margin-top:24px}.tag-new h2,.tag-delete h2{font-size:17px}
.tag-colour{flex:0 0 auto!important}
.tag-edit{margin-bottom:24px}
.tag-back{margin:0 0 8px}
.tag-delete .actions,.tag-delete form{margin:0}
/* A journey on Analyze (screens/analyze-journey.ts) */
details.journey{margin:0 0 14px}details.journey>p{margin:0 0 12px}details.journey .row{align-items:flex-start}
details.journey input[type=file]{font:inherit;max-width:100%}details.journey textarea{font:13px/1.4 "Liberation Mono",monospace}
/* A test's progress (screens/progress.ts): its steps, the current one marked, those behind it ticked */
.progress-steps{list-style:none;margin:4px 0 14px;padding:0;display:flex;flex-wrap:wrap;gap:6px 8px;counter-reset:step}
.progress-steps li{counter-increment:step;padding:4px 10px;border:1px solid var(--line);border-radius:999px;font-size:13px;color:var(--muted)}
.progress-steps li::before{content:counter(step) ". "}
.progress-steps li.done{color:var(--ink)}.progress-steps li.done::before{content:"✓ "}
.progress-steps li.current{border-color:var(--brand);background:var(--brand);color:#fff;font-weight:600}
.progress-time{margin:0 0 4px}.progress-time b{font-variant-numeric:tabular-nums}.progress-estimate{margin:0 0 8px}
.progress-card .actions{margin:12px 0 0}
/* A failed journey on its progress screen (screens/progress.ts) */
.progress-journey{margin:-8px 0 14px}.failed-journey{margin:16px 0}.failed-journey h2{font-size:18px;margin:0 0 10px}
.failed-steps{margin:0;padding-left:22px}.failed-steps li{padding:6px 0;border-bottom:1px solid var(--line)}
.failed-step-facts,.failed-step-url{display:block;color:var(--muted);font-size:13px}.failed-step-url{font-size:12px;overflow-wrap:anywhere}
.failure-shot{margin:16px 0 0}.failure-shot img{display:block;width:100%;max-width:640px;height:auto;border:1px solid var(--line);border-radius:4px}
.failure-shot figcaption{font-weight:650;margin:0 0 6px}
/* Recent tests on Analyze (screens/analyze.ts) */
.recent{margin-top:26px}.recent h2{font-size:18px;margin:0 0 10px}
table.recent-tests td{vertical-align:top}table.recent-tests td.url{min-width:120px;width:55%}
table.list td.recent-state{white-space:normal;min-width:120px;overflow-wrap:anywhere}
.recent-when{display:block;color:var(--muted);font-size:12px;margin-top:2px;white-space:nowrap}
/* Scans (screens/scans.ts, scan-view.ts) */
.scan-new,.scan-list{margin:0 0 26px}.scan-new h2,.scan-list h2,.scan-section>h2{font-size:18px;margin:0 0 10px}
.scan-form .row>.field{flex:1 1 170px}
.scan-form textarea{font:13px/1.4 "Liberation Mono",monospace}
.scan-checks{display:flex;flex-wrap:wrap;gap:8px 24px;margin:0 0 14px}
.scan-form details.card{margin:0 0 14px;box-shadow:none;border:1px solid var(--line)}
.scan-submit{display:flex;flex-wrap:wrap;gap:8px 14px;align-items:center}.scan-submit .hint{flex:1 1 260px}
.scan-empty{margin:0}
table.scans-list td.url{min-width:180px}
.scan-title{overflow-wrap:anywhere}.scan-title .url{font-weight:600}
.scan-facts{margin:-6px 0 14px}
.scan-status{margin:0 0 16px}.scan-status .state{margin:0}.scan-status .muted{margin:6px 0 0}
.scan-cards{display:grid;grid-template-columns:repeat(auto-fit,minmax(min(100%,320px),1fr));gap:14px;margin:0 0 24px}
.scan-card{margin:0}.scan-card h2{font-size:17px;margin:0 0 10px}.scan-card h3{font-size:14px;margin:14px 0 6px}
.scan-card dl.facts{grid-template-columns:minmax(0,max-content) minmax(0,1fr);overflow-wrap:anywhere}
.scan-card>p:last-child{margin-bottom:0}
.scan-bar{display:flex;height:10px;border-radius:5px;background:#e3e7ee;overflow:hidden;margin:0 0 12px}
.scan-bar-good{background:var(--good)}.scan-bar-poor{background:var(--poor)}
.scan-skipped{list-style:none;margin:0;padding:0}.scan-skipped li{display:flex;justify-content:space-between;gap:12px;padding:3px 0;border-bottom:1px solid var(--line)}
.scan-errors{margin:0;padding-left:18px;font-size:13px;overflow-wrap:anywhere}.scan-errors li{margin:0 0 4px}
.scan-section{margin:0 0 26px}.scan-section>p.muted{margin:-4px 0 10px}
.scan-keys{margin:0 0 14px}.scan-keys dl.facts{grid-template-columns:minmax(0,max-content) minmax(0,1fr)}
.scan-vitals{display:grid;grid-template-columns:repeat(auto-fit,minmax(min(100%,280px),1fr));gap:14px}
.scan-vital h3{font-size:15px;margin:0 0 10px}.scan-vital dl.facts{margin:10px 0 0}.scan-vital .hint{margin:8px 0 0}
.dist{display:flex;height:16px;border-radius:4px;overflow:hidden;background:#e3e7ee}
.dist-good{background:var(--good)}.dist-ni{background:#e6a700}.dist-poor{background:var(--poor)}
.dist-legend{list-style:none;margin:10px 0 0;padding:0;display:flex;flex-wrap:wrap;gap:4px 14px;font-size:13px}
.dist-legend li{display:flex;align-items:center;gap:5px}
.dist-key{display:inline-block;width:11px;height:11px;border-radius:3px}
.scan-grades{list-style:none;margin:0;padding:0;display:grid;gap:6px;max-width:620px}
.scan-grades li{display:grid;grid-template-columns:34px 1fr 90px;align-items:center;gap:10px}
.grade-bar{display:block;height:14px;background:#eef1f5;border-radius:4px;overflow:hidden}.grade-bar span{display:block;height:100%}
.grade-count{font-variant-numeric:tabular-nums;text-align:right}
td.scan-template{font:12px/1.4 "Liberation Mono",monospace;white-space:normal;overflow-wrap:anywhere;min-width:90px}
.scan-audits{margin:0;padding-left:22px}.scan-audits li{padding:5px 0;border-bottom:1px solid var(--line)}.scan-audits li:last-child{border-bottom:0}
.scan-impact{display:inline-block;font-size:11px;border:1px solid var(--line);border-radius:8px;padding:0 6px;color:var(--muted);white-space:nowrap}
.scan-impact-high{border-color:#f5c2bd;color:#8a1c12;background:#fdecea}
th a.sort{color:inherit;text-decoration:none;border-bottom:1px dotted currentColor}th a.sort:hover{color:var(--brand)}
th[aria-sort] a.sort{color:var(--ink)}
/* Scheduled scans and a site over time (screens/scan-schedules.ts, scan-history.ts) */
.scan-repeat{max-width:560px;margin:0 0 14px}
.scan-schedules{margin:0 0 26px}.scan-schedules h2{font-size:18px;margin:0 0 10px}
table.schedules-list td.url{min-width:180px;white-space:normal;overflow-wrap:anywhere}
table.list td.schedule-skipped{white-space:normal;min-width:160px;max-width:340px}
.schedule-skip{display:block;color:var(--muted);font-size:12px;margin-top:2px;overflow-wrap:anywhere}
.schedule-actions{display:flex;flex-wrap:wrap;gap:6px;margin:6px 0 0}.schedule-actions form{margin:0}
.scan-scheduled{margin:-8px 0 14px}
.history-table{margin:14px 0 0}.history-table summary{cursor:pointer;font-weight:600}.history-table .tablewrap{margin-top:10px}
.history-grades{display:inline-flex;gap:10px}.history-grades abbr{text-decoration:none;font-weight:650}
tr.history-current td{background:#f3f6fb}
/* Two scans compared (screens/scan-comparison.ts) */
.scan-compare-with{margin:0 0 16px}.scan-compare-with h2{font-size:17px;margin:0 0 10px}.scan-compare-with p{margin:0 0 10px}
.scmp-pick{align-items:flex-end}.scmp-pick>.field:first-child{flex:1 1 260px;max-width:480px}.scmp-pick>.field:last-child{flex:0 0 auto}
.scmp-notes{margin:0 0 16px;border-left:4px solid #e6a700}.scmp-notes h2{font-size:17px;margin:0 0 8px}.scmp-notes ul{margin:0;padding-left:20px}
.scmp-notes li{margin:0 0 6px;overflow-wrap:anywhere}
.scmp-counts h2{font-size:17px;margin:0 0 10px}.scmp-counts p{margin:10px 0 0;font-size:13px}
.scmp-count-list{list-style:none;margin:0;padding:0;display:flex;flex-wrap:wrap;gap:6px 18px}.scmp-count-list b{font-size:20px}
table.list td.scmp-reasons{white-space:normal;min-width:200px;max-width:380px}
table.scmp-pages td{vertical-align:top}table.scmp-pages td.num{white-space:normal;min-width:62px}.scmp-pages .nw{white-space:nowrap}
.scmp-path{display:block;font-weight:600}.scmp-sub{display:block;font-size:12px}.scan-template-inline{font-family:"Liberation Mono",monospace;color:var(--muted)}
table.list.scmp-site th[scope=row]{text-transform:none;letter-spacing:0;color:var(--ink);font-size:14px;font-weight:600;white-space:normal}
table.list.scan-devices-table th{white-space:normal}table.list.scan-devices-table th[scope=row]{text-transform:none;letter-spacing:0;color:var(--ink);font-size:14px;font-weight:600}
table.list.scmp-site td{white-space:nowrap}table.list.scmp-site td.scmp-change{white-space:normal}.scmp-site .nw{white-space:nowrap}
.scmp-reasons ul{margin:0;padding:0;list-style:none}.scmp-reasons li{margin:0 0 3px}.scmp-reasons .muted{font-size:12px}
td.scmp-verdict{font-weight:700}table.list td.scmp-state{white-space:normal;min-width:120px}
table.scan-pages td,table.scan-worst td,table.scan-worst-templates td,table.scan-third td{vertical-align:middle}
td.scan-page-state{white-space:normal;min-width:90px;max-width:200px}
.scan-page-error{display:block;color:#8a1c12;font-size:12px;overflow-wrap:anywhere}
/* Webhooks on Account (screens/webhooks.ts) */
.account-webhooks{margin-top:16px}.wh-add .field{max-width:760px}
.wh-url{word-break:break-all;overflow-wrap:anywhere}
h1.wh-title .wh-url{display:block;font-size:17px;font-weight:600;margin-top:4px}
.wh-list{list-style:none;margin:0 0 16px;padding:0}.wh-list li{border-top:1px solid var(--line);padding:10px 0}
.wh-list li:last-child{border-bottom:1px solid var(--line)}.wh-list a.wh-url{font-weight:600}
.wh-line{display:block;color:var(--muted);font-size:13px;margin-top:2px;overflow-wrap:anywhere}
.account-part h3{font-size:15px;margin:18px 0 10px}
.wh-events{display:grid;grid-template-columns:repeat(auto-fit,minmax(min(100%,220px),1fr));gap:8px 16px;padding-bottom:10px}
.wh-events legend{grid-column:1/-1}.wh-event .hint{margin:2px 0 0 26px}
.wh-back{margin:0 0 8px}dl.wh-facts{margin:0 0 16px}.wh-section h2{font-size:18px;margin:0 0 10px}
table.wh-deliveries td{vertical-align:top}table.list.wh-deliveries td,table.list.wh-deliveries th{white-space:normal}
table.wh-deliveries td.wh-result{width:50%;overflow-wrap:anywhere}
.wh-when{display:block;color:var(--muted);font-size:12px;margin-top:2px}
/* A scan's alerts (screens/scan-alerts.ts): a triggered one in red, a resolved one in green */
.scan-alerts{list-style:none;margin:0;padding:0;display:grid;gap:10px}.scan-alert{border-left:5px solid var(--line);margin:0}
.scan-alert p{margin:0 0 6px}.scan-alert-head{font-size:15px}.scan-alert-pages{margin:0 0 6px;padding-left:20px;overflow-wrap:anywhere}
.scan-alert-state{display:inline-block;font-size:12px;font-weight:700;border-radius:8px;padding:0 8px;border:1px solid var(--line);color:var(--muted)}
.scan-alert-triggered{border-left-color:#b42318}.scan-alert-triggered .scan-alert-state{background:#fdecea;border-color:#f5c2bd;color:#8a1c12}
.scan-alert-holds{border-left-color:#e6a700}.scan-alert-resolved{border-left-color:var(--good)}
.scan-alert-resolved .scan-alert-state{background:#e7f6ec;border-color:#b5e2c4;color:#0b5a2c}
.field-cards{display:grid;grid-template-columns:repeat(auto-fit,minmax(min(100%,210px),1fr));gap:14px}
.field-card{margin:0}.field-card h3{font-size:15px;margin:0 0 6px}.field-card abbr{text-decoration:none;color:var(--muted);font-weight:400}
.field-p75{font-size:28px;font-weight:700;margin:0 0 10px;font-variant-numeric:tabular-nums}.field-p75.few,td.few{color:var(--muted)}
.field-card .muted{margin:10px 0 0;font-size:13px}
.field-section{margin:0 0 26px}.field-section h2 .field-csv{font-size:13px;font-weight:400;margin-left:8px}
.field-live{display:flex;flex-wrap:wrap;align-items:baseline;gap:4px 18px;margin:0 0 22px}.field-live p{margin:0}.field-live-count b{font-size:22px}
.field-controls{display:flex;flex-wrap:wrap;gap:10px 24px;margin:0 0 16px}
.field-toggle{display:flex;flex-wrap:wrap;align-items:center;gap:4px}.field-toggle-name{font-weight:600;margin-right:6px}
.field-toggle a{padding:4px 10px;border:1px solid var(--line);border-radius:6px;background:var(--card);text-decoration:none}
.field-toggle a[aria-current=true]{background:#2456d6;border-color:#2456d6;color:#fff}
.field-filters{margin:0 0 14px}.field-new,.field-delete{margin:26px 0 0}
.field-charts{display:grid;grid-template-columns:repeat(auto-fit,minmax(min(100%,360px),1fr));gap:14px;margin:0 0 14px}
.field-attrs{display:grid;grid-template-columns:repeat(auto-fit,minmax(min(100%,340px),1fr));gap:14px}
.field-attr{margin:0}.field-attr h3{font-size:15px;margin:0 0 8px}.field-what{overflow-wrap:anywhere;font-family:ui-monospace,monospace;font-size:13px}
.field-table th[scope=row]{font-weight:400;text-transform:none;letter-spacing:0;font-size:inherit;color:inherit;min-width:10em;overflow-wrap:anywhere}
.field-form textarea,#snippet{width:100%;font-family:ui-monospace,monospace;font-size:13px}
.field.check{display:grid;grid-template-columns:auto 1fr;align-items:center;gap:2px 8px}.field.check .hint{grid-column:2}
`;
