// Small behaviours on top of server-rendered pages. Everything here is an enhancement: every page
// reads, runs and links without it.
(function () {
  "use strict";

  var dark = window.matchMedia ? window.matchMedia("(prefers-color-scheme: dark)") : null;
  var charts = [];

  function theme() {
    return dark && dark.matches ? "dark" : null;
  }

  // Draws every chart under root from the JSON options the server put beside it; an instance already
  // drawn in that element is disposed first (an htmx swap replaces the element, a theme change
  // redraws it).
  function initCharts(root) {
    if (!window.echarts) return;
    charts = charts.filter(function (c) {
      if (!document.body.contains(c.el)) {
        c.chart.dispose();
        return false;
      }
      return true;
    });
    root.querySelectorAll("[data-chart]").forEach(function (el) {
      var src = document.getElementById(el.getAttribute("data-chart"));
      if (!src) return;
      var old = window.echarts.getInstanceByDom(el);
      if (old) old.dispose();
      var options = JSON.parse(src.textContent);
      var chart = window.echarts.init(el, theme(), { renderer: "canvas" });
      chart.setOption(options);
      el.setAttribute("data-chart-ready", "true");
      charts = charts.filter(function (c) { return c.el !== el; });
      charts.push({ el: el, chart: chart });
    });
  }

  function redrawAll() {
    charts.forEach(function (c) { c.chart.dispose(); });
    charts = [];
    initCharts(document);
  }

  var resizeTimer = null;
  window.addEventListener("resize", function () {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(function () {
      charts.forEach(function (c) { c.chart.resize(); });
    }, 100);
  });
  if (dark && dark.addEventListener) dark.addEventListener("change", redrawAll);

  // Copy-link buttons are hidden until script can make them work.
  function initCopy(root) {
    root.querySelectorAll("[data-copy]").forEach(function (b) {
      b.hidden = false;
      if (b.dataset.bound) return;
      b.dataset.bound = "1";
      b.addEventListener("click", function () {
        var url = new URL(b.getAttribute("data-copy"), window.location.href).href;
        var status = b.closest("form").querySelector(".status");
        var done = function () { if (status) status.textContent = "Link copied."; };
        if (navigator.clipboard && window.isSecureContext) {
          navigator.clipboard.writeText(url).then(done, function () { fallbackCopy(url); done(); });
        } else {
          fallbackCopy(url);
          done();
        }
      });
    });
  }

  function fallbackCopy(text) {
    var ta = document.createElement("textarea");
    ta.value = text;
    ta.setAttribute("readonly", "");
    ta.className = "offscreen";
    document.body.appendChild(ta);
    ta.select();
    try { document.execCommand("copy"); } catch (e) { /* the permalink is still on the page */ }
    document.body.removeChild(ta);
  }

  var numbers = window.Intl ? new Intl.NumberFormat("en-US", { maximumFractionDigits: 2 }) : null;

  // fmt writes a number as the pages do, with thousands separators.
  function fmt(n) {
    return numbers ? numbers.format(n) : String(n);
  }

  // verdictOf puts a guess beside the question's measurement and says how far off it is: exact,
  // close (within 10%) or far, with the distance in words. The gap is the lesson, so a far guess
  // is said plainly and never styled as a success.
  function verdictOf(raw, measured) {
    var guess = Number(String(raw).replace(/[,_\s]/g, ""));
    if (String(raw).trim() === "" || isNaN(guess)) {
      return { kind: "", text: "You wrote \u201c" + raw + "\u201d, which is not a number to compare." };
    }
    var said = "You said " + fmt(guess) + ": ";
    var gap = guess - measured;
    if (gap === 0) return { kind: "exact", text: said + "exactly right." };
    var off = fmt(Math.abs(gap)) + (gap > 0 ? " too high" : " too low");
    if (measured === 0) return { kind: "far", text: said + off + " (the measurement is 0)." };
    var share = Math.abs(gap) / Math.abs(measured);
    if (share <= 0.1) {
      return { kind: "close", text: said + off + ", within " + Math.max(1, Math.ceil(share * 100)) + "% of the measurement." };
    }
    var ratio = guess / measured;
    var how;
    if (ratio >= 2) how = fmt(ratio >= 10 ? Math.round(ratio) : Math.round(ratio * 10) / 10) + "x the measurement";
    else if (ratio > 1) how = Math.round((ratio - 1) * 100) + "% above the measurement";
    else if (ratio > 0) how = Math.round(ratio * 100) + "% of the measurement";
    else how = "the measurement is " + fmt(measured);
    return { kind: "far", text: said + off + " (" + how + ")." };
  }

  function initPredictions(root) {
    var form = root.querySelector("[data-predictions]");
    if (!form || form.dataset.bound) return;
    form.dataset.bound = "1";
    // Earlier versions kept the last run's numbers and compared every question with them; a run
    // at other parameters answers a different question, so those are dropped.
    try {
      Object.keys(localStorage).forEach(function (k) {
        if (k.indexOf("eo.measured.") === 0) localStorage.removeItem(k);
      });
    } catch (e) {}
    var items = form.querySelectorAll("[data-question]");
    function show() {
      items.forEach(function (li) {
        var q = li.getAttribute("data-question");
        var input = li.querySelector("input");
        var saved = null;
        try { saved = localStorage.getItem("eo.predict." + q); } catch (e) {}
        if (saved !== null && input.value === "") input.value = saved;
        var reveal = li.querySelector(".reveal");
        reveal.hidden = saved === null;
        var verdict = li.querySelector(".verdict");
        var measured = Number(li.getAttribute("data-measured"));
        var v = saved === null || li.getAttribute("data-measured") === "" || isNaN(measured) ? { kind: "", text: "" } : verdictOf(saved, measured);
        verdict.textContent = v.text;
        ["exact", "close", "far"].forEach(function (k) { reveal.classList.toggle(k, v.kind === k); });
      });
    }
    form.addEventListener("submit", function (ev) {
      ev.preventDefault();
      var n = 0;
      items.forEach(function (li) {
        var q = li.getAttribute("data-question");
        var v = li.querySelector("input").value.trim();
        try {
          if (v === "") localStorage.removeItem("eo.predict." + q);
          else { localStorage.setItem("eo.predict." + q, v); n++; }
        } catch (e) {}
      });
      form.querySelector(".status").textContent = n + " prediction" + (n === 1 ? "" : "s") + " saved in this browser.";
      show();
    });
    form.querySelector("[data-clear-predictions]").addEventListener("click", function () {
      items.forEach(function (li) {
        var q = li.getAttribute("data-question");
        try { localStorage.removeItem("eo.predict." + q); } catch (e) {}
        li.querySelector("input").value = "";
      });
      form.querySelector(".status").textContent = "Predictions cleared.";
      show();
    });
    show();
  }

  // Arrow keys step through the crash-window timeline when focus is inside it.
  document.addEventListener("keydown", function (ev) {
    var tl = ev.target.closest && ev.target.closest("#timeline");
    if (!tl || ev.altKey || ev.ctrlKey || ev.metaKey) return;
    var which = ev.key === "ArrowRight" || ev.key === "ArrowDown" ? "next" : ev.key === "ArrowLeft" || ev.key === "ArrowUp" ? "prev" : null;
    if (!which) return;
    var link = tl.querySelector('[data-tl="' + which + '"]');
    if (link) {
      ev.preventDefault();
      link.click();
    }
  });

  function init(root) {
    initCharts(root);
    initCopy(root);
    initPredictions(root);
  }

  // On a phone the contents start folded so the page itself is the first thing on screen; the
  // server renders them open so that they are never hidden from a reader without script.
  function foldContents() {
    var fold = document.querySelector(".toc-fold");
    if (fold && window.matchMedia && window.matchMedia("(max-width: 860px)").matches) fold.open = false;
  }

  // The crash-window timeline steps in place: each step replaces the history entry instead of
  // adding one, so Back leaves the page rather than walking back through every step. A step is
  // still a plain link without script, or when opened in a new tab.
  document.addEventListener("click", function (ev) {
    var a = ev.target.closest && ev.target.closest("#timeline a[href]");
    if (!a || !window.htmx || ev.button !== 0 || ev.ctrlKey || ev.metaKey || ev.shiftKey || ev.altKey) return;
    ev.preventDefault();
    var href = a.getAttribute("href");
    var which = a.getAttribute("data-tl") || "step";
    window.htmx.ajax("GET", href, { source: a, target: "#timeline", swap: "outerHTML show:none", replace: href }).then(function () {
      var tl = document.getElementById("timeline");
      if (!tl) return;
      var to = which === "step" ? tl.querySelector(".tl-step.active") : tl.querySelector('[data-tl="' + which + '"]');
      to = to || tl.querySelector('[data-tl="next"]') || tl.querySelector('[data-tl="prev"]');
      if (to) to.focus({ preventScroll: true });
    }, function () { window.location.href = href; });
  });

  document.addEventListener("DOMContentLoaded", function () { foldContents(); init(document); });
  document.addEventListener("htmx:afterSettle", function (ev) {
    init(ev.detail.elt && ev.detail.elt.parentNode ? ev.detail.elt.parentNode : document);
  });
  // A rerun of one form sends every other form's current values along (each block keeps them in
  // data-query, fresh after every swap), so the pushed URL holds the whole page as it is on screen.
  // The hidden copies in the form are for a reader without script, whose page reloads whole.
  document.addEventListener("htmx:configRequest", function (ev) {
    var form = ev.detail.elt;
    var fd = ev.detail.formData;
    if (!form || form.tagName !== "FORM" || !fd) return;
    form.querySelectorAll('input[type="hidden"]').forEach(function (h) { fd.delete(h.name); });
    var mine = form.closest("section.experiment");
    document.querySelectorAll("section.experiment[data-query]").forEach(function (sec) {
      if (sec === mine) return;
      new URLSearchParams(sec.getAttribute("data-query")).forEach(function (v, k) {
        if (!form.querySelector('[name="' + k.replace(/"/g, "") + '"]:not([type="hidden"])')) fd.set(k, v);
      });
    });
  });
  document.addEventListener("htmx:beforeRequest", function (ev) {
    var form = ev.detail.elt.closest && ev.detail.elt.closest("form");
    var s = form && form.querySelector(".status");
    if (s) s.textContent = "Running…";
  });
  document.addEventListener("htmx:responseError", function (ev) {
    var form = ev.detail.elt.closest && ev.detail.elt.closest("form");
    var s = form && form.querySelector(".status");
    if (s) s.textContent = "The server answered " + ev.detail.xhr.status + "; reload the page to try again.";
  });
})();
