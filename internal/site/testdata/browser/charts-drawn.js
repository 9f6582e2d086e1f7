// Every chart on the page as echarts holds it: a drawing with a size proves it was painted, the
// series names and the number of points prove it was painted with the page's data.
[...document.querySelectorAll("[data-chart]")].map(el => {
  const c = echarts.getInstanceByDom(el);
  if (!c) return {id: el.id, drawn: false, series: [], points: 0};
  const o = c.getOption();
  const d = el.querySelector("svg, canvas");
  const r = d ? d.getBoundingClientRect() : {width: 0, height: 0};
  return {id: el.id, drawn: !!d && r.width > 0 && r.height > 0,
    series: o.series.map(s => s.name),
    points: o.series.reduce((n, s) => n + (s.data || []).length, 0)};
})
