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
.hint{display:block;font-weight:400;color:var(--muted);font-size:12px}
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
legend{font-weight:650;padding:0 4px}
.analyze-bar{display:flex;gap:10px;flex-wrap:wrap}.analyze-bar input{flex:1 1 240px}
.error{background:#fdecea;border:1px solid #f5c2bd;color:#8a1c12;border-radius:8px;padding:10px 14px;margin:0 0 14px}
.ok{background:#e7f6ec;border:1px solid #b5e2c4;color:#0b5a2c;border-radius:8px;padding:10px 14px;margin:0 0 14px}
.signin{max-width:420px;margin:40px auto}.signin h1{text-align:center}
.signin .card{margin-bottom:16px}.signin h2{font-size:16px}
.tablewrap{overflow-x:auto}
table.list td,table.list th{white-space:nowrap}table.list td.url{white-space:normal;word-break:break-all;min-width:160px}
.pill{display:inline-block;border-radius:10px;padding:0 8px;font-size:12px;border:1px solid #0002;margin:1px 2px 1px 0}
.gradebox{display:inline-block;min-width:28px;text-align:center;border-radius:5px;color:#fff;font-weight:700;padding:0 4px}
.pager{display:flex;gap:10px;align-items:center;margin-top:12px;flex-wrap:wrap}
.state{font-size:20px;font-weight:650}
.actions{display:flex;flex-wrap:wrap;gap:8px;align-items:center;margin:0 0 16px}
.actions form{margin:0}
.tabs{position:sticky;top:0;z-index:2;background:#fff;border-bottom:1px solid var(--line)}
.tabs ul{display:flex;gap:4px;list-style:none;margin:0 auto;padding:6px 24px;overflow-x:auto;max-width:1160px}
.tabs a{display:block;padding:6px 10px;border-radius:6px;text-decoration:none;font-weight:600;white-space:nowrap}
.tabs a:hover{background:#eef2fb}
.charts{display:grid;grid-template-columns:repeat(auto-fill,minmax(320px,1fr));gap:14px}
.chart h3{margin:0 0 6px;font-size:14px}.chart svg{width:100%;height:auto;display:block}
.chart a:focus-visible circle{stroke:#f0b429;stroke-width:4}
.compare td.num{white-space:nowrap}.better{color:var(--good)}.worse{color:var(--poor)}
.cmpfilm{overflow-x:auto}.cmpfilm .lane{display:flex;align-items:center;gap:8px;margin:6px 0}
.cmpfilm .lane b{flex:0 0 90px;font-size:12px}
.cmpfilm .strip{position:relative;height:96px;flex:1 0 640px}
.cmpfilm .strip img{position:absolute;top:0;height:96px;border:1px solid var(--line);background:#fff}
.key-once{font-family:"Liberation Mono",monospace;background:#f6f8fb;border:1px dashed #98a2b3;padding:8px 10px;border-radius:6px;word-break:break-all}
section.part{margin:0 0 26px;scroll-margin-top:52px}.part-title{font-size:20px;border-bottom:2px solid var(--line);padding-bottom:4px;margin:0 0 12px}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:6px 16px;margin:0}dl.facts dt{color:var(--muted)}dl.facts dd{margin:0;font-weight:600}
@media (max-width:600px){main.app{padding:16px 12px 32px}.wrap{padding:0 12px}.tabs ul{padding:6px 12px}
.appnav .wrap{gap:4px 8px}.appnav a.nav{padding:6px 7px}}
`;
