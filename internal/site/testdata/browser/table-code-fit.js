// What a reader sees of each data table's row names and each source block's lines: a name broken
// over lines although it would fit on one (broken is true, with the room it had), a name's cell
// wider than its text needs (spare, in px), and a source line that wraps instead of scrolling.
(() => {
  const range = document.createRange();
  const need = el => {
    const text = [...el.childNodes].filter(n => n.nodeType === Node.TEXT_NODE).map(n => n.textContent).join("").trim();
    const probe = document.createElement("span");
    probe.style.whiteSpace = "nowrap"; probe.style.font = getComputedStyle(el).font; probe.textContent = text;
    document.body.appendChild(probe);
    const w = probe.getBoundingClientRect().width;
    probe.remove();
    return {text, w};
  };
  // Lines a cell's own text takes (a note under it, like "this page", is not its name).
  const lines = el => {
    const tops = new Set();
    for (const n of el.childNodes) if (n.nodeType === Node.TEXT_NODE && n.textContent.trim()) {
      range.selectNodeContents(n);
      for (const r of range.getClientRects()) tops.add(Math.round(r.top));
    }
    return tops.size;
  };
  const names = [];
  for (const table of document.querySelectorAll("table.data")) {
    // A table shown as cards on a phone (table.stack) has no columns to measure.
    if (!table.getClientRects().length || getComputedStyle(table).display !== "table") continue;
    const ths = [...table.querySelectorAll("tbody th")];
    // Whether the table would fit with every name whole: a name may break only where it would not.
    ths.forEach(th => { th.style.whiteSpace = "nowrap"; });
    const fitsWhole = table.getBoundingClientRect().width <= table.parentElement.clientWidth + 1;
    ths.forEach(th => { th.style.whiteSpace = ""; });
    const head = table.querySelector("thead th");
    // The column is as wide as its widest name or its heading needs.
    const col = Math.max(0, ...ths.map(th => need(th).w), head ? need(head).w : 0);
    const wrap = table.parentElement;
    for (const th of ths) {
      const cs = getComputedStyle(th), pad = parseFloat(cs.paddingLeft) + parseFloat(cs.paddingRight);
      names.push({text: need(th).text, need: Math.round(col), width: Math.round(th.getBoundingClientRect().width - pad),
        broken: lines(th) > 1, tableFits: fitsWhole});
    }
  }
  const code = [...document.querySelectorAll(".source pre")].filter(p => p.getClientRects().length).map(p => ({
    wraps: getComputedStyle(p).whiteSpace !== "pre", focusable: p.tabIndex >= 0,
  }));
  return {names, code};
})()
