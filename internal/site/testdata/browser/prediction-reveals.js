// Each prediction question with its measured answer. Visible means seen, not just unhidden: a CSS
// display rule can override [hidden].
[...document.querySelectorAll("form[data-predictions] [data-question]")].map(li => {
  const r = li.querySelector(".reveal");
  return {q: li.dataset.question, visible: !r.hidden && r.getClientRects().length > 0,
    measured: li.querySelector(".measured").textContent.trim(), where: li.querySelector(".measured-where").textContent.trim()};
})
