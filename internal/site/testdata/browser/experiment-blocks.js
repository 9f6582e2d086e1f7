// What each experiment block on the page shows: the values in its own inputs, the stream values it
// takes from the first form (as text), its reading's first paragraph and the first row of every
// table. Two snapshots are equal when a reader sees the same page.
[...document.querySelectorAll("section.experiment")].map(sec => ({
  id: sec.id,
  inputs: Object.fromEntries([...sec.querySelectorAll("form input:not([type=hidden])")].map(i => [i.name, i.value])),
  stream: (sec.querySelector("p.stream") || {textContent: ""}).textContent.replace(/\s+/g, " ").trim(),
  reading: (sec.querySelector(".reading p") || {textContent: ""}).textContent.trim(),
  rows: [...sec.querySelectorAll("table.data tbody tr:first-child")].map(tr => tr.textContent.replace(/\s+/g, " ").trim()),
}))
