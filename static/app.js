// Small behaviours on top of server-rendered pages. Everything here is an enhancement: every page
// reads, runs and links without it.
(function () {
  "use strict";

  var dark = window.matchMedia ? window.matchMedia("(prefers-color-scheme: dark)") : null;
  var charts = [];
  var themes = null;

  // The page's chart themes (pages.ChartThemes: one palette per colour scheme, checked for
  // contrast against the stylesheet's panels), registered with echarts once.
  function theme() {
    if (!themes) {
      var src = document.getElementById("chart-themes");
      if (!src) return null;
      themes = JSON.parse(src.textContent);
      window.echarts.registerTheme(themes.name + "-light", themes.light);
      window.echarts.registerTheme(themes.name + "-dark", themes.dark);
    }
    return themes.name + (dark && dark.matches ? "-dark" : "-light");
  }

  // layoutOf says which of a chart's two layouts fits its box: the narrow one (horizontal bars,
  // broken names, a wrapping legend) below data-narrow-below pixels.
  function layoutOf(el) {
    var below = Number(el.getAttribute("data-narrow-below")) || 0;
    return el.getAttribute("data-chart-narrow") && el.clientWidth < below ? "narrow" : "wide";
  }

  // draw draws one chart in the layout its box asks for, with the height that layout was laid out
  // for, disposing whatever was drawn there before. The SVG renderer keeps every label as text in
  // the page, where a test (and a reader's own tools) can read and measure it.
  function draw(el) {
    var layout = layoutOf(el);
    var src = document.getElementById(el.getAttribute(layout === "narrow" ? "data-chart-narrow" : "data-chart"));
    if (!src) return null;
    var old = window.echarts.getInstanceByDom(el);
    if (old) old.dispose();
    var h = Number(el.getAttribute(layout === "narrow" ? "data-narrow-height" : "data-height"));
    if (h > 0) el.style.height = h + "px";
    var chart = window.echarts.init(el, theme(), { renderer: "svg" });
    chart.setOption(JSON.parse(src.textContent));
    el.setAttribute("data-chart-layout", layout);
    el.setAttribute("data-chart-ready", "true");
    return chart;
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
      var chart = draw(el);
      if (!chart) return;
      charts = charts.filter(function (c) { return c.el !== el; });
      charts.push({ el: el, chart: chart });
    });
  }

  function redrawAll() {
    charts.forEach(function (c) { c.chart.dispose(); });
    charts = [];
    initCharts(document);
  }

  // A resize that moves a chart's box across the narrow line draws it again in the other layout;
  // any other resize only fits the drawing to the box.
  var resizeTimer = null;
  window.addEventListener("resize", function () {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(function () {
      charts.forEach(function (c) {
        if (layoutOf(c.el) !== c.el.getAttribute("data-chart-layout")) c.chart = draw(c.el) || c.chart;
        else c.chart.resize();
      });
    }, 100);
  });
  if (dark && dark.addEventListener) dark.addEventListener("change", redrawAll);

  // A table of the prose that is wider than its column scrolls inside its own box (app.css);
  // keyboard focus lets a reader without a pointer scroll it too (code blocks are focusable from
  // the server). Whether it overflows depends on the width, so this runs again after a resize.
  function focusScrollers() {
    document.querySelectorAll(".prose table").forEach(function (el) {
      if (el.scrollWidth > el.clientWidth + 1) el.setAttribute("tabindex", "0");
      else el.removeAttribute("tabindex");
    });
  }
  document.addEventListener("DOMContentLoaded", focusScrollers);
  window.addEventListener("resize", function () { setTimeout(focusScrollers, 150); });

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

  // Remembers the measured values a result carries, so the home page can set a reader's
  // predictions beside the numbers of the runs they actually made.
  function rememberMeasures(root) {
    root.querySelectorAll("[data-measures]").forEach(function (el) {
      try {
        var m = JSON.parse(el.getAttribute("data-measures"));
        var url = el.getAttribute("data-permalink") || window.location.href;
        Object.keys(m).forEach(function (q) {
          localStorage.setItem("eo.measured." + q, JSON.stringify({ value: m[q], url: url }));
        });
      } catch (e) { /* storage may be off; predictions then show the document's values */ }
    });
  }

  function initPredictions(root) {
    var form = root.querySelector("[data-predictions]");
    if (!form || form.dataset.bound) return;
    form.dataset.bound = "1";
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
        var m = null;
        try { m = JSON.parse(localStorage.getItem("eo.measured." + q) || "null"); } catch (e) {}
        if (m) {
          li.querySelector(".measured").textContent = String(m.value);
          li.querySelector(".measured-where").textContent = "at your last run";
          li.querySelector(".reveal a").setAttribute("href", m.url);
        }
        // Put the reader's guess beside the measurement: the gap is the lesson.
        var guess = saved === null ? NaN : Number(String(saved).replace(/[,_\s]/g, ""));
        var measured = Number(li.querySelector(".measured").textContent);
        var verdict = li.querySelector(".verdict");
        if (!isNaN(guess) && !isNaN(measured)) {
          var gap = guess - measured;
          verdict.textContent = gap === 0 ? "You said " + guess + ": exactly right." :
            "You said " + guess + ": " + Math.abs(gap) + (gap > 0 ? " too high." : " too low.");
        } else {
          verdict.textContent = "";
        }
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
    rememberMeasures(root);
    initPredictions(root);
  }

  // On a phone the contents start folded so the page itself is the first thing on screen; the
  // server renders them open so that they are never hidden from a reader without script.
  function foldContents() {
    var fold = document.querySelector(".toc-fold");
    if (fold && window.matchMedia && window.matchMedia("(max-width: 860px)").matches) fold.open = false;
  }

  document.addEventListener("DOMContentLoaded", function () { foldContents(); init(document); });
  document.addEventListener("htmx:afterSettle", function (ev) {
    init(ev.detail.elt && ev.detail.elt.parentNode ? ev.detail.elt.parentNode : document);
    // After a swap, keep keyboard focus where the reader was: on the timeline control they used,
    // or on the run button of the experiment they reran.
    var tl = document.getElementById("timeline");
    if (ev.detail.elt && ev.detail.elt.id === "timeline" && tl) {
      var next = tl.querySelector('[data-tl="next"]') || tl.querySelector('[data-tl="prev"]');
      if (next) next.focus();
    }
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
