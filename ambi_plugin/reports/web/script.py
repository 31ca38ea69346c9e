"""The HTML report's item browser (inlined into the page): plain JavaScript, no library, no network.

It reads the items from the page's ``<script type="application/json" id="ambi-items">`` block and renders only
what is looked at: the items that pass the filters, :data:`PAGE` at a time, more as the list's end scrolls into
view (or on the "more" button). Every text from a run (prompt, response, what was read, gold) is put in with
``textContent``: markup in a response shows as text and creates no element.

Keys: ``/`` focuses the search box; in the image viewer, left / right step through the listed items and Escape
closes it. ``#items=<task>`` in the address opens that task's items (the overview's task links).
"""

PAGE = 40

JS = r"""
(() => {
"use strict";
const PAGE = %(page)d;
const node = document.getElementById("ambi-items");
const data = node ? JSON.parse(node.textContent) : {models: [], tasks: [], prompts: [], hows: []};
const $ = (id) => document.getElementById(id);
const NAMES = {c: "correct", w: "wrong", u: "unread", e: "item error"};
const full = (m) => "items/full/" + m[0];
const thumb = (m) => m[1] ? "items/thumb/" + m[0].split(".")[0] + ".jpg" : "";
function el(tag, cls, text) {
  const n = document.createElement(tag);
  if (cls) n.className = cls;
  if (text !== undefined && text !== null) n.textContent = String(text);
  return n;
}
const st = {task: 0, model: 0, status: "all", tag: "", q: "", dis: false, list: [], shown: 0};
const root = $("browser");
if (!root) return;
const list = $("item-list"), more = $("more"), count = $("count"), tnote = $("task-note");
const fTask = $("f-task"), fModel = $("f-model"), fStatus = $("f-status"), fTag = $("f-tag"), fQ = $("f-q");
const fDis = $("f-dis");
if (!data.tasks.length) {
  count.textContent = data.empty ||
    "No logged items: run lmms-eval with --log_samples (or ambi score --samples-out) to see them.";
  return;
}
data.tasks.forEach((t, i) => fTask.add(new Option(t.task + " (" + t.items.length + ")", String(i))));
data.models.forEach((m, i) => fModel.add(new Option(m, String(i))));
if (data.models.length < 2) { fModel.closest("label").hidden = true; fDis.closest("label").hidden = true; }

function haystack(it) {
  if (it._h === undefined) {
    const parts = [it.id, data.prompts[it.p] || "", it.g, it.t.join(" ")];
    it.r.forEach((r) => { if (r) parts.push(r.a, r.read, data.hows[r.h]); });
    it._h = parts.join("\n").toLowerCase();
  }
  return it._h;
}
function keep(it) {
  const r = it.r[st.model];
  if (st.status !== "all") {
    if (!r) return false;
    if (st.status === "nc" ? r.s === "c" : r.s !== st.status) return false;
  }
  if (st.tag && !it.t.includes(st.tag)) return false;
  if (st.dis) {
    const seen = new Set(it.r.filter((x) => x).map((x) => x.s === "c"));
    if (seen.size < 2) return false;
  }
  return !st.q || haystack(it).includes(st.q);
}
function fillTags() {
  const tags = new Set();
  data.tasks[st.task].items.forEach((it) => it.t.forEach((x) => tags.add(x)));
  fTag.length = 1;
  [...tags].sort().forEach((x) => fTag.add(new Option(x, x)));
  fTag.value = st.tag = "";
}
function apply() {
  const task = data.tasks[st.task];
  st.list = task.items.filter(keep);
  st.shown = 0;
  list.replaceChildren();
  tnote.textContent = task.note || "";
  let dis = 0;
  if (data.models.length > 1) {
    task.items.forEach((it) => { if (new Set(it.r.filter((x) => x).map((x) => x.s === "c")).size > 1) dis++; });
  }
  count.textContent = st.list.length + " of " + task.items.length + " items" +
    (data.models.length > 1 ? " (the models disagree on " + dis + ")" : "");
  renderMore();
}
function answerNode(r, i) {
  const box = el("div", "ans s-" + (r ? r.s : "x"));
  box.dataset.model = String(i);
  const head = el("div");
  head.append(el("span", "badge", r ? NAMES[r.s] : "not logged"), " ", el("b", "", data.models[i]));
  box.append(head);
  if (!r) return box;
  box.dataset.status = r.s;
  box.append(el("pre", "resp", r.a === "" ? "(empty response)" : r.a));
  if (r.read) { const d = el("div", "read", "read: "); d.append(el("b", "", r.read)); box.append(d); }
  box.append(el("div", "how", data.hows[r.h]));
  return box;
}
function itemNode(it, pos) {
  const li = el("li", "item");
  li.dataset.id = it.id;
  const media = el("div", "media");
  it.m.forEach((m, k) => {
    if (m[1]) {
      const b = el("button", "thumb");
      b.type = "button";
      b.title = "full size";
      b.dataset.pos = String(pos); b.dataset.k = String(k);
      const img = el("img");
      img.loading = "lazy"; img.decoding = "async"; img.src = thumb(m); img.alt = "image of item " + it.id;
      b.append(img);
      media.append(b);
    } else {
      const a = el("a", "noimg", "open file");
      a.href = full(m);
      media.append(a);
    }
  });
  if (!it.m.length) media.append(el("span", "noimg", "no image"));
  const body = el("div", "body");
  const head = el("div", "ihead");
  head.append(el("code", "", it.id));
  it.t.forEach((x) => head.append(el("span", "tag", x)));
  body.append(head);
  const gold = el("div", "gold", "gold: "); gold.append(el("b", "", it.g)); body.append(gold);
  const det = el("details", "prompt");
  det.append(el("summary", "", "prompt"), el("pre", "", data.prompts[it.p] || ""));
  body.append(det);
  const ans = el("div", "answers");
  it.r.forEach((r, i) => ans.append(answerNode(r, i)));
  body.append(ans);
  li.append(media, body);
  return li;
}
function renderMore() {
  const end = Math.min(st.list.length, st.shown + PAGE);
  const frag = document.createDocumentFragment();
  for (let i = st.shown; i < end; i++) frag.append(itemNode(st.list[i], i));
  list.append(frag);
  st.shown = end;
  more.hidden = st.shown >= st.list.length;
  more.textContent = "Show more (" + (st.list.length - st.shown) + " left)";
}
more.addEventListener("click", renderMore);
if ("IntersectionObserver" in window) {
  new IntersectionObserver((es) => { if (es.some((e) => e.isIntersecting) && !more.hidden) renderMore(); },
    {rootMargin: "400px"}).observe(more);
}
fTask.addEventListener("change", () => { st.task = +fTask.value; fillTags(); apply(); });
fModel.addEventListener("change", () => { st.model = +fModel.value; apply(); });
fStatus.addEventListener("change", () => { st.status = fStatus.value; apply(); });
fTag.addEventListener("change", () => { st.tag = fTag.value; apply(); });
fDis.addEventListener("change", () => { st.dis = fDis.checked; apply(); });
let timer = 0;
fQ.addEventListener("input", () => {
  clearTimeout(timer);
  timer = setTimeout(() => { st.q = fQ.value.trim().toLowerCase(); apply(); }, 120);
});
fQ.addEventListener("keydown", (e) => { if (e.key === "Escape") { fQ.value = ""; st.q = ""; apply(); } });
document.addEventListener("keydown", (e) => {
  const t = e.target;
  if (e.key === "/" && !(t instanceof HTMLInputElement || t instanceof HTMLSelectElement)) {
    e.preventDefault(); fQ.focus();
  }
});

const lb = $("lightbox"), lbImg = $("lb-img"), lbCap = $("lb-cap");
let lbPos = 0, lbK = 0;
function show(pos, k) {
  const it = st.list[pos];
  if (!it || !it.m[k]) return;
  lbPos = pos; lbK = k;
  lbImg.src = full(it.m[k]);
  lbImg.alt = "item " + it.id + ", full size";
  lbCap.textContent = it.id + "  (" + (pos + 1) + " of " + st.list.length + ")";
  if (!lb.open) lb.showModal();
}
list.addEventListener("click", (e) => {
  const b = e.target.closest("button.thumb");
  if (b) show(+b.dataset.pos, +b.dataset.k);
});
function step(d) {
  let p = lbPos + d;
  while (p >= 0 && p < st.list.length && !st.list[p].m.some((m) => m[1])) p += d;
  if (p < 0 || p >= st.list.length) return;
  while (p >= st.shown) renderMore();
  show(p, Math.max(0, st.list[p].m.findIndex((m) => m[1])));
}
lb.addEventListener("keydown", (e) => {
  if (e.key === "ArrowRight") { e.preventDefault(); step(1); }
  if (e.key === "ArrowLeft") { e.preventDefault(); step(-1); }
});
$("lb-prev").addEventListener("click", () => step(-1));
$("lb-next").addEventListener("click", () => step(1));
$("lb-close").addEventListener("click", () => lb.close());
lb.addEventListener("click", (e) => { if (e.target === lb) lb.close(); });

function route() {
  const h = decodeURIComponent(location.hash.slice(1));
  if (!h.startsWith("items=")) return false;
  const i = data.tasks.findIndex((t) => t.task === h.slice(6));
  if (i < 0) return false;
  if (i !== st.task || !list.children.length) {
    st.task = i; fTask.value = String(i); fillTags(); apply();
  }
  $("items").scrollIntoView();
  return true;
}
document.addEventListener("click", (e) => {
  const a = e.target.closest && e.target.closest('a[href^="#items="]');
  if (a && a.getAttribute("href") === location.hash) { e.preventDefault(); route(); }
});
window.addEventListener("hashchange", route);
fillTags();
if (!route()) apply();
root.dataset.ready = "1";
})();
""".replace("%(page)d", str(PAGE))
