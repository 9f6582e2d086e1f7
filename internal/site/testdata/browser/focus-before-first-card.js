// Focuses whatever comes just before the first card's summary in the tab order, so that the
// next Tab press shows whether the summary itself is reachable from the keyboard.
(() => {
  const sel = 'a[href], button:not([disabled]), input:not([type=hidden]):not([disabled]), summary, [tabindex]:not([tabindex="-1"])';
  const all = [...document.querySelectorAll(sel)].filter(e => !e.closest("[hidden]") && e.getClientRects().length > 0);
  const i = all.indexOf(document.querySelector("details.card > summary"));
  all[i - 1].focus();
})()
