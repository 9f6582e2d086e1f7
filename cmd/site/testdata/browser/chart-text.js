// Every piece of text echarts drew in each chart, with what a reader needs of it: its size, its
// contrast against the panel behind the chart, and whether it fits inside the chart's box; and each
// series' colour with its contrast. A chart drawn on a canvas has no text to read: svg is false.
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
    return {
      id: el.id, layout: el.getAttribute("data-chart-layout"), svg: !!svg, series,
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
