// Why block 4's chart is not drawn, for the failure message: whether app.js marked each chart
// ready and whether the options script it points at came with the swap.
[...document.querySelectorAll("#exp-window [data-chart]")].map(el =>
  el.id + ": data-chart-ready=" + el.getAttribute("data-chart-ready") +
  ", options script #" + el.getAttribute("data-chart") + (document.getElementById(el.getAttribute("data-chart")) ? " present" : " missing")).join("; ")
