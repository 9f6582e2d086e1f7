// Where echarts put each point and bar of one chart, in pixels: per series its grid (panel), the
// grid's box, each item's raw value, centre and, for a bar, its length; and the x-axis types.
// Called with the chart element's selector.
(sel => {
  const c = echarts.getInstanceByDom(document.querySelector(sel));
  if (!c) return null;
  const o = c.getOption();
  return {
    xTypes: o.xAxis.map(a => a.type), yTypes: o.yAxis.map(a => a.type),
    series: c.getModel().getSeries().map((s, i) => {
      const cs = s.coordinateSystem, area = cs.getArea ? cs.getArea() : cs.master.getRect();
      const data = s.getData();
      const items = [];
      for (let j = 0; j < data.count(); j++) {
        const raw = s.getRawValue(j);
        const v = raw && typeof raw === "object" && "value" in raw ? raw.value : raw;
        const lay = data.getItemLayout(j);
        let px = null, len = null;
        if (s.subType === "bar" && lay) {
          px = [lay.x + lay.width / 2, lay.y + lay.height / 2];
          len = o.yAxis[0].type === "category" ? Math.abs(lay.width) : Math.abs(lay.height);
        } else {
          px = c.convertToPixel({seriesIndex: i}, v);
        }
        items.push({value: v, px, len});
      }
      return {name: s.name, type: s.subType, grid: cs.master && cs.master.model ? cs.master.model.componentIndex : 0,
        area: {x: area.x, y: area.y, width: area.width, height: area.height}, items};
    }),
  };
})
