(function () {
  "use strict";
  // v3 furniture: one filter form for the list's filters; fields left at "any" are not sent (a clean URL, as
  // when each filter had its own form); with data-autosubmit it applies on every change (no button)
  var $$ = function (sel, root) { return Array.prototype.slice.call((root || document).querySelectorAll(sel)); };
  $$("form.filter-form").forEach(function (form) {
    var clean = function () {
      $$("input[name], select[name]", form).forEach(function (f) {
        if (f.type === "range" ? (f.value === f.max && !f.hasAttribute("data-set")) : f.value === "") f.disabled = true;
      });
    };
    form.addEventListener("submit", clean);
    if (!form.hasAttribute("data-autosubmit")) return;
    var go = function () { clean(); form.submit(); };
    form.addEventListener("change", function (e) { if (!e.target.hasAttribute("data-bound")) go(); });
    $$("[role=option]", form).forEach(function (o) { o.addEventListener("click", go); });
    $$("button.chip", form).forEach(function (b) { b.addEventListener("click", go); });
    $$(".cal-grid", form).forEach(function (g) {
      g.addEventListener("click", function (e) { if (e.target.closest("button[data-date]")) go(); });
    });
  });
})();
