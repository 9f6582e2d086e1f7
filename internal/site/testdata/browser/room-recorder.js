// Installed in every page of a study room scenario's tabs before the page's scripts run: it counts
// how often the htmx SSE extension opened the room's stream and how many events it swapped in.
// A new page (a reload or a navigation) starts again from zero, with no marker a test set; and a
// navigation the page starts (app.js following the presenter) is noted at once, before the old
// page is gone, in leaving.
window.__room = { open: 0, messages: 0, leaving: "" };
if (window.navigation) window.navigation.addEventListener("navigate", function (e) { if (!e.destination.sameDocument) window.__room.leaving = e.destination.url; });
document.addEventListener("htmx:sseOpen", function () { window.__room.open++; });
document.addEventListener("htmx:sseMessage", function () { window.__room.messages++; });
