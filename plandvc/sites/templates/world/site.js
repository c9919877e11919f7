(function () {
  "use strict";
  var $$ = function (sel, root) { return Array.prototype.slice.call((root || document).querySelectorAll(sel)); };
  // menus and the drawer: a toggle shows the element its aria-controls names
  $$("[data-menu-toggle]").forEach(function (b) {
    b.addEventListener("click", function () {
      var target = document.getElementById(b.getAttribute("aria-controls"));
      var open = target.hidden;
      $$("[data-menu-toggle]").forEach(function (o) { if (o !== b) { o.setAttribute("aria-expanded", "false"); document.getElementById(o.getAttribute("aria-controls")).hidden = true; } });
      target.hidden = !open;
      b.setAttribute("aria-expanded", open ? "true" : "false");
    });
  });
  $$("[data-menu-close]").forEach(function (b) { b.addEventListener("click", function () { document.getElementById("drawer").hidden = true; }); });
  // cookie and newsletter banners: closing one keeps it closed for the session's browser
  $$("[data-dismiss]").forEach(function (b) {
    b.addEventListener("click", function () {
      document.cookie = "plandvc_banner=closed; path=/; SameSite=Lax";
      document.documentElement.classList.add("banner-seen");
    });
  });
  // ARIA listbox dropdown: the button opens the list, an option sets the hidden input
  $$("[data-listbox-toggle]").forEach(function (b) {
    var list = document.getElementById(b.getAttribute("aria-controls"));
    b.addEventListener("click", function () { list.hidden = !list.hidden; b.setAttribute("aria-expanded", list.hidden ? "false" : "true"); });
    $$("[role=option]", list).forEach(function (li) {
      li.addEventListener("click", function () {
        b.form.querySelector("input[name='" + b.dataset.name + "']").value = li.dataset.value;
        b.textContent = li.textContent + " ▾";
        $$("[role=option]", list).forEach(function (o) { o.setAttribute("aria-selected", o === li ? "true" : "false"); });
        list.hidden = true;
        b.setAttribute("aria-expanded", "false");
      });
    });
  });
  // toggle chips: each keeps a hidden input enabled while pressed
  $$("button.chip").forEach(function (b) {
    b.addEventListener("click", function () {
      var on = b.getAttribute("aria-pressed") !== "true";
      b.setAttribute("aria-pressed", on ? "true" : "false");
      b.nextElementSibling.disabled = !on;
    });
  });
  // range slider: show the value while it moves
  $$("input[type=range][data-control-id]").forEach(function (r) {
    var out = document.querySelector("[data-value-of='" + r.dataset.controlId + "']");
    if (out) r.addEventListener("input", function () { out.textContent = "at most " + r.value; });
  });
  // calendar popup: a month grid drawn from the site's fixed today (no clock), days set the hidden inputs
  var today = document.body.dataset.today;
  var MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];
  var pad = function (n) { return (n < 10 ? "0" : "") + n; };
  $$("[data-calendar]").forEach(function (cal) {
    var form = cal.closest("form"), target = null, ym = null;
    var label = cal.querySelector("[data-month]"), grid = cal.querySelector(".cal-grid");
    function draw() {
      var y = ym[0], m = ym[1];
      label.dataset.month = y + "-" + pad(m + 1);
      label.textContent = MONTHS[m] + " " + y;
      grid.innerHTML = "";
      ["Mo", "Tu", "We", "Th", "Fr", "Sa", "Su"].forEach(function (d) { var s = document.createElement("span"); s.textContent = d; grid.appendChild(s); });
      var first = (new Date(Date.UTC(y, m, 1)).getUTCDay() + 6) % 7;
      var days = new Date(Date.UTC(y, m + 1, 0)).getUTCDate();
      for (var i = 0; i < first; i++) grid.appendChild(document.createElement("span"));
      var chosen = form.querySelector("input[name='" + target.dataset.name + "']").value;
      for (var d = 1; d <= days; d++) {
        var b = document.createElement("button");
        b.type = "button";
        b.textContent = String(d);
        b.dataset.date = y + "-" + pad(m + 1) + "-" + pad(d);
        b.setAttribute("aria-label", b.dataset.date);
        if (b.dataset.date === chosen) b.className = "chosen";
        grid.appendChild(b);
      }
    }
    $$("[data-cal-open]", form).forEach(function (open) {
      open.addEventListener("click", function () {
        target = open;
        var v = form.querySelector("input[name='" + open.dataset.name + "']").value || today;
        ym = [parseInt(v.slice(0, 4), 10), parseInt(v.slice(5, 7), 10) - 1];
        cal.hidden = false;
        draw();
      });
    });
    cal.querySelector("[data-cal-prev]").addEventListener("click", function () { ym = ym[1] === 0 ? [ym[0] - 1, 11] : [ym[0], ym[1] - 1]; draw(); });
    cal.querySelector("[data-cal-next]").addEventListener("click", function () { ym = ym[1] === 11 ? [ym[0] + 1, 0] : [ym[0], ym[1] + 1]; draw(); });
    cal.querySelector("[data-cal-prev-year]").addEventListener("click", function () { ym = [ym[0] - 1, ym[1]]; draw(); });
    cal.querySelector("[data-cal-next-year]").addEventListener("click", function () { ym = [ym[0] + 1, ym[1]]; draw(); });
    grid.addEventListener("click", function (e) {
      var b = e.target.closest("button[data-date]");
      if (!b) return;
      form.querySelector("input[name='" + target.dataset.name + "']").value = b.dataset.date;
      target.textContent = target.dataset.label + ": " + b.dataset.date;
      cal.hidden = true;
    });
  });
  // search as you type: suggestions from the page's own word list; a suggestion fills the box and searches,
  // marked as chosen from the list
  $$("input[data-suggest]").forEach(function (input) {
    var words = JSON.parse(document.getElementById(input.dataset.suggest).textContent);
    var list = document.getElementById(input.getAttribute("aria-controls"));
    input.addEventListener("input", function () {
      var q = input.value.trim().toLowerCase();
      list.innerHTML = "";
      if (q.length < 2) { list.hidden = true; input.setAttribute("aria-expanded", "false"); return; }
      var hits = words.filter(function (w) { return w.toLowerCase().indexOf(q) === 0; });
      hits = hits.concat(words.filter(function (w) { var i = w.toLowerCase().indexOf(q); return i > 0; })).slice(0, 6);
      hits.forEach(function (w) {
        var li = document.createElement("li");
        li.setAttribute("role", "option");
        li.setAttribute("onclick", "");
        li.dataset.controlId = input.dataset.controlId + "-suggestion";
        li.textContent = w;
        li.addEventListener("click", function () {
          input.value = w;
          list.hidden = true;
          var mark = document.createElement("input");  // the search says it came from a suggestion (sugg=1)
          mark.type = "hidden"; mark.name = "sugg"; mark.value = "1";
          input.form.appendChild(mark);
          input.form.submit();
        });
        list.appendChild(li);
      });
      list.hidden = hits.length === 0;
      input.setAttribute("aria-expanded", hits.length ? "true" : "false");
    });
  });
  // create/edit in a modal dialog, and multi-step wizards
  $$("[data-open-form]").forEach(function (b) {
    b.addEventListener("click", function () { document.getElementById(b.getAttribute("aria-controls")).showModal(); });
  });
  $$("[data-close-form]").forEach(function (b) { b.addEventListener("click", function () { b.closest("dialog").close(); }); });
  $$("form[data-wizard]").forEach(function (form) {
    var steps = $$("fieldset[data-step]", form), at = 0;
    var next = form.querySelector("[data-wizard-next]"), back = form.querySelector("[data-wizard-back]");
    var submit = form.querySelector("[type=submit]"), info = form.querySelector(".steps");
    function show() {
      steps.forEach(function (s, i) { s.hidden = i !== at; });
      back.hidden = at === 0;
      next.hidden = at === steps.length - 1;
      submit.hidden = at !== steps.length - 1;
      info.textContent = "Step " + (at + 1) + " of " + steps.length;
    }
    next.addEventListener("click", function () { at = Math.min(at + 1, steps.length - 1); show(); });
    back.addEventListener("click", function () { at = Math.max(at - 1, 0); show(); });
    show();
  });
})();
