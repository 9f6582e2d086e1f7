// Block 4's escape-rate curve and the x of its "max delay" mark line, as JSON: a string that
// changes when the rerun's chart is drawn, and that names the max delay it was drawn for.
JSON.stringify((() => {
  const c = echarts.getInstanceByDom(document.querySelector("#exp-window [data-chart]"));
  if (!c) return null;
  const s = c.getOption().series[0];
  return {data: s.data, mark: ((s.markLine && s.markLine.data) || []).map(d => d.xAxis)};
})())
