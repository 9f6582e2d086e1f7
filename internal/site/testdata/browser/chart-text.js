// Every piece of text echarts drew in each chart, with what a reader needs of it: its size, its
// contrast against the panel behind the chart, and whether it fits inside the chart's box; and each
// series' colour with its contrast. A chart drawn on a canvas has no text to read: svg is false.
// clashes lists what hides something else: texts over each other, a text crowding a point's symbol,
// a symbol painted over a whole symbol of another series; unlabelled lists the values an axis was
// asked to label (customValues) that echarts hid.
(() => {
  const probe = document.createElement("span");
  document.body.appendChild(probe);
  const rgb = c => {
    probe.style.color = "";
    probe.style.color = c;
    const m = getComputedStyle(probe).color.match(/[\d.]+/g).map(Number);
    return {r: m[0], g: m[1], b: m[2], a: m.length > 3 ? m[3] : 1};
  };
  const lum = c => {
    const f = v => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
    return 0.2126 * f(c.r) + 0.7152 * f(c.g) + 0.0722 * f(c.b);
  };
  const over = (fg, bg) => ({r: fg.r * fg.a + bg.r * (1 - fg.a), g: fg.g * fg.a + bg.g * (1 - fg.a), b: fg.b * fg.a + bg.b * (1 - fg.a), a: 1});
  const ratio = (fg, bg) => { const a = lum(over(fg, bg)), b = lum(bg); return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05); };
  const backdrop = el => {
    for (let p = el; p; p = p.parentElement) {
      const c = rgb(getComputedStyle(p).backgroundColor);
      if (c.a > 0) return c;
    }
    return rgb(getComputedStyle(document.documentElement).backgroundColor);
  };
  const out = [...document.querySelectorAll("[data-chart]")].map(el => {
    const bg = backdrop(el), box = el.getBoundingClientRect();
    const svg = el.querySelector("svg");
    const texts = svg ? [...svg.querySelectorAll("text")].filter(t => t.textContent.trim() !== "" && getComputedStyle(t).display !== "none" && t.getAttribute("opacity") !== "0") : [];
    const c = echarts.getInstanceByDom(el);
    const series = c ? c.getModel().getSeries().map(s => {
      const st = s.getData().getVisual("style") || {};
      const col = st.fill && st.fill !== "none" ? st.fill : st.stroke;
      return {name: s.name, color: String(col), contrast: col ? ratio(rgb(col), bg) : 0};
    }) : [];
    // Each symbol a line or scatter series draws, as a box in page pixels (its size and half its
    // border either side), with the order it is painted in: a later symbol paints over an earlier.
    const symbols = [];
    if (c) c.getModel().getSeries().forEach((s, si) => {
      if (!["line", "scatter"].includes(s.subType) || s.get("showSymbol") === false) return;
      const data = s.getData(), border = s.get(["itemStyle", "borderWidth"]) ?? 2;
      const dims = ["x", "y"].map(d => data.mapDimension(d));
      for (let j = 0; j < data.count(); j++) {
        const v = data.getValues(dims, j), p = c.convertToPixel({seriesIndex: s.seriesIndex}, v);
        let size = data.getItemVisual(j, "symbolSize");
        size = Array.isArray(size) ? size : [size, size];
        if (!p || !size[0]) continue;
        const rx = size[0] / 2 + border / 2, ry = size[1] / 2 + border / 2;
        symbols.push({series: s.name, at: v.join(", "), z: [s.get("zlevel") || 0, s.get("z") ?? 2, si],
          box: {left: box.left + p[0] - rx, right: box.left + p[0] + rx, top: box.top + p[1] - ry, bottom: box.top + p[1] + ry}});
      }
    });
    const rects = texts.map(t => t.getBoundingClientRect());
    const name = i => JSON.stringify(texts[i].textContent.trim().slice(0, 40));
    // How far two boxes overlap, the lesser of across and down; negative when apart.
    const overlap = (a, b) => Math.min(Math.min(a.right, b.right) - Math.max(a.left, b.left), Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top));
    const clashes = [];
    // A 12 px text's box is 14 px tall, its glyphs a pixel or two inside it: boxes that overlap by
    // more than 2 px have glyphs on top of each other.
    for (let i = 0; i < texts.length; i++) for (let k = i + 1; k < texts.length; k++) {
      if (overlap(rects[i], rects[k]) > 2) clashes.push(`text ${name(i)} overlaps text ${name(k)}`);
    }
    // A symbol that reaches 1.5 px into a text's box touches its glyphs: the marker reads as part
    // of the text, or covers it.
    texts.forEach((t, i) => symbols.forEach(m => {
      if (overlap(rects[i], m.box) > 1.5) clashes.push(`text ${name(i)} touches a symbol of ${JSON.stringify(m.series)} at (${m.at})`);
    }));
    // A symbol painted over a symbol of another series that it covers whole hides that point.
    const order = (a, b) => a.z[0] - b.z[0] || a.z[1] - b.z[1] || a.z[2] - b.z[2];
    for (const a of symbols) for (const b of symbols) {
      if (a.series === b.series || order(b, a) <= 0) continue;
      if (b.box.left <= a.box.left + 0.5 && b.box.right >= a.box.right - 0.5 && b.box.top <= a.box.top + 0.5 && b.box.bottom >= a.box.bottom - 0.5)
        clashes.push(`a symbol of ${JSON.stringify(b.series)} hides the point of ${JSON.stringify(a.series)} at (${a.at})`);
    }
    // Every value an axis was asked to label (customValues) should carry its label: one that
    // echarts hid as overlapping leaves a point of the sweep unnamed.
    const drawn = new Set(texts.map(t => t.textContent.trim()));
    const unlabelled = [];
    if (c) for (const kind of ["xAxis", "yAxis"]) for (const ax of c.getModel().queryComponents({mainType: kind})) {
      if (!ax.axis || !ax.get(["axisLabel", "customValues"])) continue;
      for (const l of ax.axis.getViewLabels()) if (!drawn.has(String(l.formattedLabel).trim())) unlabelled.push(String(l.formattedLabel));
    }
    return {
      id: el.id, layout: el.getAttribute("data-chart-layout"), svg: !!svg, series, clashes, unlabelled,
      texts: texts.map(t => {
        const r = t.getBoundingClientRect();
        const fill = t.getAttribute("fill") || getComputedStyle(t).fill;
        const fo = Number(t.getAttribute("fill-opacity") || 1);
        const col = rgb(fill); col.a *= fo;
        return {text: t.textContent.trim().slice(0, 40), size: parseFloat(getComputedStyle(t).fontSize), fill, contrast: ratio(col, bg),
          inside: r.left >= box.left - 1 && r.right <= box.right + 1 && r.top >= box.top - 1 && r.bottom <= box.bottom + 1};
      }),
    };
  });
  probe.remove();
  return out;
})()
