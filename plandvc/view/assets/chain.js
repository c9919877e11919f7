// A chain page: the step strip and one step at a time from the embedded JSON. ← / → move between steps
// (also #step-N in the URL), a click on the screenshot zooms it to full size, and the memory shows what
// changed since the previous step (added words marked, removed ones struck through).
(function () {
  "use strict";
  const data = JSON.parse(document.getElementById("view-data").textContent);
  const steps = data.steps;
  const $ = (id) => document.getElementById(id);
  const strip = $("strip");
  let at = -1;

  steps.forEach((s, t) => {
    const b = document.createElement("button");
    b.type = "button";
    b.className = "tab op-" + s.op;
    b.setAttribute("role", "tab");
    b.dataset.step = String(t);
    b.textContent = t + 1 + " " + (s.op === "done" ? "done" : s.delegated || s.op);
    b.title = s.action;
    const rec = data.recovery;
    if (rec && t === rec.failed) {
      b.classList.add("failed-attempt");  // the delegation was right; its specialist failed (rec.kind)
      b.textContent += " ✗";
      b.title += " — this delegation's specialist failed: " + rec.kind;
    } else if (rec && t === rec.redo) {
      b.classList.add("after-failure");
      b.textContent += " ↻";
      b.title += " — the planner re-delegates after the failure";
    }
    b.addEventListener("click", () => show(t));
    strip.appendChild(b);
  });

  function text(id, value) {
    $(id).textContent = value;
  }

  function memory(diff) {
    const box = $("memory");
    box.replaceChildren();
    for (const [op, piece] of diff) {
      const el = document.createElement(op === "+" ? "ins" : op === "-" ? "del" : "span");
      el.textContent = piece;
      box.appendChild(el);
    }
  }

  function show(t) {
    if (t < 0 || t >= steps.length || t === at) return;
    at = t;
    const s = steps[t];
    for (const b of strip.children) b.setAttribute("aria-selected", String(b.dataset.step === String(t)));
    const img = $("shot");
    if (s.image) {
      img.src = s.image;
      img.hidden = false;
    } else {
      img.removeAttribute("src");
      img.hidden = true;
    }
    const part = s.part === null ? "" : " · part " + (s.part + 1) + " of " + data.parts.length;
    text("shot-caption", "step " + (t + 1) + " of " + steps.length + " · " + (s.macro || s.op) + part +
      (s.image ? "" : " · no screenshot in the folder"));
    text("action", s.action);
    const target = $("target");
    target.replaceChildren(document.createTextNode(s.target[0]));
    const mark = document.createElement("mark");
    mark.className = s.op;
    mark.textContent = s.target[1];
    target.appendChild(mark);
    target.appendChild(document.createTextNode(s.target[2]));
    memory(s.memory_diff);
    text("report", s.report || (s.op === "done" ? "(the final answer: no report)" : "(no report: the chain ended here)"));
    text("browser_state", s.sections.browser_state);
    text("agent_history", s.sections.agent_history || "(empty: the first step)");
    text("step_info", s.sections.step_info);
    history.replaceState(null, "", "#step-" + (t + 1));
    document.body.dataset.step = String(t);
  }

  document.addEventListener("keydown", (e) => {
    if (e.altKey || e.ctrlKey || e.metaKey || (e.target && e.target.matches && e.target.matches("input, select, textarea"))) return;
    if (e.key === "ArrowRight") { show(at + 1); e.preventDefault(); }
    else if (e.key === "ArrowLeft") { show(at - 1); e.preventDefault(); }
    else if (e.key === "Escape") $("zoom").hidden = true;
  });

  $("shot").addEventListener("load", () => {
    if (window.viewShotAt === undefined) window.viewShotAt = performance.now();  // read by the bench
  });
  $("shot").addEventListener("click", () => {
    $("zoom-img").src = $("shot").src;
    $("zoom").hidden = false;
  });
  $("zoom").addEventListener("click", () => { $("zoom").hidden = true; });

  function fromHash() {
    const m = /^#step-(\d+)$/.exec(location.hash);
    show(m ? Math.min(steps.length, Math.max(1, parseInt(m[1], 10))) - 1 : 0);
  }
  window.addEventListener("hashchange", fromHash);
  fromHash();
  document.body.dataset.ready = "1";
  window.viewReadyAt = performance.now();  // read by bench/view_bench.py
})();
