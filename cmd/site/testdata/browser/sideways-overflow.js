// What sticks out to the right of a phone's viewport. Overflow inside a box that clips or
// scrolls (a wide table, a code block) is fine: the page itself does not scroll sideways.
(() => {
  const w = document.documentElement.clientWidth, out = [];
  if (document.documentElement.scrollWidth > w) out.push("document scrollWidth " + document.documentElement.scrollWidth + " > " + w);
  for (const el of document.querySelectorAll("body *")) {
    const r = el.getBoundingClientRect();
    if (r.width === 0 || r.right <= w + 1) continue;
    let p = el.parentElement, clipped = false;
    for (; p && p !== document.body; p = p.parentElement) {
      const ox = getComputedStyle(p).overflowX;
      if (ox !== "visible") { clipped = true; break; }
    }
    if (!clipped) out.push(el.tagName.toLowerCase() + (el.id ? "#" + el.id : "") + (el.className && el.className.baseVal === undefined ? "." + String(el.className).trim().split(/\s+/).join(".") : "") + " right=" + Math.round(r.right));
    if (out.length > 8) break;
  }
  return out;
})()
