// The index: every chain of the version from the embedded JSON, filtered and searched in the page, and
// drawn one page of rows at a time, so 10,000 chains cost one parse and PAGE_SIZE table rows.
// The filters live in the URL's hash (#site=shop&q=orders&page=2), so a filtered view can be linked.
(function () {
  "use strict";
  const data = JSON.parse(document.getElementById("view-data").textContent);
  const chains = data.chains;
  const size = data.page_size;
  const facets = Object.keys(data.facets);
  const $ = (id) => document.getElementById(id);
  let shown = chains;
  let page = 0;

  for (const name of facets) {
    const sel = $("f-" + name);
    for (const value of data.facets[name]) {
      const o = document.createElement("option");
      o.value = value;
      o.textContent = value;
      sel.appendChild(o);
    }
  }

  function wanted() {
    const want = {};
    for (const name of facets) want[name] = $("f-" + name).value;
    want.q = $("f-q").value.trim().toLowerCase();
    return want;
  }

  function haystack(c) {
    if (c._q === undefined) c._q = (c.request + " " + c.key).toLowerCase();
    return c._q;
  }

  function matches(c, w) {
    if (w.site && c.site !== w.site) return false;
    if (w.macro && !c.macros.includes(w.macro)) return false;
    if (w.family && !c.families.includes(w.family)) return false;
    if (w.parts && String(c.parts) !== w.parts) return false;
    if (w.status && c.status !== w.status) return false;
    if (w.split && (c.split || "none") !== w.split) return false;
    if (w.failure && ((data.failures || {})[c.key] || "none") !== w.failure) return false;
    if (w.q && !haystack(c).includes(w.q)) return false;
    return true;
  }

  function cell(tr, text, cls) {
    const td = document.createElement("td");
    if (cls) td.className = cls;
    td.textContent = text;
    tr.appendChild(td);
    return td;
  }

  function row(c) {
    const tr = document.createElement("tr");
    tr.dataset.key = c.key;
    tr.dataset.site = c.site;
    tr.dataset.status = c.status;
    const td = document.createElement("td");
    td.className = "key";
    const a = document.createElement("a");
    a.href = c.href;
    a.textContent = c.key;
    a.title = c.request;
    td.appendChild(a);
    tr.appendChild(td);
    cell(tr, c.site);
    cell(tr, String(c.parts), "num");
    cell(tr, c.macros.join(" → "), "macros");
    cell(tr, c.via.join(", "), "via");
    cell(tr, c.turns === null ? "—" : String(c.turns), "num");
    cell(tr, c.answer === null ? "" : c.answer, "answer");
    cell(tr, c.split || "—");
    const st = cell(tr, "", "status");
    const badge = document.createElement("span");
    badge.className = "badge " + c.status;
    badge.textContent = c.status;
    st.appendChild(badge);
    if (c.reason) {
      const r = document.createElement("span");
      r.className = "reason";
      r.textContent = c.reason;
      st.appendChild(r);
    }
    if (c.failed_part) {
      const p = document.createElement("span");
      p.className = "failed-part";
      p.textContent = "failing part: " + c.failed_part;
      st.appendChild(p);
    }
    return tr;
  }

  function counts() {
    const by = { kept: 0, dropped: 0, failed: 0 };
    for (const c of chains) by[c.status] = (by[c.status] || 0) + 1;
    $("count-total").textContent =
      chains.length + " chains: " + by.kept + " kept · " + by.dropped + " dropped · " + by.failed + " failed";
  }

  function render() {
    const pages = Math.max(1, Math.ceil(shown.length / size));
    page = Math.min(Math.max(0, page), pages - 1);
    const first = page * size;
    const slice = shown.slice(first, first + size);
    const body = document.createDocumentFragment();
    for (const c of slice) body.appendChild(row(c));
    $("rows").replaceChildren(body);
    $("count-shown").textContent = shown.length
      ? "showing " + (first + 1) + "–" + (first + slice.length) + " of " + shown.length + " matching"
      : "no chain matches";
    $("page-at").textContent = "page " + (page + 1) + " of " + pages;
    $("page-prev").disabled = page === 0;
    $("page-next").disabled = page >= pages - 1;
  }

  function writeHash() {
    const w = wanted();
    const params = new URLSearchParams();
    for (const name of [...facets, "q"]) if (w[name]) params.set(name, name === "q" ? $("f-q").value.trim() : w[name]);
    if (page) params.set("page", String(page + 1));
    const hash = params.toString();
    history.replaceState(null, "", hash ? "#" + hash : location.pathname + location.search);
  }

  function readHash() {
    const params = new URLSearchParams(location.hash.slice(1));
    for (const name of facets) {
      const v = params.get(name);
      if (v !== null && [...$("f-" + name).options].some((o) => o.value === v)) $("f-" + name).value = v;
    }
    $("f-q").value = params.get("q") || "";
    page = Math.max(0, (parseInt(params.get("page") || "1", 10) || 1) - 1);
  }

  function apply(keepPage) {
    const w = wanted();
    shown = chains.filter((c) => matches(c, w));
    if (!keepPage) page = 0;
    render();
    writeHash();
  }

  for (const name of facets) $("f-" + name).addEventListener("change", () => apply(false));
  $("f-q").addEventListener("input", () => apply(false));
  $("f-clear").addEventListener("click", () => {
    for (const name of facets) $("f-" + name).value = "";
    $("f-q").value = "";
    apply(false);
  });
  $("page-prev").addEventListener("click", () => { page -= 1; render(); writeHash(); });
  $("page-next").addEventListener("click", () => { page += 1; render(); writeHash(); });

  window.addEventListener("hashchange", () => { readHash(); apply(true); });  // a link or the back button

  counts();
  readHash();
  apply(true);
  document.body.dataset.ready = "1";
  window.viewReadyAt = performance.now();  // read by bench/view_bench.py
})();
