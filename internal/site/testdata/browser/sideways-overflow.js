// What sticks out sideways on a phone, and what a phone cuts off. Content wider than its column
// may only scroll inside a box that shows it scrolls (overflow-x auto or scroll, with the shadow
// cue of app.css); anything else past the viewport or past the box that clips it is reported, and
// so is text that must be read whole (a caption, a heading, a paragraph) cut off by any box, a
// scrolling one included.
(() => {
  const w = document.documentElement.clientWidth, out = [];
  const name = el => el.tagName.toLowerCase() + (el.id ? "#" + el.id : "") +
    (el.className && el.className.baseVal === undefined && String(el.className).trim() ? "." + String(el.className).trim().split(/\s+/).join(".") : "");
  const whole = "caption, figcaption, .table-caption, .chart-title, h1, h2, h3, h4, p, li, summary, label, dt, dd";
  if (document.documentElement.scrollWidth > w) out.push("document scrollWidth " + document.documentElement.scrollWidth + " > " + w);
  for (const el of document.querySelectorAll("body *")) {
    if (el.closest("[data-chart]")) continue; // a chart's own drawing, checked by chart-text.js
    const r = el.getBoundingClientRect();
    if (r.width === 0 || r.height === 0) continue;
    // The nearest box that clips el sideways, and where its visible part ends.
    let clip = null;
    for (let p = el.parentElement; p && p !== document.body; p = p.parentElement) {
      if (getComputedStyle(p).overflowX !== "visible") { clip = p; break; }
    }
    const edge = clip ? Math.min(w, clip.getBoundingClientRect().right - (parseFloat(getComputedStyle(clip).borderRightWidth) || 0)) : w;
    if (r.right <= edge + 1) continue;
    const what = name(el) + " right=" + Math.round(r.right) + (clip ? " in " + name(clip) + " ending at " + Math.round(edge) : "");
    if (el.matches(whole)) {
      out.push("cut off: " + what + ": " + JSON.stringify(el.textContent.trim().slice(0, 40)));
    } else if (!clip) {
      out.push(what);
    } else {
      const cs = getComputedStyle(clip);
      const scrolls = cs.overflowX === "auto" || cs.overflowX === "scroll";
      const cued = /gradient/.test(cs.backgroundImage);
      if (!scrolls) out.push("clipped without a way to scroll: " + what);
      else if (!cued) out.push("scrolls with no visible cue: " + what);
    }
    if (out.length > 12) break;
  }
  return out;
})()
