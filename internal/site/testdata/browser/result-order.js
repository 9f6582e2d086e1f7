// How each experiment's result is laid out: the kinds of its parts in document order (chart,
// table, reading) and whether the parts also stand in that order on screen, top to bottom.
[...document.querySelectorAll("section.experiment .result")].map(res => {
  const parts = [...res.querySelectorAll(".chart-figure, .table-wrap, .reading")];
  const kind = el => el.matches(".chart-figure") ? "chart" : el.matches(".table-wrap") ? "table" : "reading";
  const tops = parts.map(el => el.getBoundingClientRect().top);
  return {
    id: res.closest("section").id,
    order: parts.map(kind),
    onScreen: tops.every((t, i) => i === 0 || t >= tops[i - 1]),
    readingLast: !res.querySelector(".reading") || res.lastElementChild === res.querySelector(".reading"),
  };
})
