// True once app.js has drawn every chart on the page. The attribute alone is not enough: app.js
// sets it once and leaves it while a redraw (a theme change) disposes the chart and draws it
// again, so an echarts instance must be behind it too.
document.readyState === "complete" && !!window.echarts &&
  [...document.querySelectorAll("[data-chart]")].every(el => el.getAttribute("data-chart-ready") === "true" && !!echarts.getInstanceByDom(el))
