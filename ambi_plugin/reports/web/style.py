"""The HTML report's style sheet (inlined into the page): compact tables so the overview fits one screen, cells
coloured by value, light and dark colours by ``prefers-color-scheme``, visible keyboard focus."""

CSS = r"""
:root{--bg:#fff;--fg:#1b1f24;--muted:#57606a;--line:#d0d7de;--panel:#f6f8fa;--link:#0550ae;--lo:#ffffff;
--hi:#3b82c4;--paper:#6e7781;--ok:#1a7f37;--bad:#cf222e;--warn:#9a6700;--err:#8250df;--focus:#0969da;
--m0:#1f77b4;--m1:#ff7f0e;--m2:#2ca02c;--m3:#d62728;color-scheme:light dark}
@media (prefers-color-scheme:dark){:root{--bg:#0d1117;--fg:#e6edf3;--muted:#9da7b3;--line:#30363d;--panel:#161b22;
--link:#6cb6ff;--lo:#0d1117;--hi:#2f6fb0;--paper:#9da7b3;--ok:#3fb950;--bad:#ff7b72;--warn:#d29922;--err:#bc8cff;
--focus:#58a6ff}}
*{box-sizing:border-box}
body{font:14px/1.4 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;background:var(--bg);color:var(--fg)}
a{color:var(--link)}
:focus-visible{outline:2px solid var(--focus);outline-offset:2px}
header.top{padding:8px 16px 4px;border-bottom:1px solid var(--line)}
header.top h1{font-size:18px;margin:0 0 2px}
.meta{color:var(--muted);font-size:12px;margin:0}
.meta abbr{text-decoration:none;border-bottom:1px dotted var(--muted)}
.warn{color:var(--warn)}ul.warnings{color:var(--warn);margin:8px 16px;padding-left:18px}
nav.toc{display:flex;flex-wrap:wrap;gap:2px 12px;font-size:13px;padding:4px 16px;border-bottom:1px solid var(--line);
position:sticky;top:0;background:var(--bg);z-index:5}
main{padding:0 16px 40px}
section{scroll-margin-top:34px}
h2{font-size:17px;margin:14px 0 6px}h3{font-size:15px;margin:14px 0 4px}h4{font-size:14px;margin:10px 0 4px}
table{border-collapse:collapse;font-size:12.5px;margin:4px 0}
td,th{border:1px solid var(--line);padding:2px 6px;text-align:right;white-space:nowrap}
td:first-child,th:first-child{text-align:left}
th{background:var(--panel);font-weight:600}
tr.paper td{color:var(--paper)}tr.diff td{font-style:italic}
.notes{font-size:12px;color:var(--muted);margin:2px 0 6px;padding-left:18px}
img.chart{max-width:100%;background:#fff;border:1px solid var(--line)}
.ov-wrap{display:flex;flex-wrap:wrap;gap:12px;align-items:flex-start}
table.overview td{padding:1px 6px;line-height:18px}
table.overview td:nth-child(2),table.overview th:nth-child(2){text-align:left}
table.overview td:nth-child(2){color:var(--muted)}
figure{margin:0}
table.overview td.v{background:color-mix(in srgb,var(--hi) calc(var(--v) * 85%),var(--lo))}
table.overview td.bm{background:var(--panel);font-weight:600;text-align:left}
.ci,.n,.pp{color:var(--muted);font-size:11px}
.pp{margin-left:4px}
svg.ov-chart{font:11px system-ui,sans-serif;fill:var(--fg);max-width:100%;height:auto}
svg.ov-chart .grid{stroke:var(--line)}svg.ov-chart .wh{stroke:var(--fg);stroke-width:1.2}
svg.ov-chart a text{fill:var(--link)}
.items-links{font-size:12.5px;margin:6px 0}
.controls{display:flex;flex-wrap:wrap;gap:6px 12px;align-items:center;padding:6px 8px;background:var(--panel);
border:1px solid var(--line);border-radius:6px;position:sticky;top:28px;z-index:4}
.controls label{font-size:12.5px;display:flex;gap:4px;align-items:center}
.controls select,.controls input[type=search]{font:inherit;font-size:12.5px;background:var(--bg);color:var(--fg);
border:1px solid var(--line);border-radius:4px;padding:2px 4px}
.controls input[type=search]{width:16em}
.count{font-size:12.5px;color:var(--muted)}
.tnote{font-size:12px;color:var(--warn);margin:4px 0}
ol.items{list-style:none;margin:8px 0;padding:0}
li.item{display:flex;gap:10px;border-bottom:1px solid var(--line);padding:8px 0}
.media{flex:0 0 auto;display:flex;flex-direction:column;gap:4px;width:110px}
button.thumb{padding:0;border:1px solid var(--line);background:var(--panel);cursor:zoom-in;width:108px;height:108px;
border-radius:4px}
button.thumb img{width:100%;height:100%;object-fit:contain;display:block}
.noimg{font-size:11px;color:var(--muted)}
.body{flex:1 1 auto;min-width:0}
.ihead{display:flex;flex-wrap:wrap;gap:4px 10px;align-items:baseline;font-size:12.5px}
.ihead code{font-weight:600}
.tag{background:var(--panel);border:1px solid var(--line);border-radius:10px;padding:0 6px;font-size:11px}
.gold{font-size:12.5px}
details.prompt summary{cursor:pointer;font-size:12px;color:var(--muted)}
pre{white-space:pre-wrap;word-break:break-word;margin:2px 0;font:12px/1.35 ui-monospace,Menlo,Consolas,monospace}
.answers{display:grid;grid-template-columns:repeat(auto-fit,minmax(260px,1fr));gap:6px;margin-top:4px}
.ans{border-left:3px solid var(--line);padding:2px 8px;background:var(--panel);border-radius:0 4px 4px 0}
.ans.s-c{border-color:var(--ok)}.ans.s-w{border-color:var(--bad)}.ans.s-u{border-color:var(--warn)}
.ans.s-e{border-color:var(--err)}
.badge{font-size:11px;font-weight:700;text-transform:uppercase;letter-spacing:.03em}
.s-c .badge{color:var(--ok)}.s-w .badge{color:var(--bad)}.s-u .badge{color:var(--warn)}.s-e .badge{color:var(--err)}
.how,.read{font-size:12px;color:var(--muted)}.read b{color:var(--fg);font-weight:600}
button.more{font:inherit;margin:8px 0;padding:4px 12px;background:var(--panel);color:var(--fg);
border:1px solid var(--line);border-radius:4px;cursor:pointer}
dialog#lightbox{max-width:96vw;max-height:96vh;padding:8px;background:var(--bg);color:var(--fg);
border:1px solid var(--line)}
dialog#lightbox::backdrop{background:rgba(0,0,0,.7)}
dialog#lightbox img{max-width:90vw;max-height:82vh;display:block;margin:auto;background:#fff}
dialog#lightbox .lbbar{display:flex;gap:8px;align-items:center;justify-content:space-between;font-size:12.5px}
dialog#lightbox button{font:inherit;background:var(--panel);color:var(--fg);border:1px solid var(--line);
border-radius:4px;padding:2px 10px;cursor:pointer}
.sr{position:absolute;left:-9999px}
"""
