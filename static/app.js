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
    spreadBand(chart);
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
      // A result hidden until the reader guesses has no size to draw in: it is drawn on reveal.
      if (el.closest(".predict-pending")) return;
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
        var done = function () { say(b.closest("form"), "Link copied."); };
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

  // grouped reports whether the separators in s group thousands, as the forms and the rooms read
  // them (experiments.Ungroup): "1,200" does, "0,5" and "1,20" are decimal commas and do not.
  function grouped(s) {
    var marks = /[,_\u2009\u202f\u00a0]/;
    s = s.replace(/ /g, "\u00a0").replace(/^[+-]/, "");
    if (!marks.test(s)) return true;
    var cut = s.search(/[.eE]/);
    var whole = cut < 0 ? s : s.slice(0, cut);
    if (cut >= 0 && marks.test(s.slice(cut))) return false;
    var m = marks.exec(whole);
    if (!m) return false;
    return whole.split(m[0]).every(function (g, i) {
      return /^\d+$/.test(g) && (i === 0 ? g.length <= 3 && g.charAt(0) !== "0" : g.length === 3);
    });
  }

  // guessOf reads a prediction as a number the way the forms read one (thousands separators
  // allowed, a decimal comma not: "1,5" is no 15), or returns null for anything that is not a
  // count a question can be answered with.
  function guessOf(raw) {
    if (!grouped(String(raw).trim())) return null;
    var s = String(raw).trim().replace(/[,_\s\u2009\u202f\u00a0]/g, "");
    if (!/^[+]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(s)) return null;
    var n = Number(s);
    return isFinite(n) ? n : null;
  }

  // verdictOf puts a guess beside the question's measurement and says how far off it is: exact,
  // close (within 10%) or far, with the distance in words. The gap is the lesson, so a far guess
  // is said plainly and never styled as a success.
  function verdictOf(raw, measured) {
    var guess = guessOf(raw);
    if (guess === null) return { kind: "", text: "" };
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
    // show reveals the measurement beside every saved guess; a question whose answer was just
    // refused (in keep) keeps what the reader typed and reveals nothing new.
    function show(keep) {
      items.forEach(function (li) {
        var q = li.getAttribute("data-question");
        var input = li.querySelector("input");
        var saved = null;
        try { saved = localStorage.getItem("eo.predict." + q); } catch (e) {}
        if (saved !== null && guessOf(saved) === null) saved = null; // an older version stored anything
        if (keep && keep.indexOf(li) >= 0) saved = null;
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
    // mark shows, next to a prediction's field, why it cannot be saved, or clears that.
    function mark(li, msg) {
      var input = li.querySelector("input");
      var err = li.querySelector("[data-prediction-error]");
      if (msg) input.setAttribute("aria-invalid", "true");
      else input.removeAttribute("aria-invalid");
      if (err) { err.textContent = msg; err.hidden = !msg; }
    }
    form.addEventListener("submit", function (ev) {
      ev.preventDefault();
      var n = 0, bad = [];
      items.forEach(function (li, i) {
        var q = li.getAttribute("data-question");
        var v = li.querySelector("input").value.trim();
        // A value that is not a count is refused where it was typed and stays there; it is not
        // saved, and a guess saved for it before is kept, so its measurement is not revealed.
        if (v !== "" && guessOf(v) === null) {
          mark(li, "Prediction " + (i + 1) + ": " + readGuess(v).error);
          bad.push(li);
          return;
        }
        mark(li, "");
        try {
          if (v === "") localStorage.removeItem("eo.predict." + q);
          else { localStorage.setItem("eo.predict." + q, v); n++; }
        } catch (e) {}
      });
      var said = n + " prediction" + (n === 1 ? "" : "s") + " saved in this browser.";
      if (bad.length) said += " " + bad.length + (bad.length === 1 ? " answer was" : " answers were") + " not saved; the message beside " + (bad.length === 1 ? "it says" : "each says") + " why.";
      form.querySelector(".status").textContent = said;
      show(bad);
      if (bad.length) bad[0].querySelector("input").focus();
    });
    form.querySelector("[data-clear-predictions]").addEventListener("click", function () {
      items.forEach(function (li) {
        var q = li.getAttribute("data-question");
        try { localStorage.removeItem("eo.predict." + q); } catch (e) {}
        li.querySelector("input").value = "";
        mark(li, "");
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
    initGuesses(root);
    // The workbench's editor (lib/editor.min.js, on the pages that load it) takes over new
    // textareas and reads a swapped-in errors list again.
    if (window.eoEditor) window.eoEditor.mount(root);
  }

  // On a phone the contents start folded so the page itself is the first thing on screen; the
  // server renders them open so that they are never hidden from a reader without script.
  function foldContents() {
    var fold = document.querySelector(".toc-fold");
    if (fold && window.matchMedia && window.matchMedia("(max-width: 860px)").matches) fold.open = false;
    foldLab(document);
  }
  // So does the room bar's lab run (pages/room_session.templ's labPart): its summary line says how
  // far the run is, and the box opens on demand.
  function foldLab(root) {
    if (!window.matchMedia || !window.matchMedia("(max-width: 860px)").matches) return;
    root.querySelectorAll("details.roombar-lab[open]").forEach(function (d) { d.open = false; });
  }

  // One live region for the whole page, never swapped: a region that arrives with the swapped-in
  // block is often not yet known to a screen reader when its text changes, so "Running…" would be
  // heard and then nothing. Each form's .status shows the same words to the eye.
  var announcer = null;

  function makeAnnouncer() {
    // The server draws the region in every page (pages.Layout); a history restore swaps the whole
    // body, and the region with it, so it is looked up again then. Only a page without one (an
    // error page) gets one made here.
    if (announcer && document.body.contains(announcer)) return;
    announcer = document.querySelector("[data-announcer]");
    if (announcer) return;
    announcer = document.createElement("div");
    announcer.className = "offscreen";
    announcer.setAttribute("role", "status");
    announcer.setAttribute("aria-live", "polite");
    announcer.setAttribute("data-announcer", "");
    document.body.appendChild(announcer);
  }

  // say shows text in the status of form (or of the form in a block) and announces it, unless
  // quiet: an alert that says the same is announced on its own.
  function say(where, text, quiet) {
    var form = where && (where.tagName === "FORM" ? where : where.querySelector("form.params"));
    var s = form && form.querySelector(".status");
    if (s) s.textContent = text;
    makeAnnouncer();
    announcer.textContent = quiet ? "" : text;
  }

  function textOf(el) {
    return el ? el.textContent.replace(/\s+/g, " ").trim() : "";
  }

  // firstSentence cuts a reading down to what is worth hearing after every run.
  function firstSentence(text) {
    var m = /^(.+?[.!?])(\s|$)/.exec(text);
    return m ? m[1] : text;
  }

  // blockOf is the experiment block whose form sent a request, or null for any other request.
  function blockOf(elt) {
    var form = elt && elt.closest && elt.closest("form.params");
    return form && form.closest("section.experiment");
  }

  // Runs under way, by block id: where focus was when Run was pressed, so that it can be put back
  // on the same control in the block that replaces it (htmx restores it only for an element with
  // an id, and Run has none).
  var pending = {};

  function setBusy(sec, busy) {
    var run = sec.querySelector("button.run");
    if (busy) {
      sec.setAttribute("aria-busy", "true");
      // aria-disabled rather than disabled: a disabled button loses focus, and focus should stay
      // where the reader pressed Run. A second press is refused by the submit guard below.
      if (run) run.setAttribute("aria-disabled", "true");
    } else {
      sec.removeAttribute("aria-busy");
      if (run) run.removeAttribute("aria-disabled");
    }
  }

  // restoreFocus puts focus back in the block a run replaced, if it was there and got lost.
  function restoreFocus(sec, p, prefer) {
    if (!p || p.focusId === null) return;
    var a = document.activeElement;
    if (a && a !== document.body && document.body.contains(a) && !prefer) return;
    var el = prefer || (p.focusId && document.getElementById(p.focusId)) || sec.querySelector("button.run");
    if (el) el.focus({ preventScroll: true });
  }

  // retryAfter reads Retry-After (seconds, or an HTTP date) as whole seconds from now.
  function retryAfter(xhr) {
    var h = (xhr && xhr.getResponseHeader("Retry-After")) || "";
    if (!h) return 0;
    var n = /^\s*\d+\s*$/.test(h) ? parseInt(h, 10) : Math.ceil((Date.parse(h) - Date.now()) / 1000);
    return isNaN(n) ? 0 : Math.max(1, n);
  }

  // keepStale handles a run the server refused (wrong values, load, rate limit, failure): the
  // reader's form comes back with its messages, but the last good result stays, marked as not
  // updated for the eye and for a screen reader, and nothing is pushed into history. The block's
  // data-query keeps its last good values, so another form's rerun never carries a refused value.
  function keepStale(sec, xhr, reason) {
    var fresh = null;
    var doc = null;
    if (xhr && xhr.responseText) {
      doc = new DOMParser().parseFromString(xhr.responseText, "text/html");
      fresh = doc.getElementById(sec.id);
    }
    var oldForm = sec.querySelector("form.params");
    var newForm = fresh && fresh.querySelector("form.params");
    if (oldForm && newForm) {
      newForm = document.importNode(newForm, true);
      oldForm.replaceWith(newForm);
      if (window.htmx) window.htmx.process(newForm);
      initCopy(newForm);
    }
    var result = sec.querySelector(".result");
    if (!result) return;
    var old = result.querySelector(".stale-note");
    if (old) old.remove();
    var problem = fresh && fresh.querySelector(".result .problem");
    if (problem) {
      problem = document.importNode(problem, true);
    } else {
      problem = document.createElement("div");
      problem.className = "problem";
      var p = document.createElement("p");
      var strong = document.createElement("strong");
      strong.textContent = "Not run.";
      p.appendChild(strong);
      // An error page rather than a block: its message is the page's first paragraph.
      var msg = (doc && textOf(doc.querySelector("main p"))) || reason;
      p.appendChild(document.createTextNode(" " + msg.charAt(0).toUpperCase() + msg.slice(1)));
      problem.appendChild(p);
    }
    problem.setAttribute("role", "alert");
    var wait = retryAfter(xhr);
    if (wait) {
      var again = document.createElement("p");
      again.className = "retry";
      again.textContent = "Try again in " + wait + " s.";
      problem.appendChild(again);
    }
    var hasResult = !!result.querySelector(".reading, table.data, [data-chart]");
    if (!hasResult) {
      // Nothing good to keep (the block was already refused): show the new refusal alone.
      result.replaceChildren(problem);
      result.classList.remove("stale");
      return;
    }
    var kept = document.createElement("p");
    kept.className = "kept";
    kept.textContent = "Not updated: the result below is from your last run that went through.";
    problem.appendChild(kept);
    var note = document.createElement("div");
    note.className = "stale-note";
    note.id = sec.id + "-stale";
    note.appendChild(problem);
    result.insertBefore(note, result.firstChild);
    result.classList.add("stale");
    // Each heading and table of the kept result says so too, for a reader who jumps to them.
    result.querySelectorAll(".reading h3, .reading h4, .chart-title, .table-caption").forEach(function (h) {
      if (h.querySelector(".stale-tag")) return;
      var tag = document.createElement("span");
      tag.className = "stale-tag";
      tag.textContent = " (not updated)";
      h.appendChild(tag);
    });
    result.querySelectorAll(".table-wrap[aria-label]").forEach(function (w) {
      var l = w.getAttribute("aria-label");
      if (l.indexOf("Not updated: ") !== 0) w.setAttribute("aria-label", "Not updated: " + l);
    });
  }

  // finishRefused ends a refused run: Run is free again and focus goes to the first refused field,
  // or back to Run; the alert in the result is what a screen reader hears.
  function finishRefused(sec, xhr) {
    var p = pending[sec.id];
    delete pending[sec.id];
    setBusy(sec, false);
    var invalid = sec.querySelector('form.params [aria-invalid="true"]');
    var wait = retryAfter(xhr);
    say(sec, invalid ? "Not run: fix the value marked above." : "Not run." + (wait ? " Try again in " + wait + " s." : ""), true);
    restoreFocus(sec, p, invalid);
  }

  // A second Run while one is under way is dropped here, before htmx would queue it.
  document.addEventListener("submit", function (ev) {
    var sec = ev.target.closest && ev.target.closest("section.experiment");
    if (sec && sec.getAttribute("aria-busy") === "true") {
      ev.preventDefault();
      ev.stopPropagation();
    }
  }, true);

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

  document.addEventListener("DOMContentLoaded", function () { foldContents(); makeAnnouncer(); init(document); });
  document.addEventListener("htmx:afterSettle", function (ev) {
    init(ev.detail.elt && ev.detail.elt.parentNode ? ev.detail.elt.parentNode : document);
    // A block that came back from its rerun: say so, with the first sentence of its reading, and
    // put focus back where the reader pressed Run.
    var sec = ev.detail.elt;
    if (!sec || !sec.id || !pending[sec.id] || !sec.matches("section.experiment")) return;
    var p = pending[sec.id];
    delete pending[sec.id];
    // A result hidden until the reader guesses is not read out either.
    var hidden = sec.classList.contains("predict-pending");
    var reading = hidden ? null : sec.querySelector(".reading p");
    say(sec, reading ? "Result updated: " + firstSentence(textOf(reading)) : hidden ? "Result updated; it stays hidden until you guess." : "Result updated.");
    restoreFocus(sec, p);
  });
  // A rerun of one form sends every other form's current values along (each block keeps them in
  // data-query, fresh after every swap), so the pushed URL holds the whole page as it is on screen.
  // The hidden copies in the form are for a reader without script, whose page reloads whole.
  document.addEventListener("htmx:configRequest", function (ev) {
    var form = ev.detail.elt;
    var fd = ev.detail.formData;
    if (!form || form.tagName !== "FORM" || !fd) return;
    var mine = form.closest("section.experiment");
    if (!mine) return;
    form.querySelectorAll('input[type="hidden"]').forEach(function (h) { fd.delete(h.name); });
    document.querySelectorAll("section.experiment[data-query]").forEach(function (sec) {
      if (sec === mine) return;
      new URLSearchParams(sec.getAttribute("data-query")).forEach(function (v, k) {
        if (!form.querySelector('[name="' + k.replace(/"/g, "") + '"]:not([type="hidden"])')) fd.set(k, v);
      });
    });
  });
  document.addEventListener("htmx:beforeRequest", function (ev) {
    var sec = blockOf(ev.detail.elt);
    if (!sec) return;
    var a = document.activeElement;
    pending[sec.id] = { focusId: a && sec.contains(a) ? a.id || "" : null };
    setBusy(sec, true);
    say(sec, "Running…");
  });
  // Any refusal of a rerun (422 wrong values, 429 rate limit, 503 load, or a failure) keeps the
  // page as it was; the response handling in the htmx-config meta lets these through to here.
  document.addEventListener("htmx:beforeSwap", function (ev) {
    var sec = blockOf(ev.detail.requestConfig && ev.detail.requestConfig.elt);
    var xhr = ev.detail.xhr;
    if (!sec || !xhr || xhr.status < 400) return;
    ev.detail.shouldSwap = false;
    ev.detail.isError = false;
    keepStale(sec, xhr, "The server answered " + xhr.status + ".");
    finishRefused(sec, xhr);
  });
  // The workbench's Run on the real lab: a busy lab (409) or one turned off (403) answers the
  // control with its notice, which belongs in the page like any other answer.
  document.addEventListener("htmx:beforeSwap", function (ev) {
    var t = ev.detail.target, xhr = ev.detail.xhr;
    if (t && t.id === "wb-lab" && xhr && (xhr.status === 409 || xhr.status === 403)) {
      ev.detail.shouldSwap = true;
      ev.detail.isError = false;
    }
  });
  document.addEventListener("htmx:sendError", function (ev) {
    var sec = blockOf(ev.detail.elt);
    if (!sec) return;
    keepStale(sec, null, "The server could not be reached; check the connection and run again.");
    finishRefused(sec, null);
  });
  // A block that is still the one that sent the request was not swapped (htmx found nothing to
  // swap in): it must not stay busy.
  document.addEventListener("htmx:afterRequest", function (ev) {
    var sec = blockOf(ev.detail.elt);
    if (sec && document.body.contains(sec) && sec.getAttribute("aria-busy") === "true" && ev.detail.successful) {
      setBusy(sec, false);
    }
  });
  document.addEventListener("htmx:responseError", function (ev) {
    // A timeline step the server would not give as a fragment: follow the link instead.
    var step = ev.detail.elt.closest && ev.detail.elt.closest("#timeline a[href]");
    if (step) {
      window.location.href = step.getAttribute("href");
      return;
    }
    if (workbenchRefused(ev.detail, "the server answered " + ev.detail.xhr.status)) return;
    var form = ev.detail.elt.closest && ev.detail.elt.closest("form");
    var s = form && (form.querySelector(".status") || form.querySelector("[data-error]"));
    if (s) s.textContent = "The server answered " + ev.detail.xhr.status + "; reload the page to try again.";
  });
  document.addEventListener("htmx:sendError", function (ev) {
    workbenchRefused(ev.detail, "the server could not be reached");
  });

  // === Which jobs? panel (jobs-panel): focus after a list or a timeline is swapped in ===
  // The panel is not a live region (a screen reader would read every id), so focus says what
  // arrived: the new heading (tabindex="-1" from the server), or, coming back from a timeline, the
  // id link of the job just viewed, so a keyboard reader picks up where they left the list.
  var jobsBack = {};
  document.addEventListener("htmx:beforeRequest", function (ev) {
    var target = ev.detail.target, elt = ev.detail.elt;
    if (!target || !target.classList || !target.classList.contains("jobs-panel")) return;
    var job = elt && elt.getAttribute && elt.getAttribute("data-back-job");
    if (job) jobsBack[target.id] = job;
    else delete jobsBack[target.id];
  });
  document.addEventListener("htmx:afterSettle", function (ev) {
    var panel = ev.detail.target;
    if (!panel || !panel.classList || !panel.classList.contains("jobs-panel")) return;
    var job = jobsBack[panel.id], to = null;
    delete jobsBack[panel.id];
    if (job) {
      to = [].find.call(panel.querySelectorAll(".job-ids a"), function (a) { return a.textContent === job; }) || null;
    }
    to = to || panel.querySelector("h2[tabindex], h3[tabindex], h4[tabindex]");
    // The swap's show:top already put the panel in view; focus must not scroll it again.
    if (to) to.focus({ preventScroll: !job });
  });
  // === end of Which jobs? panel ===

  // === Edit and check in place (pages/layout.templ's editAndCheck, pages/workbench.templ) ===
  // A link under a block's design loads the workbench's form and result into the box below it
  // (without script it opens the workbench's page). Focus goes into the editor, whose script the
  // box names and is loaded the first time; Close, Escape outside the editor, or Escape twice in
  // it, empties the box and puts focus back on the link that opened it.
  var inPlaceOpener = null;
  function inPlaceLinks() { return document.querySelectorAll('a[aria-controls="wb-in-place"]'); }
  function focusEditor(box) {
    var area = box.querySelector("#wb-source");
    if (!area) return;
    if (window.eoEditor) {
      window.eoEditor.mount(box);
      if (!window.eoEditor.focus || !window.eoEditor.focus(area.id)) area.focus();
      return;
    }
    var host = box.querySelector("[data-editor-script]");
    var src = host && host.getAttribute("data-editor-script");
    if (!src) { area.focus(); return; }
    var script = document.createElement("script");
    script.src = src;
    script.onload = function () { if (box.contains(area)) focusEditor(box); };
    script.onerror = function () { area.focus(); };
    document.head.appendChild(script);
  }
  function closeInPlace() {
    var box = document.getElementById("wb-in-place");
    if (!box || !box.firstElementChild) return;
    box.innerHTML = "";
    if (window.eoEditor) window.eoEditor.mount(document);
    inPlaceLinks().forEach(function (a) { a.setAttribute("aria-expanded", "false"); });
    if (inPlaceOpener && document.body.contains(inPlaceOpener)) inPlaceOpener.focus();
  }
  document.addEventListener("htmx:beforeRequest", function (ev) {
    var elt = ev.detail.elt;
    if (elt && elt.getAttribute && elt.getAttribute("aria-controls") === "wb-in-place") inPlaceOpener = elt;
  });
  document.addEventListener("htmx:afterSettle", function (ev) {
    var box = ev.detail.target;
    if (!box || box.id !== "wb-in-place") return;
    inPlaceLinks().forEach(function (a) { a.setAttribute("aria-expanded", a === inPlaceOpener ? "true" : "false"); });
    focusEditor(box);
  });
  document.addEventListener("click", function (ev) {
    if (ev.target.closest && ev.target.closest("#wb-in-place [data-wb-close]")) closeInPlace();
  });
  var escapedInEditor = false;
  document.addEventListener("keydown", function (ev) {
    var inBox = ev.target.closest && ev.target.closest("#wb-in-place");
    if (!inBox) return;
    var inEditor = !!ev.target.closest(".editor");
    if (ev.key !== "Escape") { escapedInEditor = false; return; }
    // In the editor a first Escape is the editor's own (it lets the next Tab leave); a second
    // one in a row closes the box.
    if (inEditor && !escapedInEditor) { escapedInEditor = true; return; }
    escapedInEditor = false;
    ev.preventDefault();
    closeInPlace();
  });
  // === end of Edit and check in place ===

  // === The workbench's answers (pages/workbench.templ) ===
  // A refused check comes back as the result panel with the reason (422, 429, 503), which takes
  // the old result's place. An answer the page cannot show (a failure, a proxy's error page) or
  // none at all leaves the old result on screen: it is marked as not the editor's, so that nobody
  // takes it for the answer to what they just sent, and since the editor keeps the handler, the
  // status says to press again rather than to reload. workbenchRefused reports whether the
  // request was the workbench's.
  function workbenchRefused(detail, why) {
    var elt = detail.elt;
    var form = elt && elt.closest && (elt.closest("#wb-form") || (elt.getAttribute("form") === "wb-form" && document.getElementById("wb-form")));
    if (!form) return false;
    var target = detail.target && detail.target.id;
    var share = target === "wb-share-status", lab = target === "wb-lab";
    var s = form.querySelector(".status");
    var button = elt.matches && elt.matches("#wb-check, #wb-share, #wb-lab-run, #wb-submit-round") ? elt.textContent.trim() : "Check";
    if (s) s.textContent = "Not done: " + why + ". Press " + button + " again.";
    var result = document.getElementById("wb-result");
    if (share || lab || !result) return true;
    var note = result.querySelector(".wb-stale");
    if (note) note.remove();
    note = document.createElement("p");
    note.className = "problem wb-stale";
    note.setAttribute("role", "alert");
    note.textContent = "Not current: " + why + ", so this result is of an earlier check, perhaps of another handler than the editor's.";
    result.setAttribute("data-stale", "");
    var head = result.querySelector("h3");
    result.insertBefore(note, head ? head.nextSibling : result.firstChild);
    return true;
  }

  // Once an answer arrives that the page shows (a result, or a refusal in its place), what the
  // last unanswered press left in the status no longer holds; nor, once Check answers for the
  // editor as it is now, does a refused Share's reason, which was about the handler as it was.
  document.addEventListener("htmx:afterRequest", function (ev) {
    var xhr = ev.detail.xhr, target = ev.detail.target;
    var form = document.getElementById("wb-form");
    if (!form || !xhr || !ev.detail.successful || !target || !target.id || target.id.indexOf("wb-") !== 0) return;
    var s = form.querySelector(".status");
    if (s && s.textContent.indexOf("Not done: ") === 0) s.textContent = "";
    var share = document.getElementById("wb-share-status");
    if (target.id === "wb-result" && share && share.classList.contains("problem")) {
      share.className = "wb-share-status";
      share.setAttribute("role", "status");
      share.textContent = "";
    }
  });

  // After Share the share's page opens at the status that gives its link (its URL's fragment,
  // which scrolls there without script too); focus goes there, so a screen reader reads the link
  // out. The link shows the whole address a reader would paste, which only the browser knows.
  // The editor, laid over the textarea above, changes the page's height once it has measured
  // itself, so the status is brought to the middle of the screen again after that.
  function showShared() {
    document.querySelectorAll("a[data-absolute]").forEach(function (a) { a.textContent = a.href; });
    if (window.location.hash !== "#wb-share-status") return;
    var s = document.getElementById("wb-share-status");
    if (!s || !s.textContent.trim()) return;
    s.focus({ preventScroll: true });
    var center = function () { s.scrollIntoView({ block: "center" }); };
    center();
    window.requestAnimationFrame(function () { window.requestAnimationFrame(center); });
  }
  document.addEventListener("DOMContentLoaded", showShared);
  // Share of a handler already on its share's page leads to this very page: the browser would
  // not load it again, so the status is shown here.
  document.addEventListener("htmx:beforeOnLoad", function (ev) {
    var xhr = ev.detail.xhr, to = xhr && xhr.getResponseHeader("HX-Redirect");
    if (!to) return;
    var u = new URL(to, window.location.href), here = window.location;
    if (u.pathname !== here.pathname || u.search !== here.search) return;
    ev.preventDefault();
    history.replaceState(history.state, "", u.href);
    var s = document.getElementById("wb-share-status");
    if (s) {
      s.focus({ preventScroll: true });
      s.scrollIntoView({ block: "center" });
    }
    var form = document.getElementById("wb-form");
    if (form) say(form, "Shared already: this page's link is this handler's.", true);
  });
  // === end of the workbench's answers ===

  // ---- Spread over seeds (pages/spread.templ, cmd/site/spread.go) ----
  // When a spread ends, the box that held focus (its Cancel, or nothing while it counted) is
  // swapped away (and with the banded block, the whole block and its Run), and focus would fall to
  // the page. It goes instead to the first band chart's figure once the banded block is in, or to
  // the note that a Cancel leaves; only when focus was in what is swapped away or nowhere, so that
  // a reader busy in another block keeps their place.
  // spreadBand gives a spread's band (the series with pages.BandSeriesID) the opacity of the
  // page's colour scheme, from the theme's spreadBand: the options are one set for both schemes,
  // and a band light enough for a white panel all but disappears on a dark one.
  function spreadBand(chart) {
    var t = themes && themes[dark && dark.matches ? "dark" : "light"];
    var opacity = t && t.spreadBand && t.spreadBand.opacity;
    if (!opacity) return;
    var patch = (chart.getOption().series || []).filter(function (s) { return s.id === "spread-band"; }).map(function (s) {
      return s.type === "bar" ? { id: s.id, itemStyle: { opacity: opacity } } : { id: s.id, areaStyle: { opacity: opacity } };
    });
    if (patch.length) chart.setOption({ series: patch });
  }

  var spreadFocus = null;
  document.addEventListener("htmx:beforeSwap", function (ev) {
    var elt = ev.detail.requestConfig && ev.detail.requestConfig.elt;
    var box = elt && elt.closest && elt.closest(".spread-progress");
    var sec = box && box.closest("section.experiment");
    if (!sec) return;
    var a = document.activeElement;
    var gone = ev.detail.target && ev.detail.target.contains(a); // swapped away with its element
    spreadFocus = !a || a === document.body || gone ? { block: sec.id, band: box.hasAttribute("data-spread-done") } : null;
  });
  document.addEventListener("htmx:afterSettle", function () {
    var f = spreadFocus;
    spreadFocus = null;
    var a = document.activeElement;
    if (!f || (a && a !== document.body)) return;
    var sec = document.getElementById(f.block);
    if (!sec) return;
    var to = null;
    if (f.band) {
      var chart = sec.querySelector('.chart[id$="-band"], .chart[id$="-band-1"]');
      to = chart && chart.closest("figure");
    } else {
      to = sec.querySelector(".spread-note");
    }
    if (!to) return;
    if (!to.hasAttribute("tabindex")) to.setAttribute("tabindex", "-1");
    to.focus();
  });
  // ---- end of spread over seeds ----

  // ==== Hide results until I guess (pages/guess.go, pages/guess.templ) ====
  // The reader's choice and their guesses are two cookies, so that the server draws each block
  // already hidden, or already revealed with its verdict, before this script runs (nothing flashes,
  // nothing runs inline). Here: the switch, a guess's check and reveal, and the same states for a
  // block an htmx rerun swaps in (init calls initGuesses).
  var GUESS_ON = "eo_predict", GUESSES = "eo_guesses", GUESS_KEEP = 40;

  // guessCookiePath is the site's base path, where the server reads the cookies.
  function guessCookiePath() {
    var box = document.querySelector(".predict-toggle[data-cookie-path]");
    return (box && box.getAttribute("data-cookie-path")) || "/";
  }

  function readCookie(name) {
    var parts = document.cookie ? document.cookie.split("; ") : [];
    for (var i = 0; i < parts.length; i++) {
      var eq = parts[i].indexOf("=");
      if (eq > 0 && parts[i].slice(0, eq) === name) return parts[i].slice(eq + 1);
    }
    return "";
  }

  // writeCookie keeps value for a year, or deletes the cookie for "".
  function writeCookie(name, value) {
    document.cookie = name + "=" + value + (value === "" ? "; max-age=0" : "; max-age=31536000") +
      "; path=" + guessCookiePath() + "; samesite=lax" + (window.location.protocol === "https:" ? "; secure" : "");
  }

  function hidingResults() { return readCookie(GUESS_ON) === "on"; }

  // keptGuesses are the reader's guesses, [key, value] pairs, oldest first (pages.ReadGuessing
  // reads the same cookie).
  function keptGuesses() {
    return readCookie(GUESSES).split("|").map(function (p) { return p.split(":"); }).filter(function (p) {
      return p.length === 2 && /^[0-9a-f]{12}$/.test(p[0]) && guessOf(p[1]) !== null;
    });
  }

  function guessFor(key) {
    var v = null;
    keptGuesses().forEach(function (p) { if (p[0] === key) v = Number(p[1]); });
    return v;
  }

  // keepGuess keeps the newest GUESS_KEEP guesses: a cookie is sent with every request.
  function keepGuess(key, n) {
    var list = keptGuesses().filter(function (p) { return p[0] !== key; });
    list.push([key, String(n)]);
    writeCookie(GUESSES, list.slice(-GUESS_KEEP).map(function (p) { return p.join(":"); }).join("|"));
  }

  // readGuess reads a guess as the home page's predictions do (guessOf), refusing a decimal comma
  // with what to write instead; {value} or {error}.
  function readGuess(raw) {
    var s = String(raw).trim();
    var shown = "\u201c" + (s.length > 24 ? s.slice(0, 23) + "\u2026" : s) + "\u201d";
    if (s === "") return { error: "Write your guess first: a count of 0 or more, such as 350 or 1,200." };
    if (/\d/.test(s) && !grouped(s)) return { error: shown + ": write decimals with a point (0.5); commas only group thousands (1,200)." };
    var n = guessOf(s);
    if (n !== null) return { value: n };
    // A number that is no count says which way it is wrong: below zero, or past what a number
    // holds (a run of hundreds of digits), not that it is no number at all.
    var plain = s.replace(/[,_\s\u2009\u202f\u00a0]/g, "");
    if (/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(plain)) {
      var x = Number(plain);
      if (x < 0) return { error: shown + " is negative; write a count of 0 or more, such as 350 or 1,200." };
      if (!isFinite(x)) return { error: shown + " is too large to be a count; write one such as 350 or 1,200." };
    }
    return { error: shown + " is not a number; write a count of 0 or more, such as 350 or 1,200." };
  }

  // guessNumber and guessVerdict write what present.GuessNumber and present.GuessVerdict write, so
  // the verdict a reveal writes reads the same as the one a reload draws.
  function guessNumber(n) { return fmt(Math.round(n * 100) / 100); }

  function guessVerdict(guess, measured) {
    var d = guessNumber(Math.abs(guess - measured));
    var gap = d === "0" ? "exactly right" : d + (guess > measured ? " too high" : " too low");
    return "You guessed " + guessNumber(guess) + "; measured " + guessNumber(measured) + " (" + gap + ").";
  }

  // showGuessState puts a block in the state the cookies say: as it is without the switch, hidden
  // behind its question, or revealed with the verdict (written here unless the server drew it).
  // made is a guess just made, revealed even if the browser refused to keep its cookie.
  function showGuessState(form, made) {
    var sec = form.closest("section.experiment");
    if (!sec) return;
    var result = sec.querySelector(".result");
    var verdict = document.getElementById(sec.id + "-guessed");
    var guess = !hidingResults() ? null : typeof made === "number" ? made : guessFor(form.getAttribute("data-predict-key"));
    var pending = hidingResults() && guess === null;
    var was = sec.classList.contains("predict-pending");
    form.hidden = !pending;
    sec.classList.toggle("predict-pending", pending);
    // The stylesheet hides the result from the first paint; hidden also covers a browser that
    // does not know its media query.
    if (result) result.hidden = pending;
    if (was && !pending) initCharts(sec); // drawn now that the result has a size
    syncAfterResults();
    if (!verdict) return;
    if (guess !== null) {
      var said = verdict.querySelector(".predict-said");
      said.textContent = guessVerdict(guess, Number(form.getAttribute("data-measured")));
    }
    verdict.hidden = guess === null;
  }

  // syncAfterResults hides the prose that discusses results (pages.AfterView, data-result-of
  // naming their blocks) while any of those results is hidden for a guess or a study room's
  // reveal, as the server drew it for the first paint; hidden covers a browser without the
  // stylesheet's media query.
  function syncAfterResults() {
    document.querySelectorAll(".after-result[data-result-of]").forEach(function (box) {
      var pending = false, sealed = false;
      box.getAttribute("data-result-of").split(" ").forEach(function (id) {
        var sec = id && document.getElementById(id);
        if (!sec) return;
        pending = pending || sec.classList.contains("predict-pending");
        sealed = sealed || !!sec.querySelector(".sealed");
      });
      box.classList.toggle("predict-pending", pending);
      box.classList.toggle("result-sealed", sealed);
      var body = box.querySelector(".after-body"), note = box.querySelector(".after-note");
      if (body) body.hidden = pending || sealed;
      // A note over prose the server left out (data-left-out) stays: the prose comes back with
      // the page, not with the block's reveal.
      if (note) note.hidden = !(pending || sealed || note.hasAttribute("data-left-out"));
    });
  }

  // announce says text in the page's live region only: the words are on screen already, next to
  // the field or in the verdict, and need no copy in a form's status line.
  function announce(text) {
    makeAnnouncer();
    announcer.textContent = text;
  }

  function markGuess(form, msg) {
    var input = form.querySelector("input");
    var err = form.querySelector(".error");
    if (msg) input.setAttribute("aria-invalid", "true");
    else input.removeAttribute("aria-invalid");
    err.textContent = msg;
    err.hidden = !msg;
  }

  function initGuesses(root) {
    syncAfterResults(); // a block swapped in, sealed or not, with or without a question
    root.querySelectorAll("form.predict-ask[data-predict-key]").forEach(function (form) {
      showGuessState(form, null);
      if (form.dataset.bound) return;
      form.dataset.bound = "1";
      form.addEventListener("submit", function (ev) {
        ev.preventDefault();
        var input = form.querySelector("input");
        var got = readGuess(input.value);
        var sec = form.closest("section.experiment");
        if (got.error) {
          markGuess(form, got.error);
          input.focus();
          announce(got.error);
          return;
        }
        markGuess(form, "");
        keepGuess(form.getAttribute("data-predict-key"), got.value);
        showGuessState(form, got.value);
        // The form's status may still say the rerun's result is hidden.
        var status = sec.querySelector("form.params .status");
        if (status) status.textContent = "";
        var verdict = document.getElementById(sec.id + "-guessed");
        if (verdict) {
          verdict.focus();
          announce("Result shown. " + textOf(verdict.querySelector(".predict-said")));
        }
      });
    });
  }

  document.addEventListener("change", function (ev) {
    var box = ev.target;
    if (!box.matches || !box.matches("[data-predict-toggle]")) return;
    writeCookie(GUESS_ON, box.checked ? "on" : "");
    document.querySelectorAll("form.predict-ask[data-predict-key]").forEach(function (f) { showGuessState(f, null); });
    var n = document.querySelectorAll("section.experiment.predict-pending").length;
    announce(!box.checked ? "Results shown." : n === 0 ? "Results hidden until you guess; you have guessed every result on this page." :
      "Results hidden: " + n + (n === 1 ? " experiment asks" : " experiments ask") + " for your guess first.");
  });
  // ==== end of hide results until I guess ====

  // Study rooms. The room's stream (htmx's SSE extension) swaps its live parts; what is left here
  // is following the presenter, which is this tab's own choice, kept in localStorage per room.
  var streamOpen = false;
  function here() { return window.location.pathname + window.location.search; }
  function store(kind) {
    try { return kind === "session" ? window.sessionStorage : window.localStorage; } catch (e) { return null; }
  }
  function following(room) {
    var st = store("local");
    return !st || st.getItem("eo-follow:" + room) !== "off";
  }
  function setFollowing(room, on) {
    var st = store("local");
    if (st) st.setItem("eo-follow:" + room, on ? "on" : "off");
  }
  // followPresenter shows each presenting part's follow controls and, for a member who follows,
  // goes where the host went. Only a move counts: a member who wandered off by a link of their
  // own stays until the host presents something new (this tab remembers the last page presented).
  // Following is for notebook pages: the room's own page (data-room-page) never moves, so a member
  // may keep it open in a tab of its own; it notes what is presented, so that the next notebook
  // page this tab opens is not taken for a move.
  function followPresenter(root) {
    (root || document).querySelectorAll("[data-present-path]").forEach(function (el) {
      var box = el.closest("[data-room]");
      var ctl = el.querySelector("[data-follow]");
      if (!box || !ctl) return;
      var room = box.getAttribute("data-room");
      var on = following(room);
      var path = el.getAttribute("data-present-path");
      // Following, but on another page than the host's: say so, not that the page follows. The
      // page, not its values: a member who reran the host's page with values of their own is
      // still on it (and the presented address may spell its values another way).
      var away = ctl.querySelector("[data-follow-away]");
      var there = false;
      try { there = new URL(path, window.location.href).pathname !== window.location.pathname; } catch (e) { there = false; }
      ctl.querySelector("[data-follow-on]").hidden = !on || (!!away && there);
      if (away) away.hidden = !on || !there;
      ctl.querySelector("[data-follow-off]").hidden = on;
      var st = store("session");
      var key = "eo-presented:" + room;
      if (st && st.getItem(key) === path) return;
      if (st) st.setItem(key, path);
      if (on && path !== here() && !box.hasAttribute("data-room-page")) window.location.assign(path);
    });
  }
  document.addEventListener("click", function (ev) {
    var t = ev.target.closest && ev.target.closest("[data-follow-stop],[data-follow-start],[data-copy]");
    if (!t) return;
    if (t.hasAttribute("data-copy")) {
      var input = document.getElementById(t.getAttribute("data-copy"));
      if (!input) return;
      input.select();
      var done = function () { t.textContent = "Copied"; };
      if (navigator.clipboard) navigator.clipboard.writeText(input.value).then(done, function () {});
      else if (document.execCommand && document.execCommand("copy")) done();
      return;
    }
    var box = t.closest("[data-room]");
    var pres = t.closest("[data-present-path]");
    if (!box || !pres) return;
    var on = t.hasAttribute("data-follow-start");
    setFollowing(box.getAttribute("data-room"), on);
    var path = pres.getAttribute("data-present-path");
    // The room's own page stays put: following from there moves the notebook's pages only.
    if (on && path !== here() && !box.hasAttribute("data-room-page")) window.location.assign(path);
    else followPresenter(box);
  });
  // A form that acts on "this page" (pin it, present it, hide the bar and come back to it) sends
  // the page as it is now, which htmx reruns may have changed since the page was drawn: an htmx
  // form through its request, a plain one by its fields just before it is sent.
  document.addEventListener("htmx:configRequest", function (ev) {
    var form = ev.detail.elt;
    if (!form || !form.hasAttribute || !form.hasAttribute("data-here") || !ev.detail.formData) return;
    ev.detail.formData.set("path", here());
    ev.detail.formData.set("return", here());
  });
  document.addEventListener("submit", function (ev) {
    var form = ev.target;
    if (!form.hasAttribute || !form.hasAttribute("data-here") || (window.htmx && form.hasAttribute("hx-post"))) return;
    form.querySelectorAll('input[name="path"],input[name="return"]').forEach(function (i) { i.value = here(); });
  }, true);
  // An action that cannot be undone asks first (data-confirm on its form); the form carries
  // confirmed=yes only once the reader agreed. This runs in the capture phase, before htmx sees
  // the submit, so "no" stops both a plain form and an htmx one. Without script the server asks.
  document.addEventListener("submit", function (ev) {
    var form = ev.target;
    var q = form.getAttribute && form.getAttribute("data-confirm");
    if (!q) return;
    if (!window.confirm(q)) {
      ev.preventDefault();
      ev.stopPropagation();
      return;
    }
    var c = form.querySelector('input[name="confirmed"]');
    if (!c) {
      c = document.createElement("input");
      c.type = "hidden";
      c.name = "confirmed";
      form.appendChild(c);
    }
    c.value = "yes";
  }, true);
  // htmx counts a 422 as successful (the config lets it swap the reason in beside the form), so
  // only a 2xx answer clears the reason and the note: a refusal must stay on screen.
  document.addEventListener("htmx:afterRequest", function (ev) {
    var form = ev.detail.elt;
    var xhr = ev.detail.xhr;
    // Only a room's forms: a box that polls inside the room (the lab run it watches) or the
    // bar's list of numbers asked for again is no action of the reader's.
    if (!form || form.tagName !== "FORM" || !form.closest("[data-room]") || !xhr || xhr.status < 200 || xhr.status > 299) return;
    var err = form.querySelector("[data-error]");
    if (err) err.textContent = "";
    if (form.hasAttribute("data-reset")) form.querySelector('input[name="note"]').value = "";
    // A round opened: fold its forms away again, so the round itself is what the host sees.
    var fold = form.closest("details.room-new-round, details.roombar-ask");
    if (fold) { form.reset(); fold.open = false; }
    // Without a live stream the room would not redraw by itself: reload it instead.
    if (!streamOpen) window.location.reload();
  });
  // A live part comes back closed or open as the server drew it; a fold the reader opened or closed
  // (the host's settings, the join box, every guess) keeps the state they left it in.
  // Focus, too, stays where it was when the part still has it: a member who pressed Send is on
  // the redrawn form's button, not thrown back to the top of the page.
  var folds = {}, focusAt = null;
  document.addEventListener("htmx:sseBeforeMessage", function (ev) {
    var part = ev.detail.elt;
    if (!part || !part.querySelectorAll) return;
    part.querySelectorAll("details[data-fold]").forEach(function (d) { folds[d.getAttribute("data-fold")] = d.open; });
    var a = document.activeElement, form = a && part.contains(a) && a.closest("form[action]");
    focusAt = form ? { action: form.getAttribute("action"), name: a.getAttribute("name"), tag: a.tagName } : null;
  });
  document.addEventListener("htmx:sseMessage", function (ev) {
    var part = ev.detail.elt;
    if (!part || !part.querySelectorAll) return;
    part.querySelectorAll("details[data-fold]").forEach(function (d) {
      var k = d.getAttribute("data-fold");
      if (k in folds) d.open = folds[k];
      else if (k === "lab") foldLab(part);
    });
    if (!focusAt || part.contains(document.activeElement)) return;
    var at = focusAt;
    focusAt = null;
    var form = [].find.call(part.querySelectorAll("form[action]"), function (f) { return f.getAttribute("action") === at.action; });
    var el = form && (at.name ? form.querySelector('[name="' + at.name.replace(/"/g, "") + '"]') : form.querySelector(at.tag.toLowerCase()));
    if (el) el.focus({ preventScroll: true });
  });
  // A lab run that ends folds the bar's box to its summary line, on every width: its tables would
  // push the page down (2,540 px on a laptop). Not a box the reader opened themselves (a click or
  // a key on its summary), which stays open for that run in this tab.
  var labOpened = {};
  function labRunOf(d) {
    var s = d.querySelector(".lab-status[data-run]");
    return s ? s.getAttribute("data-run") : "";
  }
  document.addEventListener("click", function (ev) {
    var sum = ev.target.closest && ev.target.closest("details.roombar-lab > summary");
    if (sum) labOpened[labRunOf(sum.parentNode)] = !sum.parentNode.open; // the click toggles it next
  });
  function foldEndedLab() {
    document.querySelectorAll("details.roombar-lab[open]").forEach(function (d) {
      if (d.querySelector("[data-ended]") && !labOpened[labRunOf(d)]) d.open = false;
    });
  }
  document.addEventListener("htmx:sseMessage", foldEndedLab);
  document.addEventListener("htmx:afterSettle", foldEndedLab);
  document.addEventListener("htmx:sseOpen", function () { streamOpen = true; });
  document.addEventListener("htmx:sseError", function () { streamOpen = false; });
  document.addEventListener("htmx:sseMessage", function (ev) {
    var elt = ev.detail.elt;
    followPresenter(elt && elt.parentNode);
    // A round that has just opened unfolds the bar's round, once: a member who folds it again
    // keeps it folded until the next round.
    var fold = elt && elt.closest && elt.closest("details.roombar-round");
    var round = fold && elt.querySelector('[data-state="open"][data-round]');
    if (round && fold.getAttribute("data-opened") !== round.getAttribute("data-round")) {
      fold.setAttribute("data-opened", round.getAttribute("data-round"));
      fold.open = true;
    }
  });
  document.addEventListener("DOMContentLoaded", function () { followPresenter(document); });
  // === A revealed round in the bar (pages/room.templ's RoomBar) ===
  // The server draws the bar's round open while the newest round is revealed, so the histogram is
  // where people are. A member who folds it keeps it folded for that round in this tab, on every
  // page they open, until a new round comes; a reveal that arrives live unfolds it once.
  function foldKey(fold) {
    var box = fold.closest("[data-room]");
    var rd = fold.querySelector('[data-state="revealed"][data-round]');
    return box && rd ? "eo-folded:" + box.getAttribute("data-room") + ":" + rd.getAttribute("data-round") : "";
  }
  // The member's own press of the summary (a click, or Enter or Space on it), not the server's
  // open attribute, decides: the click comes before the fold changes, so the new state is !open.
  document.addEventListener("click", function (ev) {
    var sum = ev.target.closest && ev.target.closest("details.roombar-round > summary");
    var fold = sum && sum.parentNode;
    var key = fold && foldKey(fold), st = store("session");
    if (!key || !st) return;
    if (fold.open) st.setItem(key, "1");
    else st.removeItem(key);
  });
  function keepFolds(root) {
    var st = store("session");
    (root || document).querySelectorAll("details.roombar-round[open]").forEach(function (fold) {
      var key = foldKey(fold);
      if (key && st && st.getItem(key)) fold.open = false;
    });
  }
  document.addEventListener("htmx:sseMessage", function (ev) {
    var elt = ev.detail.elt;
    var fold = elt && elt.closest && elt.closest("details.roombar-round");
    var rd = fold && elt.querySelector('[data-state="revealed"][data-round]');
    if (!rd || fold.getAttribute("data-revealed") === rd.getAttribute("data-round")) return;
    fold.setAttribute("data-revealed", rd.getAttribute("data-round"));
    var st = store("session"), key = foldKey(fold);
    if (!(key && st && st.getItem(key))) fold.open = true;
  });
  document.addEventListener("DOMContentLoaded", function () { keepFolds(document); });
  // A result hidden while the room asks about it (pages/room_session.templ's sealedResult) is
  // asked for again once the room's stream shows its round revealed.
  document.addEventListener("htmx:sseMessage", function (ev) {
    var elt = ev.detail.elt, box = elt && elt.closest && elt.closest("[data-room]");
    if (!box || !window.htmx || !window.CSS) return;
    var room = CSS.escape(box.getAttribute("data-room"));
    elt.querySelectorAll('[data-state="revealed"][data-round]').forEach(function (rd) {
      var seq = CSS.escape(rd.getAttribute("data-round"));
      document.querySelectorAll('.sealed[data-sealed-room="' + room + '"][data-sealed-round="' + seq + '"]').forEach(function (s) {
        window.htmx.trigger(s, "eo-revealed");
      });
    });
  });
  // A round that opens asking a number has every experiment block on the page asked for again, so
  // the server draws their results hidden (a member sees no result while a round asks).
  // The round the page was drawn with is known already; only one the stream brings later counts.
  var askedSeen = {};
  function askingRound(root) {
    return root.querySelector && root.querySelector('.roombar [data-state="open"][data-round][data-asks]');
  }
  document.addEventListener("DOMContentLoaded", function () {
    var rd = askingRound(document);
    if (rd) askedSeen[rd.getAttribute("data-round")] = true;
  });
  document.addEventListener("htmx:sseMessage", function (ev) {
    var elt = ev.detail.elt;
    var rd = elt && elt.closest && elt.closest(".roombar") && askingRound(elt.closest(".roombar"));
    if (!rd || askedSeen[rd.getAttribute("data-round")] || !window.htmx || !window.CSS) return;
    askedSeen[rd.getAttribute("data-round")] = true;
    document.querySelectorAll("section.experiment[data-experiment]").forEach(function (sec) {
      if (sec.querySelector(".sealed") || !sec.id) return;
      window.htmx.ajax("GET", here(), { source: sec, target: sec, select: "#" + sec.id, swap: "outerHTML" });
    });
  });
  // === end of a revealed round in the bar ===

  // A round's countdown ticks from the deadline the server drew, read against the server's clock
  // at that moment (data-clock) plus the time since this tab received it, so a phone whose clock
  // is a minute off still shows what the server will hold it to. At zero it only shows 0:00: the
  // server locks the round and its stream redraws every screen.
  var received = new WeakMap();
  function tickCountdowns() {
    document.querySelectorAll(".countdown[data-deadline]").forEach(function (el) {
      var deadline = Date.parse(el.getAttribute("data-deadline"));
      var clock = Date.parse(el.getAttribute("data-clock"));
      if (isNaN(deadline) || isNaN(clock)) return;
      if (!received.has(el)) received.set(el, Date.now());
      var left = Math.max(0, deadline - clock - (Date.now() - received.get(el)));
      var s = Math.ceil(left / 1000);
      var out = el.querySelector("[data-left]");
      var text = Math.floor(s / 60) + ":" + (s % 60 < 10 ? "0" : "") + (s % 60);
      if (out && out.textContent !== text) out.textContent = text;
      el.classList.toggle("countdown-low", s <= 10);
    });
  }
  setInterval(tickCountdowns, 250);
})();
